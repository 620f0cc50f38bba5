"""Issue 35 on a phone (390×844, real codex against the scripted model): a dev server runs in the thread's folder;
the thread's More → Preview lists it with a line saying what a preview is, Open shows it in a new tab on the
preview origin (page and script load), and that tab can neither reach back to the app (no opener), nor read the
bridge origin's storage, nor open the bridge's WebSocket (its Origin is refused); a `!command` card whose output
names a local URL offers its preview. A thread in the home directory gets no previews, and the sheet says why in the
bridge's words (issue 44). axe-core clean; screenshots. Cost: ~12 s."""
import pathlib
import subprocess
import sys

import pytest
from axe_playwright_python.sync_playwright import Axe
from codex_fixture import bridge_codex_args, codex_bin
from playwright.sync_api import expect

from webutil import bridge_env, pair, start_thread, thread_action

DEVSERVER = pathlib.Path(__file__).resolve().parents[1] / "integration" / "preview_devserver.py"


@pytest.fixture
def dev_server(workspace, tmp_path):
    (workspace / "site").mkdir()
    proc = subprocess.Popen([sys.executable, str(DEVSERVER), "http", str(tmp_path / "headers.log")], cwd=workspace / "site",
                            stdout=subprocess.PIPE, text=True)
    yield int(proc.stdout.readline())
    proc.kill()
    proc.wait()


def test_preview_opens_the_dev_server_in_a_tab_of_its_own_origin(web_bridge, model, phone, dev_server):
    model.queue({"kind": "message", "text": "The site runs on a dev server."})
    pair(phone, web_bridge, scopes="all")  # !commands need run
    page = phone.page
    start_thread(phone, "serve the site")
    expect(page.locator(".msg.agent")).to_contain_text("dev server")

    thread_action(phone, "Preview")
    sheet = page.get_by_role("form", name="Preview")
    expect(sheet).to_contain_text("to this phone only")
    expect(sheet.get_by_text(f"Port {dev_server}")).to_be_visible()
    for scheme in ("dark", "light"):
        page.emulate_media(color_scheme=scheme)
        violations = [v["id"] for v in Axe().run(page).response["violations"] if v["impact"] in ("serious", "critical")]
        assert violations == [], (scheme, violations)
        phone.shot(f"preview-sheet-{scheme}")

    with phone.context.expect_page() as opened:
        sheet.get_by_role("button", name=f"Open port {dev_server}").click()
    tab = opened.value
    expect(tab.locator("#title")).to_have_text("Hello from the dev server")
    expect(tab.locator("#script")).to_have_text("script ran")
    preview_origin = tab.evaluate("location.origin")
    assert preview_origin.startswith("http://127.0.0.1:") and preview_origin != f"http://127.0.0.1:{web_bridge.port}"
    tab.screenshot(path=str(pathlib.Path(__file__).parent / "artifacts" / "preview-tab.png"))

    # The tab is another origin: no handle on the app, none of its storage, no WebSocket to the bridge.
    assert tab.evaluate("window.opener === null")
    assert page.evaluate("localStorage.length") > 0
    assert tab.evaluate("localStorage.length") == 0
    outcome = tab.evaluate("""(port) => new Promise((done) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
        ws.onopen = () => done('open');
        ws.onclose = () => done('closed');
        setTimeout(() => done('timeout'), 5000);
    })""", web_bridge.port)
    assert outcome == "closed", outcome
    tab.close()

    # A !command whose output names a local URL offers its preview on the card; a port the thread does not own is
    # refused with the bridge's words.
    page.get_by_label("Message").fill(f"!echo 'Local: http://localhost:{dev_server}/' 'also http://127.0.0.1:9/'")
    phone.button("Send").click()
    card = page.locator(".command-card").first
    expect(card.locator(".command-status")).to_have_text("Exit 0")
    with phone.context.expect_page() as opened:
        card.get_by_role("button", name=f"Preview port {dev_server}").click()
    expect(opened.value.locator("#title")).to_have_text("Hello from the dev server")
    opened.value.close()
    card.get_by_role("button", name="Preview port 9").click()
    expect(page.get_by_role("alert").filter(has_text="no server of this thread listens on port 9")).to_be_visible()
    phone.shot("preview-command-card")
    assert not phone.errors and not phone.csp_violations(), (phone.errors, phone.console)


def test_a_thread_in_the_home_directory_gets_no_previews_and_the_sheet_says_why(
        bridge_factory, model, codex_home, workspace, phone, dev_server):
    # The bridge's user's home is the root: a thread there would own every server started below it.
    bridge = bridge_factory(name="home-state", env={**bridge_env(codex_home), "HOME": str(workspace)},
                            args=["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)])
    model.queue({"kind": "message", "text": "The site runs on a dev server."})
    pair(phone, bridge)
    start_thread(phone, "serve the site")
    expect(phone.page.locator(".msg.agent")).to_contain_text("dev server")
    thread_action(phone, "Preview")
    sheet = phone.page.get_by_role("form", name="Preview")
    expect(sheet.get_by_role("status")).to_contain_text("not offered for a thread in")
    expect(sheet.get_by_role("status")).to_contain_text("home directory")
    expect(sheet.get_by_text(f"Port {dev_server}")).to_have_count(0)
    for scheme in ("dark", "light"):
        phone.page.emulate_media(color_scheme=scheme)
        violations = [v["id"] for v in Axe().run(phone.page).response["violations"] if v["impact"] in ("serious", "critical")]
        assert violations == [], (scheme, violations)
        phone.shot(f"preview-sheet-home-{scheme}")
    assert not phone.errors and not phone.csp_violations(), (phone.errors, phone.console)
