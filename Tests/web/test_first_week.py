"""Issue 46 item 5, the first week: rough edges a new user met on a tour of the product, each in the real browser
(phone viewport) against the real codex and the scripted model."""
import re
import signal
import subprocess
import threading
import time

from playwright.sync_api import expect

import conftest

from test_accessibility import Audit
from webutil import CHROMIUM, IPHONE_UA, bridge_codex_args, bridge_env, codex_bin, pair, pairing_url, start_thread


def start_untrusted(phone, prompt):
    """New thread → Use this folder → prompt, approval policy "untrusted" → Start."""
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill(prompt)
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    phone.button("Start").click()
    page.wait_for_url(re.compile(r"#/t/"))


def test_a_turn_waiting_on_an_approval_says_so_everywhere(web_bridge, model, phone):
    """The thread list said "Running" for a turn that waited on the person: it says "Waiting for your approval"
    there too, and nothing on the thread screen says Codex is working."""
    model.queue({"kind": "exec", "cmd": "printf 'hi\\n' > hello.txt"}, {"kind": "message", "text": "Wrote it."})
    page = phone.page
    pair(phone, web_bridge)
    start_untrusted(phone, "write hello")
    expect(page.locator(".approval")).to_contain_text("hello.txt")
    expect(page.locator(".turn-footer")).to_have_text("Waiting for your approval")
    expect(page.locator(".command .chip")).to_have_text("waiting for approval")
    shown = page.locator("body").inner_text().lower()  # what is on screen (hidden sheets left out)
    assert "working" not in shown and "running" not in shown, shown
    audit = Audit(phone)  # axe, and a screenshot light and dark
    audit("first-week-approval-thread")
    phone.button("Back").click()
    row = page.locator(".thread-row")
    expect(row.locator(".state")).to_have_text("Waiting for your approval")
    expect(row).not_to_contain_text("Running")
    audit("first-week-approval-list")
    assert not audit.found, audit.found
    row.click()
    phone.button("Approve").click()
    expect(page.locator(".msg.agent")).to_have_text("Wrote it.")
    phone.button("Back").click()
    expect(row.locator(".state")).to_have_text("Idle")
    assert not phone.errors


def test_the_restart_countdown_counts_down(web_bridge_factory, model, phone):
    """A turn running when the workstation stops shows the seconds Codex has left: the number goes down."""
    model.queue({"kind": "slow", "deltas": [f"w{i} " for i in range(8)], "delay": 0.01, "hold_after": [4]})
    bridge = web_bridge_factory(extra=("--shutdown-grace", "20s"))
    page = phone.page
    page.clock.install()  # the countdown is watched on the page's clock, moved on at once
    pair(phone, bridge)
    start_thread(phone, "count slowly")
    model.wait_held(0)
    stopper = threading.Thread(target=lambda: bridge.stop(sig=signal.SIGTERM, timeout=60), daemon=True)
    stopper.start()
    footer = page.locator(".turn-footer")
    expect(footer).to_contain_text("Codex has")
    first = int(re.search(r"(\d+) s", footer.inner_text()).group(1))
    assert 15 <= first <= 20, first
    page.clock.fast_forward(3000)
    later = int(re.search(r"(\d+) s", footer.inner_text()).group(1))
    assert first - 4 <= later <= first - 2, (first, later)
    phone.shot("first-week-countdown")
    model.open_gate(0)
    stopper.join(60)
    assert not phone.errors


COVERS = """() => {
    const boxes = [...document.querySelectorAll('.toast')].map((t) => t.getBoundingClientRect());
    const controls = [...document.querySelectorAll('.composer button, .composer textarea, .jump, .fab-bar button')]
        .filter((c) => c.getClientRects().length && !c.hidden);
    const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    return controls.filter((c) => boxes.some((b) => hit(b, c.getBoundingClientRect())))
        .map((c) => c.getAttribute('aria-label') || c.textContent.trim() || c.tagName);
}"""


