"""The core flow in WebKit, Safari's engine (issue 28): WebKitGTK's MiniBrowser driven by Selenium through
WebKitWebDriver, with an iPhone's user agent, against the real bridge, the real codex and the scripted model.

One flow, one browser: pair from the QR's web URL; a new thread through the folder picker; an answer streamed
word by word (seen mid-stream); a command approved; the agent's question answered; the diff; the socket cut in
the middle of a streamed answer and every word shown once after the page reconnects by itself; the phone revoked
while a second (dark) phone stays connected. Screenshots of the list, the approval, the question and the diff in
light and dark go to the artifacts (and, with WEB_UPDATE_DOCS=1, to docs/webkit-*.png beside Chromium's).

The page goes through a TCP relay on 127.0.0.1 (test_resilience.Proxy) so the test can cut its socket.
"""
import json
import os
import re
import shutil

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_resilience import Proxy
from webkit import WebKitPhone, Xvfb
from webutil import IPHONE_UA, pairing_url

import conftest

WORDS = [f"w{i:02d} " for i in range(30)]
QUESTION = {"id": "colour", "header": "Colour", "question": "Which colour <b>should</b> it be?",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}
EDIT = "printf 'one\\nchanged by the agent\\n' > tracked.txt"

# Errors the page throws after it loaded (WebDriver has no console for WebKitGTK): collected by the page itself.
CATCH_ERRORS = """window.__errors = window.__errors || [];
addEventListener('error', (e) => window.__errors.push(String(e.message || e)));
addEventListener('unhandledrejection', (e) => window.__errors.push('unhandled: ' + String(e.reason)));"""


@pytest.fixture
def display():
    x = Xvfb()
    yield x.display
    x.stop()


@pytest.fixture
def webkit_factory(display, tmp_path):
    made = []

    def make(**kwargs):
        phone = WebKitPhone(display, tmp_path / "webkit-logs", user_agent=IPHONE_UA, **kwargs)
        made.append(phone)
        return phone

    yield make
    for phone in made:
        phone.quit()


def shot(phone, name):
    """A screenshot once the page has painted what the DOM holds: WebKitGTK's snapshot is the last composited
    frame, which can lag the DOM by a frame or more (seen: the pairing screen in a shot taken after "Connected")."""
    phone.driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50)));")
    previous = None
    for _ in range(30):  # until two consecutive snapshots agree (bounded: an animating page still gets a shot)
        png = phone.driver.get_screenshot_as_png()
        if png == previous:
            break
        previous = png
        phone.driver.execute_async_script("const done = arguments[arguments.length - 1]; setTimeout(done, 100);")
    path = conftest.ARTIFACTS / f"webkit-{name}.png"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(previous)
    return path


def open_diff(phone):
    """The thread's Diff: a header button, or an item of the header's More menu (where issue 28 item 8 puts it)."""
    if phone.has_button("Diff"):
        phone.click("Diff")
        return
    phone.click("More")
    item = phone.wait(lambda: [e for e in phone.driver.find_elements(By.XPATH, "//*[@role='menuitem'][normalize-space(.)='Diff']")
                               if e.is_displayed()], what="the Diff menu item")[0]
    phone.click(item)


def agent_texts(phone):
    return phone.text_of(".msg.agent")


