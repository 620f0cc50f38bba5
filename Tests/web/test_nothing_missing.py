"""Issue 46 item 2: a network cut mid-turn must never leave a streamed delta missing (or doubled) on screen.

The page reaches the bridge through a TCP relay (test_resilience.Proxy) that cuts every connection at many points
of a streamed answer: in the middle of the stream, during the handshake, during the replay that follows a resume,
while new connections are refused for a moment (seeded: CUT_SEED=N runs another pattern). The answer pauses before
its last delta (the completed item would bring the whole text and hide a lost delta), and the screen must then hold
every delta so far exactly once, word for word; then the last one and the completion. Chromium and WebKit.

What was missing was on screen, not on the wire (every socket's seqs were contiguous from the resume cursor, as the
soak and test_resilience find too): the last Markdown render of a streaming answer dropped the space that ended it,
so the next delta was glued to the word before ("w56x63d57"), for good once the answer is too long to render again
(24 000 characters) and until the next render before that. Seen failing in both browsers. Cost: ~10 s each.
Drafts surviving a reload: ~3 s. A device that loses `observe` and gets it back mid-turn: ~9 s."""
import json
import os
import random
import re
import threading
import time

from playwright.sync_api import expect

import conftest
from test_resilience import Proxy
from test_webkit import CATCH_ERRORS, display, webkit_factory  # noqa: F401 (fixtures)
from webutil import pair, pairing_url, start_thread

# 68 deltas of about 450 characters: the answer passes the 24 000 characters up to which the page re-renders it as
# Markdown while it streams (item-views.js) around delta 53, so the seam between the last Markdown render and the
# text appended after it is on screen for good, as in a long answer.
DELTAS = [f"d{i:02d} " + "".join(f"w{i:02d}x{k:02d} " for k in range(64)) for i in range(68)]
LAST = len(DELTAS) - 1


def so_far(n):
    return "".join(DELTAS[:n]).strip()


class Cutter:
    """Cuts the relay's connections at random moments (seeded: a failure can be run again), sometimes refusing new
    connections for a moment too, until stopped; counts the cuts."""

    def __init__(self, proxy, seed):
        self.proxy = proxy
        self.random = random.Random(seed)
        self.stopped = threading.Event()
        self.cuts = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def _run(self):
        while not self.stopped.wait(self.random.uniform(0.05, 0.45)):
            refuse = self.random.random() < 0.3
            self.proxy.blocked = refuse
            self.proxy.cut()
            self.cuts += 1
            if refuse:
                self.stopped.wait(self.random.uniform(0.1, 0.8))
                self.proxy.blocked = False

    def stop(self):
        self.stopped.set()
        self.thread.join(5)
        self.proxy.blocked = False


def relayed_url(bridge, proxy):
    return re.sub(r"^http://127\.0\.0\.1:\d+/", f"http://127.0.0.1:{proxy.port}/", pairing_url(bridge))


def script(model):
    # Streams fast enough that many cuts fall inside it, holds before the first delta and before the last one.
    model.queue({"kind": "slow", "deltas": DELTAS, "delay": 0.08, "hold_after": [3, LAST]})


def test_cuts_at_many_points_of_a_turn_lose_no_delta(web_bridge, model, phone):
    script(model)
    proxy = Proxy(web_bridge.port)
    frames = []  # (socket number, seq, type) of every numbered frame the page received, for the failure message
    try:
        page = phone.page

        sockets = []

        def watch(ws):
            sockets.append(ws)
            n = len(sockets)
            ws.on("framereceived", lambda f: frames.append((n, *_seq(f))) if '"seq"' in f else None)
        page.on("websocket", watch)
        page.goto(relayed_url(web_bridge, proxy))
        expect(phone.status()).to_have_text("Connected")
        start_thread(phone, "count through the cuts")
        model.wait_held(0)
        expect(page.locator(".msg.agent")).to_have_text(so_far(3))
        cutter = Cutter(proxy, seed=int(os.environ.get("CUT_SEED", 46))).start()
        model.open_gate(0)
        model.wait_held(1, timeout=60)
        cutter.stop()
        print(f"{cutter.cuts} cuts while {LAST - 3} deltas streamed")
        assert cutter.cuts >= 8, cutter.cuts
        expect(phone.status()).to_have_text("Connected", timeout=30_000)
        # Every delta so far, once, while the answer still streams (no completed item to paper over a gap).
        agent = page.locator(".msg.agent")
        try:
            expect(agent).to_have_text(so_far(LAST), timeout=15_000)
        except AssertionError:
            raise AssertionError(f"{_difference(agent.inner_text(), so_far(LAST))}; frames: {_deltas(frames)}") from None
        expect(page.locator(".msg.agent.streaming")).to_have_count(1)
        model.open_gate(1)
        expect(agent).to_have_text(so_far(len(DELTAS)))
        expect(page.locator(".msg.agent.streaming")).to_have_count(0)
        expect(agent).to_have_count(1)
        expect(page.locator(".msg.user")).to_have_text(["count through the cuts"])
        assert not phone.errors, phone.errors
    finally:
        proxy.close()