def test_a_toast_covers_no_control_and_stays_with_its_thread(web_bridge, model, phone):
    """A toast sat 90 px above the bottom whatever was there: over a composer grown by a long draft. It goes
    above the composer now; and a toast about thread A is gone once thread B is open."""
    model.queue({"kind": "message", "text": "first done"}, {"kind": "message", "text": "second done"})
    page = phone.page
    pair(phone, web_bridge)
    start_thread(phone, "thread B")
    expect(page.locator(".msg.agent")).to_have_text("first done")
    phone.button("Back").click()
    start_thread(phone, "thread A")
    expect(page.locator(".msg.agent")).to_have_text("second done")
    box = page.locator(".composer").get_by_label("Message")
    box.fill("a draft\nof several\nlines that\nmake the\ncomposer\ngrow tall")
    page.get_by_role("button", name="More").click()
    page.get_by_role("menuitem", name="Settings").click()
    page.get_by_label("Approvals", exact=True).select_option("auto_review")
    phone.button("Save").click()
    toast = page.get_by_role("alert").filter(has_text="Settings saved")
    expect(toast).to_be_visible()
    assert page.evaluate(COVERS) == []
    phone.shot("first-week-toast")
    page.emulate_media(color_scheme="dark")
    phone.shot("first-week-toast-dark")
    page.emulate_media(color_scheme="light")
    # Thread B opened while the toast about A is still up (it lasts 4 s): it is not shown over B.
    phone.button("Back").click()
    page.locator(".thread-row").filter(has_text="thread B").click()
    expect(page.locator(".msg.agent")).to_have_text("first done")
    expect(page.locator(".toast")).to_have_count(0, timeout=1000)
    assert not phone.errors


PIXEL_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 "
            "Mobile Safari/537.36")
HTTPS_SENTENCE = ("Notifications need https, and this page came over plain http: run codex-bridge serve --tls on the "
                  "workstation and scan the first code it prints.")


def test_notifications_on_plain_http_say_the_command_that_gives_https(web_bridge, browser):
    """http://workstation.test (mapped to 127.0.0.1 inside the browser) is no secure context: no push. The thread
    list says so in one sentence with the command, on Android and on an iPhone (which was told to add the app to
    the Home Screen, which gives no push over http either)."""
    b = browser.browser_type.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--host-resolver-rules=MAP workstation.test 127.0.0.1"])
    try:
        for name, agent in (("android", PIXEL_UA), ("iphone", IPHONE_UA)):
            for scheme in ("light", "dark"):
                context = b.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                        user_agent=agent, color_scheme=scheme)
                context.route(re.compile(r"^(?!(https?|wss?)://(127\.0\.0\.1|workstation\.test)(:\d+)?/).*"),
                              lambda r: r.abort())
                page = context.new_page()
                errors = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(pairing_url(web_bridge).replace("127.0.0.1", "workstation.test"))
                expect(page.get_by_role("status")).to_have_text("Connected")
                bar = page.locator(".notify-bar")
                expect(bar).to_be_visible()
                expect(bar.locator(".notify-text")).to_have_text(HTTPS_SENTENCE)
                expect(bar.locator("code")).to_have_text("codex-bridge serve --tls")
                page.screenshot(path=str(conftest.ARTIFACTS / f"first-week-http-notify-{name}-{scheme}.png"))
                assert not errors, errors
                context.close()
    finally:
        b.close()


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout.strip()