def test_core_flow_in_webkit(web_bridge, model, workspace, webkit_factory):
    (workspace / "sub").mkdir()
    model.queue(
        {"kind": "slow", "deltas": WORDS[:12], "delay": 0.02, "hold_after": [6]},        # turn 1: streamed, held
        {"kind": "exec", "cmd": EDIT},                                                       # turn 2: approval
        {"kind": "ask", "questions": [QUESTION]},                                            #   then a question
        {"kind": "echo_output"},                                                             #   then the answer
        {"kind": "slow", "deltas": WORDS, "delay": 0.01, "hold_after": [10, 20]})            # turn 3: cut mid-way
    proxy = Proxy(web_bridge.port)
    shots = {}
    try:
        phone = webkit_factory()
        driver = phone.driver
        assert "AppleWebKit" in phone.js("return navigator.userAgent")

        # Pair from the QR's URL (through the relay).
        url = re.sub(r"^http://127\.0\.0\.1:\d+/", f"http://127.0.0.1:{proxy.port}/", pairing_url(web_bridge))
        code = re.search(r"code=([^&]+)", url).group(1)
        driver.get(url)
        phone.js(CATCH_ERRORS)
        phone.wait_status("Connected")
        phone.button("New thread")
        assert "#pair" not in driver.current_url and code not in driver.current_url
        stored = phone.js("return localStorage.getItem('codex-bridge/v1')")
        assert code not in stored and json.loads(stored)["current"]
        devices = json.loads(conftest.run_cli("devices", "list", "--json", state_dir=web_bridge.state_dir, check=True).stdout)
        assert [(d["name"], d["platform"]) for d in devices] == [("Safari on iPhone", "web")]

        # A new thread through the picker: into a folder and back up, then this one, untrusted, a prompt.
        phone.click("New thread")
        phone.click("sub")
        phone.wait(lambda: phone.text_of(".picker-path") and phone.text_of(".picker-path")[0].endswith("sub"),
                   what="the picker inside sub")
        phone.click("Parent folder")
        phone.button("sub")
        phone.click("Use this folder")
        phone.click(phone.wait(lambda: phone.visible("details.options summary"), what="Options")[0])
        Select(phone.labelled("Approval policy")).select_by_value("untrusted")
        phone.labelled("Message").send_keys("count, then fix tracked.txt")
        phone.click("Start")
        phone.wait(lambda: "#/t/" in driver.current_url, what="the thread screen")

        # Streaming: part of the answer is on screen while the model holds the rest.
        model.wait_held(0)
        first_part = "".join(WORDS[:6]).strip()
        phone.wait_text(".msg.agent.streaming", lambda t: t == [first_part], what="the first six words, streaming")
        model.open_gate(0)
        phone.wait_text(".msg.agent", lambda t: t == ["".join(WORDS[:12]).strip()], what="the whole answer")
        phone.wait(lambda: not phone.visible(".msg.agent.streaming"), what="the answer no longer streaming")
        phone.wait(lambda: not phone.has_button("Stop"), what="the turn over")
        model.gates[0].clear()  # hold points count per response: turn 3's first one is point 0 again
        model.held[0].clear()

        # Approve a command.
        phone.labelled("Message").send_keys("now edit the file")
        phone.click("Send")
        card = phone.wait(lambda: phone.visible(".approval:not(.question-card):not(.resolved)"), what="an approval card")[0]
        assert "changed by the agent" in phone.text(card)
        shots["thread-approval-light"] = shot(phone, "thread-approval-light")
        phone.click("Approve")
        phone.wait(lambda: any("Approved by this phone" in t for t in phone.text_of(".approval")), what="approved")
        phone.wait(lambda: (workspace / "tracked.txt").read_text() == "one\nchanged by the agent\n", what="the command run")

        # Answer the agent's question: its markup is shown as text.
        question = phone.wait(lambda: phone.visible(".question-card"), what="the question card")[0]
        phone.wait(lambda: "Which colour <b>should</b> it be?" in phone.text(question), what="the question's text")
        assert not question.find_elements(By.CSS_SELECTOR, "b")
        shots["question-light"] = shot(phone, "question-light")
        phone.click(question.find_element(By.XPATH, ".//label[.//span[normalize-space(.)='Blue']]"))
        phone.click("Send answer")
        phone.wait(lambda: "Answered by this phone" in phone.text_of(".question-card")[0], what="answered")
        answer = phone.wait_text(".msg.agent", lambda t: len(t) == 2 and "Blue" in t[1], timeout=30, what="the echoed answer")
        assert json.loads(answer[1]) == {"answers": {"colour": {"answers": ["Blue"]}}}
        phone.wait(lambda: not phone.has_button("Stop"), what="the second turn over")

        # The diff.
        open_diff(phone)
        diff = phone.wait(lambda: [e for e in phone.visible(".diff-file") if "tracked.txt" in phone.text(e)], what="tracked.txt in the diff")[0]
        assert [phone.text(e) for e in diff.find_elements(By.CSS_SELECTOR, ".dl.add")] == ["+changed by the agent"]
        shots["diff-light"] = shot(phone, "diff-light")
        phone.click("Back")
        phone.button("Send")

        # The socket is cut mid-answer; while the phone is away the model streams ten more words. Back online, the
        # page resumes from its last seq: every word once, nothing twice.
        phone.labelled("Message").send_keys("count again")
        phone.click("Send")
        model.wait_held(0)
        phone.wait_text(".msg.agent", lambda t: len(t) == 3 and t[2] == "".join(WORDS[:10]).strip(), what="ten words")
        proxy.blocked = True
        proxy.cut()
        phone.wait(lambda: phone.status_text() != "Connected", what="the page noticing the cut")
        model.open_gate(0)
        model.wait_held(1)
        proxy.blocked = False
        phone.wait_status("Connected", timeout=30)
        phone.wait_text(".msg.agent", lambda t: len(t) == 3 and t[2] == "".join(WORDS[:20]).strip(), what="twenty words once")
        model.open_gate(1)
        phone.wait_text(".msg.agent", lambda t: len(t) == 3 and t[2] == "".join(WORDS).strip(), what="all words once")
        assert phone.text_of(".msg.user") == ["count, then fix tracked.txt", "now edit the file", "count again"]

        # The list, then a second phone in dark mode for the same screens.
        phone.click("Back")
        phone.wait(lambda: phone.visible(".thread-row"), what="the thread list")
        shots["thread-list-light"] = shot(phone, "thread-list-light")
        dark = webkit_factory(dark=True)
        dark.driver.get(re.sub(r"^http://127\.0\.0\.1:\d+/", f"http://127.0.0.1:{web_bridge.port}/", pairing_url(web_bridge)))
        dark.wait_status("Connected")
        assert dark.js("return matchMedia('(prefers-color-scheme: dark)').matches") is True
        dark.wait(lambda: dark.visible(".thread-row"), what="the dark phone's list")
        shots["thread-list-dark"] = shot(dark, "thread-list-dark")
        dark.click(dark.visible(".thread-row")[0])
        dark.wait(lambda: len(dark.text_of(".msg.agent")) == 3, what="the thread on the dark phone")
        dark.js("window.scrollTo(0, 0)")
        shots["thread-dark"] = shot(dark, "thread-dark")
        open_diff(dark)
        dark.wait(lambda: dark.visible(".diff-file"), what="the dark diff")
        shots["diff-dark"] = shot(dark, "diff-dark")

        # Revoked: the first phone is told and asks for a new code; the second stays connected.
        devices = json.loads(conftest.run_cli("devices", "list", "--json", state_dir=web_bridge.state_dir, check=True).stdout)
        assert sorted(d["id"] for d in devices) == sorted([device_id(phone), device_id(dark)])
        conftest.run_cli("devices", "revoke", device_id(phone), state_dir=web_bridge.state_dir, check=True)
        phone.wait(lambda: "This phone was unpaired; scan a new code" in phone.text_of("body")[0],
                   timeout=15, what="the unpaired notice")
        phone.labelled("Pairing code")
        stored = json.loads(phone.js("return localStorage.getItem('codex-bridge/v1')"))
        assert all("token" not in b for b in stored["bridges"].values()), stored
        shot(phone, "unpaired-light")
        dark.wait_status("Connected")
        assert phone.js("return window.__errors") == []
        assert dark.js("return window.__errors || []") == []
    finally:
        proxy.close()
    if os.environ.get("WEB_UPDATE_DOCS"):  # WEB_UPDATE_DOCS=1 pytest test_webkit.py: refresh docs/webkit-*.png
        docs = conftest.ROOT / "docs"
        for name, path in shots.items():
            shutil.copyfile(path, docs / f"webkit-{name}.png")


def device_id(phone) -> str:
    """The device id the page was paired as (the bridge's helloAck.deviceId, kept by the page)."""
    stored = json.loads(phone.js("return localStorage.getItem('codex-bridge/v1')"))
    bridge = stored["bridges"][stored["current"]]
    return bridge.get("deviceId")
