"""P10 (issue 36): the first load of the paired app over a weak mobile link, as a phone feels it.

Chromium on a phone viewport, the link throttled through the DevTools protocol (150 ms round trip, 1.6 Mbit/s
down, 750 kbit/s up) and the CPU slowed 4x. The phone is paired first (unthrottled); then, with the browser's
cache emptied, the time from navigation to the thread list shown and connected, and the bytes that crossed
the link; then the same for a repeat visit (cache kept). No service worker (a phone on LAN http has none): the
HTTP cache alone. Each figure is run RUNS times: min / median / max.

The same figures for the app as it was before the versioned, preloaded shell (BENCH_OLD_WEB=DIR: a directory
with that version's Assets, served from disk, exactly as it served its embedded copy: no-cache and entity tags),
in the same run, so the gain is a ratio. Writes JSON to BENCH_OUT (default: stdout)."""
import os
import statistics
import time

import pytest
from playwright.sync_api import expect

from webutil import base_url, bench_out, bench_phone, bridge_env
from codex_fixture import bridge_codex_args, codex_bin

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
LINK = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8}


# Taken in the page from the navigation's start (performance.now() counts from it), at animation frames: when the
# status first says Connected with the thread list's "New thread" button shown (what the figure was until
# 2026-12-01, then taken by Playwright's polling), when a list is first shown (a row or the empty list's note: the
# list as last seen, or the live one), when the live list is shown and connected (listThreads answered: the
# figure), and every WebSocket frame (sent, received).
PAGE_CLOCK = """
(() => {
  const Socket = window.WebSocket;
  const frames = window.__frames = [];
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      frames.push(['open', performance.now(), '']);
      this.addEventListener('open', () => frames.push(['opened', performance.now(), '']));
      this.addEventListener('message', (e) => frames.push(['in', performance.now(), String(e.data).slice(0, 60)]));
    }
    send(data) { frames.push(['out', performance.now(), String(data).slice(0, 60)]); super.send(data); }
  };
  const check = () => {
    const connected = [...document.querySelectorAll('[role=status]')].some((e) => e.textContent.trim() === 'Connected');
    const button = [...document.querySelectorAll('button')].some((b) => b.textContent.trim() === 'New thread' && b.offsetParent);
    if (connected && button && !window.__connectedAt) window.__connectedAt = performance.now();
    const list = document.querySelector('.thread-row') || document.querySelector('.empty-state:not([hidden])');
    if (list && !window.__shownAt) window.__shownAt = performance.now();
    const refreshing = document.querySelector('.list-refreshing:not([hidden])');
    if (window.__connectedAt && list && !refreshing) { window.__listAt = performance.now(); return; }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();
"""


def load(page, cdp, url):
    """Navigates; returns ({ms: until the live list is shown, connected; shownMs, connectedMs, documentMs,
    domContentLoadedMs: the page's clock; wallMs: as Playwright saw the first two; the first frames' times},
    bytes received, requests)."""
    sizes = {}
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    started = time.perf_counter()
    page.goto(url)
    expect(page.get_by_role("button", name="New thread", exact=True)).to_be_visible(timeout=60_000)
    expect(page.get_by_role("status")).to_have_text("Connected", timeout=60_000)
    elapsed = (time.perf_counter() - started) * 1000
    page.wait_for_function("() => window.__listAt", timeout=60_000)
    clock = page.evaluate("({list: window.__listAt, shown: window.__shownAt, connected: window.__connectedAt, frames: window.__frames,"
                          " document: performance.getEntriesByType('navigation')[0].responseEnd,"
                          " domContentLoaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd})")
    page.wait_for_timeout(300)  # late finishes (icons, the manifest)
    times = {"ms": clock["list"], "shownMs": clock["shown"], "connectedMs": clock["connected"], "wallMs": elapsed, "documentMs": clock["document"],
             "domContentLoadedMs": clock["domContentLoaded"], "frames": [f[:2] + [f[2][:40]] for f in clock["frames"]][:8]}
    return times, sum(sizes.values()), len(sizes)


def summary(xs):
    return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)}


def figures(runs):
    """min/median/max of each figure over the runs, and the runs' page clocks."""
    times = {key: summary([r[0][key] for r in runs]) for key in ("ms", "shownMs", "connectedMs", "wallMs", "documentMs", "domContentLoadedMs")}
    return {**times, "bytes": summary([r[1] for r in runs]), "requests": summary([r[2] for r in runs]),
            "clocks": [r[0] for r in runs]}


def measure(browser, bridge):
    context, page, cdp = bench_phone(browser, bridge)
    context.add_init_script(PAGE_CLOCK)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", LINK)
    first, again = [], []
    for _ in range(RUNS):
        cdp.send("Network.clearBrowserCache")
        first.append(load(page, cdp, base_url(bridge)))
        again.append(load(page, cdp, base_url(bridge)))
    context.close()
    return {"first": figures(first), "repeat": figures(again)}


def test_p10_first_load(bridge_factory, model, codex_home, workspace, browser):
    env = bridge_env(codex_home)
    env.pop("CODEX_BRIDGE_WEB_DIR", None)  # the binary's embedded files
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)]
    load = [os.getloadavg()[0]]
    result = {"runs": RUNS, "link": LINK, "cpuSlowdown": 4, "loadAverage": load,
              "now": measure(browser, bridge_factory(name="p10", args=args, env=env))}
    old = os.environ.get("BENCH_OLD_WEB")
    if old:
        env_old = dict(env, CODEX_BRIDGE_WEB_DIR=old)
        result["before"] = measure(browser, bridge_factory(name="p10-old", args=args, env=env_old))
    load.append(os.getloadavg()[0])
    bench_out(result)