def test_cuts_at_many_points_of_a_turn_lose_no_delta_in_webkit(web_bridge, model, webkit_factory):  # noqa: F811
    script(model)
    proxy = Proxy(web_bridge.port)
    try:
        phone = webkit_factory()
        driver = phone.driver
        driver.get(relayed_url(web_bridge, proxy))
        phone.js(CATCH_ERRORS)
        phone.wait_status("Connected")
        phone.click("New thread")
        phone.click("Use this folder")
        phone.labelled("Message").send_keys("count through the cuts")
        phone.click("Start")
        phone.wait(lambda: "#/t/" in driver.current_url, what="the thread screen")
        model.wait_held(0)
        phone.wait_text(".msg.agent", lambda t: t == [so_far(3)], what="the first deltas")
        cutter = Cutter(proxy, seed=int(os.environ.get("CUT_SEED", 47))).start()
        model.open_gate(0)
        model.wait_held(1, timeout=60)
        cutter.stop()
        print(f"{cutter.cuts} cuts while {LAST - 3} deltas streamed")
        assert cutter.cuts >= 8, cutter.cuts
        phone.wait_status("Connected", timeout=30)
        try:
            phone.wait_text(".msg.agent", lambda t: t == [so_far(LAST)], timeout=15, what="every delta so far, once")
        except AssertionError:
            raise AssertionError(_difference((phone.text_of(".msg.agent") or [""])[0], so_far(LAST))) from None
        assert phone.visible(".msg.agent.streaming")
        model.open_gate(1)
        phone.wait_text(".msg.agent", lambda t: t == [so_far(len(DELTAS))], what="the whole answer, once")
        phone.wait(lambda: not phone.visible(".msg.agent.streaming"), what="the answer no longer streaming")
        assert phone.js("return window.__errors || []") == []
    finally:
        proxy.close()


def _difference(shown, expected):
    """What is on screen and should not be, and what should be and is not, word by word."""
    shown_words, expected_words = shown.split(), expected.split()
    return (f"{len(shown_words)} words on screen, {len(expected_words)} expected; not expected: "
            f"{sorted(set(shown_words) - set(expected_words))[:10]}, missing: {sorted(set(expected_words) - set(shown_words))[:10]}, "
            f"twice: {len(shown_words) - len(set(shown_words))}")


def _seq(text):
    try:
        msg = json.loads(text)
    except ValueError:
        return (None, None)
    return (msg.get("seq"), msg.get("type") or msg.get("kind"))


def _deltas(frames):
    """The delta frames' seqs per socket, compactly."""
    out = {}
    for n, seq, kind in frames:
        if kind == "item/agentMessage/delta":
            out.setdefault(n, []).append(seq)
    return out


def test_drafts_survive_a_reload_per_thread(web_bridge, model, phone):
    """What is typed and not sent is still there after a reload (or iOS discarding the tab), in its own thread; a
    sent message leaves no draft behind. Seen failing before: the box came back empty."""
    model.queue({"kind": "message", "text": "first answer"}, {"kind": "message", "text": "second answer"},
                {"kind": "message", "text": "sent it"})
    page = phone.page
    pair(phone, web_bridge)
    start_thread(phone, "first thread")
    expect(page.locator(".msg.agent")).to_have_text("first answer")
    first = page.url
    box = page.locator(".composer").get_by_label("Message")
    box.fill("half a thought\nand a second line")
    phone.button("Back").click()
    start_thread(phone, "second thread")
    expect(page.locator(".msg.agent")).to_have_text("second answer")
    expect(box).to_have_value("")  # another thread's draft is its own
    box.fill("another draft")
    page.reload()
    expect(phone.status()).to_have_text("Connected")
    expect(box).to_have_value("another draft")
    page.goto(first)
    expect(box).to_have_value("half a thought\nand a second line")
    phone.button("Send").click()
    expect(page.locator(".msg.agent").last).to_have_text("sent it")
    page.reload()
    expect(phone.status()).to_have_text("Connected")
    expect(page.locator(".msg.user").last).to_have_text("half a thought\nand a second line")
    expect(box).to_have_value("")
    assert not phone.errors, phone.errors


def test_observe_taken_away_and_given_back_mid_turn_misses_nothing(web_bridge, model, phone):
    """A device that loses `observe` gets no events; given it back, it subscribes again from its cursor, so what
    streamed meanwhile shows (it subscribed from now on: those words were missing until the answer completed)."""
    words = [f"v{i:02d} " for i in range(30)]
    model.queue({"kind": "slow", "deltas": words, "delay": 0.01, "hold_after": [10, 20]})
    page = phone.page
    pair(phone, web_bridge)
    start_thread(phone, "count while I may not look")
    model.wait_held(0)
    agent = page.locator(".msg.agent")
    expect(agent).to_have_text("".join(words[:10]).strip())
    devices = json.loads(conftest.run_cli("devices", "list", "--json", state_dir=web_bridge.state_dir, check=True).stdout)
    device = devices[0]["id"]
    conftest.run_cli("devices", "scope", device, "operate,approve", state_dir=web_bridge.state_dir, check=True)
    expect(page.get_by_role("alert").filter(has_text="This device may now: operate, approve")).to_be_visible()
    model.open_gate(0)
    model.wait_held(1)  # ten more words the phone may not see now
    conftest.run_cli("devices", "scope", device, "observe,operate,approve", state_dir=web_bridge.state_dir, check=True)
    expect(page.get_by_role("alert").filter(has_text="This device may now: observe")).to_be_visible()
    try:
        expect(agent).to_have_text("".join(words[:20]).strip())
    except AssertionError:
        raise AssertionError(_difference(agent.inner_text(), "".join(words[:20]))) from None
    model.open_gate(1)
    expect(agent).to_have_text("".join(words).strip())
    assert not phone.errors, phone.errors
