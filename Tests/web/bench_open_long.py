"""P9 (issue 36): opening a long thread on a phone. Chromium on a 390x844 viewport with the CPU slowed 4x through
the DevTools protocol; the thread: BENCH_P9_TURNS turns (default 250) of 20 items, about 380 characters each (5,000
items, about 2 MB of history), made with the real codex against the scripted model (long_thread.py).

Each run loads the app afresh on the thread list, then opens the thread (the hash a tap on its row sets) and times
until its last message is on screen and the page takes input (a tap on the Message field has focused it). After
the runs: the page's JS heap (after a garbage collection) and its DOM size; then scrolling up until the first turn
is on screen (the time, and whether it got there within BENCH_P9_SCROLL_S seconds; 0 skips it).

The same for an older app (BENCH_OLD_WEB=DIR: that version's Assets, served from disk) against the same thread, in
the same run, so the gain is a ratio. BENCH_NOW_WEB=DIR serves "now" from that directory instead of the binary's
embedded files. Writes JSON to BENCH_OUT (default: stdout), with the machine's load average at the start and end."""
import json
import os
import statistics
import time

import pytest
from playwright.sync_api import expect

from codex_fixture import bridge_codex_args, codex_bin
from long_thread import make_long_thread
from test_codex import request
from wsutil import hello
from webutil import base_url, bench_out, bench_phone, bridge_env, run_async

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
TURNS = int(os.environ.get("BENCH_P9_TURNS", "250"))
ITEMS, CHARS = 20, 380
SCROLL_S = float(os.environ.get("BENCH_P9_SCROLL_S", "180"))
LAST = f"Answer {TURNS - 1}.{ITEMS - 2}:"


# Timestamps taken in the page (performance.now()), so the figure is not the harness's: every frame the app sends
# or receives on its WebSocket (recorded before the app handles it), and when the composer got the focus.
PAGE_CLOCK = """
(() => {
  const Socket = window.WebSocket;
  window.__frames = [];
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => window.__frames.push(['in', performance.now(), String(e.data).slice(0, 200)]));
    }
    send(data) { window.__frames.push(['out', performance.now(), String(data).slice(0, 200)]); super.send(data); }
  };
  addEventListener('focusin', () => { window.__focusAt = performance.now(); }, true);
  // When the tap reached the browser (the event's time stamp) and when the page could handle it.
  addEventListener('touchstart', (e) => { window.__tapAt = [e.timeStamp, performance.now()]; }, { capture: true, passive: true });
})();
"""

# Resolves, in the page, once the first frame where the thread's last message is on screen has been drawn: when,
# and where the composer's Message field is (to tap it at once).
SHOWN = """last => new Promise((resolve) => {
  const check = () => {
    const m = [...document.querySelectorAll('.msg.agent')].find((e) => e.textContent.includes(last));
    const r = m && m.getBoundingClientRect();
    const field = document.querySelector('.composer textarea, .composer [aria-label=Message]');
    const f = field && field.getBoundingClientRect();
    if (r && r.bottom > 0 && r.top < innerHeight && r.height > 0 && f && f.height > 0) {
      // After this frame is painted: a task posted from its animation frame runs once the frame is done.
      const after = new MessageChannel();
      after.port1.onmessage = () => resolve({ at: performance.now(), x: f.left + f.width / 2, y: f.top + f.height / 2 });
      after.port2.postMessage(0);
    } else requestAnimationFrame(check);
  };
  check();
})"""


def open_thread(page, bridge, thread_id):
    """One cold open, split: {ms: until the last message shows and a tap on the composer has focused it, the parts}.

    Timed in the page: from setting the hash (what a tap on the thread's row does) to the frame that shows the
    last message (`shownMs`) and to the composer's focus after a tap sent at that moment (`ms`); between them, the
    readThread request leaving (`requestMs`) and its answer arriving (`answerMs`), the tap reaching the browser
    (`tapMs`) and the page handling it (`tapHandledMs`). `wallMs`: the same open as the
    harness sees it, round trips to the browser included. (Until 2026-12-01 the figure was the harness's clock,
    with Playwright's polling of the message and its click's actionability checks: about 0.5 s of the 1.5 s.)"""
    page.goto(base_url(bridge))
    expect(page.get_by_role("status")).to_have_text("Connected", timeout=60_000)
    expect(page.get_by_role("button", name="New thread", exact=True)).to_be_visible(timeout=60_000)
    page.wait_for_timeout(500)  # the list settled
    started = time.perf_counter()
    t0 = page.evaluate("id => { window.__frames.length = 0; window.__focusAt = 0; const t0 = performance.now();"
                       " location.hash = '#/t/' + encodeURIComponent(id); return t0; }", thread_id)
    shown = page.evaluate(SHOWN, LAST)
    # A tap where the field is, at once: the page takes it when its main thread is free (no actionability
    # checks of Playwright's own in the figure).
    page.touchscreen.tap(shown["x"], shown["y"])
    field = page.locator(".composer").get_by_label("Message")
    expect(field).to_be_focused(timeout=120_000)
    wall = (time.perf_counter() - started) * 1000
    frames = page.evaluate("window.__frames")
    focus = page.evaluate("window.__focusAt")
    tap = page.evaluate("window.__tapAt")
    sent = next((f for f in frames if f[0] == "out" and '"readThread"' in f[2]), None)
    rid = json.loads(sent[2])["id"] if sent else None
    answered = next((f for f in frames if f[0] == "in" and f'"id":"{rid}"' in f[2]), None)
    return {"ms": focus - t0, "shownMs": shown["at"] - t0, "wallMs": wall,
            "requestMs": (sent[1] - t0) if sent else None, "answerMs": (answered[1] - t0) if answered else None,
            "tapMs": tap[0] - t0, "tapHandledMs": tap[1] - t0}