def test_a_push_with_no_remote_says_how_to_add_one(bridge_factory, model, codex_home, workspace, tmp_path, phone):
    """Commit, then Push in a repository whose remote went away (removed at the workstation after the panel was
    drawn): the bridge answers no_remote and the panel says how to add one; drawn again, Push is off and the same
    sentence stands in its place."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Ana\n\temail = ana@example.com\n")
    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(bare))
    git("-C", str(workspace), "remote", "add", "origin", f"file://{bare}")
    env = bridge_env(codex_home)
    env["HOME"] = str(home)
    bridge = bridge_factory(name="git-state", env=env,
                            args=["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)])
    model.queue({"kind": "message", "text": "Wrote the notes."})
    page = phone.page
    pair(phone, bridge, scopes="all")  # push needs publish
    start_thread(phone, "write the notes")
    expect(page.locator(".msg.agent")).to_have_text("Wrote the notes.")
    (workspace / "notes.md").write_text("notes\n")
    phone.button("More").click()
    page.get_by_role("menuitem", name="Diff").click()
    panel = page.get_by_role("region", name="Git")
    page.get_by_label("Commit message").fill("Add the notes")
    phone.button("Commit").click()
    expect(panel.locator(".git-done")).to_contain_text("Committed")
    expect(panel.locator(".git-summary")).to_have_text("No changes · not pushed yet")
    expect(panel.locator(".git-next")).to_have_text(re.compile(r"Next: Push to origin publishes \w+\."))
    git("-C", str(workspace), "remote", "remove", "origin")
    panel.get_by_role("button", name="Push to origin").click()
    help_text = ("This repository has no remote to push to: on the workstation, run git remote add origin URL with the "
                 "URL of an empty repository (on GitHub, say), then Push.")
    expect(panel.get_by_role("alert")).to_have_text(help_text)
    expect(panel.get_by_role("alert").locator("code")).to_have_text("git remote add origin URL")
    expect(panel.get_by_role("button", name="Push", exact=True)).to_be_disabled()
    expect(panel.locator(".git-next")).to_be_hidden()  # said once
    audit = Audit(phone)
    audit("first-week-no-remote-refused")
    # The screen drawn again: Push off, the sentence in place of "Next".
    phone.button("Back").click()
    phone.button("More").click()
    page.get_by_role("menuitem", name="Diff").click()
    expect(panel.locator(".git-next")).to_have_text(help_text)
    expect(panel.get_by_role("button", name="Push", exact=True)).to_be_disabled()
    expect(panel.locator(".git-summary")).to_have_text("No changes · no remote")
    audit("first-week-no-remote")
    assert not audit.found, audit.found
    assert not phone.errors


def test_thread_titles_are_a_name_or_a_first_line_with_a_preview_line(web_bridge, model, phone_factory):
    """A prompt of several lines titled its row whole (clamped mid-sentence); now the title is its first line and
    the row's line says the rest, or the last answer once this phone has seen it; a renamed thread keeps its name
    as the title and its prompt as the line."""
    model.queue({"kind": "message", "text": "Parsed in **UTC** now."}, {"kind": "message", "text": "README done."})
    phone = phone_factory()
    page = phone.page
    pair(phone, web_bridge)
    start_thread(phone, "  fix the date parser\n\nIt assumes local time;\nuse UTC throughout.")
    expect(page.locator(".msg.agent")).to_contain_text("Parsed in UTC now.")
    expect(page.get_by_role("heading", level=1)).to_have_text("fix the date parser")
    phone.button("Back").click()
    start_thread(phone, "update the README\nwith the new flags")
    expect(page.locator(".msg.agent")).to_contain_text("README done.")
    phone.button("More").click()
    page.get_by_role("menuitem", name="Rename", exact=True).click()
    expect(page.get_by_label("Thread name")).to_have_value("update the README")
    page.get_by_label("Thread name").fill("Docs for the flags")
    phone.button("Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Docs for the flags")
    phone.button("Back").click()
    rows = page.locator(".thread-row")
    expect(rows.locator(".row-title")).to_have_text(["Docs for the flags", "fix the date parser"])
    expect(rows.locator(".row-answer")).to_have_text(["README done.", "Parsed in UTC now."])
    # A phone that never opened them: the title and what the first message says beyond it.
    other = phone_factory(color_scheme="dark")
    pair(other, web_bridge)
    others = other.page.locator(".thread-row")
    expect(others.locator(".row-title")).to_have_text(["Docs for the flags", "fix the date parser"])
    expect(others.locator(".row-answer")).to_have_text(["update the README with the new flags",
                                                        "It assumes local time; use UTC throughout."])
    audit = Audit(other)
    audit("first-week-titles")
    assert not audit.found, audit.found
    assert not phone.errors and not other.errors


LONG = "\n\n".join(f"Paragraph {i}: the parser now reads every date as UTC and the tests cover it." for i in range(40))
USAGE = {"input_tokens": 98_000, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 40,
         "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 98_040}


def test_the_context_meter_stays_in_sight_with_one_number(web_bridge, model, phone):
    """The context meter sat at the top of the conversation and scrolled away in a long thread; it said three
    numbers. It stays in sight at the end of a long thread and says how much context is left, in one number."""
    model.queue({"kind": "message", "text": LONG}, {"kind": "message", "text": LONG, "usage": USAGE})
    page = phone.page
    pair(phone, web_bridge)
    start_thread(phone, "explain the parser")
    expect(page.locator(".msg.agent")).to_have_count(1)
    page.get_by_label("Message").fill("and again")
    phone.button("Send").click()
    expect(page.locator(".msg.agent")).to_have_count(2)
    expect(page.locator(".turn-footer .working")).to_have_count(0, timeout=30_000)
    assert page.evaluate("document.documentElement.scrollHeight") > 3 * 844  # a long thread, seen at its end
    meter = page.locator(".context-meter")
    expect(meter).to_have_text(re.compile(r"^\d{1,3}% context left$"))
    expect(meter).to_be_in_viewport()
    left = int(re.match(r"\d+", meter.inner_text()).group(0))
    assert 40 <= left <= 80, left  # 98k of a window of a few hundred k
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
    expect(meter).to_be_in_viewport()
    audit = Audit(phone)
    audit("first-week-context")
    assert not audit.found, audit.found
    assert not phone.errors


REDUCED_UA = ("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile "
              "Safari/537.36")
CAMEL = re.compile(r"\b[a-z]{2,}[A-Z][A-Za-z]*\b")  # a request kind (runCommand, setDeviceScopes)
SCOPE_NAMES = re.compile(r"\b(observe|operate|publish|admin)\b")  # ("run" and "approve" are words too)


def test_the_devices_screen_in_words_and_phones_named_by_browser_and_model(web_bridge, model, phone_factory):
    """The Devices screen said scopes by name (observe, publish), some activity by request kind (runCommand) and a
    phone's platform as "web"; it says them in words now. A phone is named by its browser and model: a Chrome with
    the reduced user agent ("Android 10; K") tells its model through client hints (set here through DevTools, the
    way a real Pixel's Chrome reports itself)."""
    model.queue({"kind": "message", "text": "ok"})
    pixel = phone_factory()
    cdp = pixel.context.new_cdp_session(pixel.page)
    cdp.send("Emulation.setUserAgentOverride", {"userAgent": REDUCED_UA, "userAgentMetadata": {
        "brands": [{"brand": "Google Chrome", "version": "126"}], "fullVersionList": [], "platform": "Android",
        "platformVersion": "14", "architecture": "", "model": "Pixel 7", "mobile": True}})
    pair(pixel, web_bridge)
    admin = phone_factory()
    page = admin.page
    pair(admin, web_bridge, scopes="all")
    start_thread(admin, "say ok")
    expect(page.locator(".msg.agent")).to_have_text("ok")
    page.get_by_label("Message").fill("!echo hi")
    admin.button("Send").click()
    expect(page.locator(".command-card")).to_contain_text("hi")
    admin.button("Back").click()
    admin.button("Devices").click()
    cards = page.locator(".device-card")
    expect(cards).to_have_count(2)
    expect(cards.locator(".device-name")).to_have_text(["Safari on iPhone", "Chrome on Pixel 7"])
    expect(cards.locator(".device-meta").first).to_contain_text("Web app")
    expect(page.locator(".activity")).to_contain_text("Ran a command")
    boxes = page.get_by_role("checkbox")
    names = [b.evaluate("(b) => b.labels[0].textContent.trim()") for b in boxes.all()]
    assert names and all(n.startswith("May ") for n in names), names
    expect(page.get_by_role("checkbox", name="May push and open pull requests")).to_have_count(3)  # 2 cards, the pair card
    shown = page.locator(".devices-main").inner_text()
    assert not CAMEL.findall(shown), CAMEL.findall(shown)
    assert not SCOPE_NAMES.findall(shown), SCOPE_NAMES.findall(shown)
    # A scope taken away is said in words too.
    them = cards.nth(1)
    them.get_by_role("checkbox", name="May answer approvals and questions").uncheck()
    expect(page.get_by_role("alert").filter(has_text="Chrome on Pixel 7 may now")).to_have_text(
        "Chrome on Pixel 7 may now see threads, their changes and files, and start and drive threads and upload photos.")
    page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.remove())")
    audit = Audit(admin)
    audit("first-week-devices")
    assert not audit.found, audit.found
    assert not admin.errors and not pixel.errors
