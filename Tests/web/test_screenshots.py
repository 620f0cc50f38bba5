"""The screens a person sees, in light and dark, on a phone: saved as test artifacts; with WEB_UPDATE_DOCS=1
the best ones are copied to docs/ for the README (thread list, a streaming thread with an approval card, a diff)."""
import os
import shutil
import subprocess

from playwright.sync_api import expect

from webutil import pair

import conftest

ANSWER = """The date test fails because `parse_day` reads the local time zone. Here is the plan:

1. Parse timestamps as **UTC** in `app/dates.py`.
2. Add a regression test for midnight.

```python
def parse_day(text: str) -> date:
    return datetime.fromisoformat(text).astimezone(timezone.utc).date()
```

I'll apply the change and run the tests."""

FIRST = """Done. Both places now use `timezone.utc`:

- `app/dates.py`: `parse_day` converts before taking the date
- `tests/test_dates.py`: a case at 23:30 UTC-5

All **14 tests** pass. See the [zoneinfo docs](https://docs.python.org/3/library/zoneinfo.html)."""

EDIT = ("printf 'from datetime import datetime, timezone\\n\\n\\ndef parse_day(text):\\n"
        "    return datetime.fromisoformat(text).astimezone(timezone.utc).date()\\n' > app/dates.py && "
        "printf 'def test_midnight():\\n    assert parse_day(\"2026-01-01T23:30:00-05:00\").day == 2\\n' > tests/test_dates.py")


def commit_all(ws):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    subprocess.run(["git", "-C", str(ws), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(ws), "commit", "-qm", "more"], check=True, env=env)


def test_screens_light_and_dark(web_bridge, model, phone_factory, workspace):
    (workspace / "app").mkdir()
    (workspace / "tests").mkdir()
    (workspace / "app" / "dates.py").write_text(
        "from datetime import datetime\n\n\ndef parse_day(text):\n    return datetime.fromisoformat(text).date()\n")
    (workspace / "app" / "__init__.py").write_text("")
    commit_all(workspace)
    model.queue({"kind": "message", "text": FIRST, "deltas": [FIRST[:50], FIRST[50:]]},
                {"kind": "say_exec", "text": ANSWER, "deltas": [ANSWER[:60], ANSWER[60:]], "cmd": EDIT})
    light = phone_factory(color_scheme="light")
    pair(light, web_bridge)
    page = light.page
    # An earlier thread, finished.
    light.button("New thread").click()
    light.button("Use this folder").click()
    page.get_by_label("Message").fill("Why does the CI fail on Mondays? Check the date helpers.")
    light.button("Start").click()
    expect(page.locator(".msg.agent")).to_contain_text("All 14 tests pass")
    light.button("Back").click()
    # The current one: an answer, then a command waiting for approval.
    light.button("New thread").click()
    light.button("app").click()
    light.button("Parent folder").click()
    light.button("Use this folder").click()
    page.get_by_label("Message").fill("Fix the flaky date test and add a regression test")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    light.button("Start").click()
    expect(page.locator(".approval")).to_be_visible()
    thread_url = page.url

    dark = phone_factory(color_scheme="dark")
    pair(dark, web_bridge)
    shots = {}
    for name, phone in (("light", light), ("dark", dark)):
        p = phone.page
        p.goto(thread_url.split("#")[0] + "#/")
        expect(p.locator(".thread-row")).to_have_count(2)
        expect(p.locator(".thread-row .badge")).to_have_text("1 approval")
        shots[f"thread-list-{name}"] = phone.shot(f"thread-list-{name}")
        p.goto(thread_url)
        expect(p.locator(".approval")).to_be_visible()
        expect(p.locator(".msg.agent pre")).to_be_visible()
        expect(p.locator(".approval")).to_have_count(1)
        p.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        p.wait_for_timeout(300)
        shots[f"thread-approval-{name}"] = phone.shot(f"thread-approval-{name}")
    light.button("Approve").click()
    expect(page.locator(".approval")).to_contain_text("Approved by this phone")
    expect(page.locator(".turn-footer .working")).to_have_count(0, timeout=60_000)
    for name, phone in (("light", light), ("dark", dark)):
        p = phone.page
        p.goto(thread_url + "/diff")
        expect(p.locator(".diff-file")).to_have_count(2)
        expect(p.locator(".diff-file").filter(has_text="app/dates.py").locator(".dl.del")).to_have_count(2)
        shots[f"diff-{name}"] = phone.shot(f"diff-{name}")
    for phone in (light, dark):
        assert not phone.errors and not phone.csp_violations() and not phone.dialogs
    if os.environ.get("WEB_UPDATE_DOCS"):  # refresh the README's pictures: WEB_UPDATE_DOCS=1 pytest test_screenshots.py
        docs = conftest.ROOT / "docs"
        docs.mkdir(exist_ok=True)
        for name, path in shots.items():
            shutil.copyfile(path, docs / f"web-{name}.png")
