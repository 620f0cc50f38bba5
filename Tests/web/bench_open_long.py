"""P9 (issue 36): opening a long thread on a phone. Chromium on a 390x844 viewport with the CPU slowed 4x through
the DevTools protocol; the thread: BENCH_P9_TURNS turns (default 250) of 20 items, about 380 characters each (5,000
items, about 2 MB of history), made with the real codex against the scripted model (long_thread.py).

Each run loads the app afresh on the thread list, then opens the thread (the hash a tap on its row sets) and times
until its last message is on screen and the page takes input (a tap on the Message field has focused it). After
the runs: the page's JS heap (after a garbage collection) and its DOM size; then scrolling up until the first turn
is on screen (the time, and whether it got there within BENCH_P9_SCROLL_S seconds).

The same for the app as it was before paging (BENCH_OLD_WEB=DIR: that version's Assets, served from disk) against
the same thread (a second bridge on the same CODEX_HOME, the first one stopped), in the same run, so the gain is a
ratio. Writes JSON to BENCH_OUT (default: stdout)."""
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


def open_thread(page, bridge, thread_id):
    """One cold open: ms until the last message shows and a tap on the composer has focused it."""
    page.goto(base_url(bridge))
    expect(page.get_by_role("status")).to_have_text("Connected", timeout=60_000)
    expect(page.get_by_role("button", name="New thread", exact=True)).to_be_visible(timeout=60_000)
    page.wait_for_timeout(500)  # the list settled
    started = time.perf_counter()
    page.evaluate("id => { location.hash = '#/t/' + encodeURIComponent(id); }", thread_id)
    expect(page.locator(".msg.agent").filter(has_text=LAST)).to_be_in_viewport(timeout=120_000)
    field = page.locator(".composer").get_by_label("Message")
    field.click(timeout=120_000)
    expect(field).to_be_focused(timeout=120_000)
    return (time.perf_counter() - started) * 1000


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


def measure(browser, bridge, thread_id):
    context, page, cdp = bench_phone(browser, bridge)
    times = [open_thread(page, bridge, thread_id) for _ in range(RUNS)]
    cdp.send("HeapProfiler.collectGarbage")
    heap = cdp.send("Runtime.getHeapUsage")["usedSize"]
    nodes = page.evaluate("document.getElementsByTagName('*').length")
    scrolled = scroll_to_first(page)
    after = page.evaluate("document.getElementsByTagName('*').length")
    cdp.send("HeapProfiler.collectGarbage")
    heap_after = cdp.send("Runtime.getHeapUsage")["usedSize"]
    context.close()
    return {"openMs": {"min": min(times), "median": statistics.median(times), "max": max(times), "runs": times},
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
              "madeInS": time.perf_counter() - made}
    result["historyBytes"] = run_async(history_bytes(bridge, thread_id))
    result["now"] = measure(browser, bridge, thread_id)
    old = os.environ.get("BENCH_OLD_WEB")
    if old:
        bridge.stop()
        before = bridge_factory(name="p9-old", args=args, env=dict(env, CODEX_BRIDGE_WEB_DIR=old))
        result["before"] = measure(browser, before, thread_id)
    bench_out(result)