def scroll_to_first(page):
    """Seconds of scrolling up until the first turn's message is on screen; None if not within SCROLL_S."""
    first = page.locator(".msg.user").filter(has_text="Question 0").first
    started = time.perf_counter()
    while time.perf_counter() - started < SCROLL_S:
        if first.count() and first.is_visible() and first.evaluate("e => e.getBoundingClientRect().bottom > 0"):
            return time.perf_counter() - started
        page.mouse.wheel(0, -8000)
        page.wait_for_timeout(200)
    return None


async def history_bytes(bridge, thread_id):
    """The size of the whole thread as readThread without `turns` answers it (what the app before paging read)."""
    ws, _ = await hello(bridge)
    answer = await request(ws, "readThread", threadId=thread_id, timeout=120)
    await ws.close()
    assert sum(len(t["items"]) for t in answer["thread"]["turns"]) == TURNS * ITEMS
    return len(json.dumps(answer))


def summary(xs):
    xs = [x for x in xs if x is not None]
    return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)} if xs else None


def measure(browser, bridge, thread_id):
    context, page, cdp = bench_phone(browser, bridge)
    context.add_init_script(PAGE_CLOCK)
    opens = [open_thread(page, bridge, thread_id) for _ in range(RUNS)]
    cdp.send("HeapProfiler.collectGarbage")
    heap = cdp.send("Runtime.getHeapUsage")["usedSize"]
    nodes = page.evaluate("document.getElementsByTagName('*').length")
    scrolled = scroll_to_first(page) if SCROLL_S > 0 else None
    after = page.evaluate("document.getElementsByTagName('*').length")
    cdp.send("HeapProfiler.collectGarbage")
    heap_after = cdp.send("Runtime.getHeapUsage")["usedSize"]
    context.close()
    times = [o["ms"] for o in opens]
    parts = {key: summary([o[key] for o in opens]) for key in ("requestMs", "answerMs", "shownMs", "tapMs", "tapHandledMs", "wallMs")}
    return {"openMs": {**summary(times), "runs": times}, "parts": parts, "opens": opens,
            "heapMB": heap / 1e6, "domNodes": nodes, "scrollToFirstS": scrolled, "domNodesAtFirst": after,
            "heapMBAtFirst": heap_after / 1e6}


@pytest.mark.timeout(3600)
def test_p9_open_a_long_thread(bridge_factory, model, codex_home, workspace, browser):
    env = bridge_env(codex_home)
    env.pop("CODEX_BRIDGE_WEB_DIR", None)  # the binary's embedded files
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)]
    bridge = bridge_factory(name="p9", args=args, env=env)
    made = time.perf_counter()
    thread_id = run_async(make_long_thread(bridge, model, workspace, TURNS, items=ITEMS, chars=CHARS), timeout=3600)
    result = {"runs": RUNS, "cpuSlowdown": 4, "turns": TURNS, "items": TURNS * ITEMS,
              "madeInS": time.perf_counter() - made, "loadAverage": [os.getloadavg()[0]]}
    result["historyBytes"] = run_async(history_bytes(bridge, thread_id))
    # Each app on a bridge (and a Codex) of its own, started after the thread was made, as when a phone opens a
    # thread that was idle: the thread is not in that Codex's memory until the first open reads it.
    bridge.stop()
    if os.environ.get("BENCH_NOW_WEB"):  # or a directory's (trying a change of the app without a rebuild)
        env["CODEX_BRIDGE_WEB_DIR"] = os.environ["BENCH_NOW_WEB"]
    now = bridge_factory(name="p9-now", args=args, env=env)
    result["now"] = measure(browser, now, thread_id)
    old = os.environ.get("BENCH_OLD_WEB")
    if old:
        now.stop()
        before = bridge_factory(name="p9-old", args=args, env=dict(env, CODEX_BRIDGE_WEB_DIR=old))
        result["before"] = measure(browser, before, thread_id)
    result["loadAverage"].append(os.getloadavg()[0])
    bench_out(result)
