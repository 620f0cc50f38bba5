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


def load(page, cdp, url):
    """Navigates; returns (ms until the thread list is shown and connected, bytes received, requests)."""
    sizes = {}
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    started = time.perf_counter()
    page.goto(url)
    expect(page.get_by_role("button", name="New thread", exact=True)).to_be_visible(timeout=60_000)
    expect(page.get_by_role("status")).to_have_text("Connected", timeout=60_000)
    elapsed = (time.perf_counter() - started) * 1000
    page.wait_for_timeout(300)  # late finishes (icons, the manifest)
    return elapsed, sum(sizes.values()), len(sizes)


def measure(browser, bridge):
    context, page, cdp = bench_phone(browser, bridge)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", LINK)
    first, again = [], []
    for _ in range(RUNS):
        cdp.send("Network.clearBrowserCache")
        first.append(load(page, cdp, base_url(bridge)))
        again.append(load(page, cdp, base_url(bridge)))
    context.close()
    summary = lambda xs: {"min": min(xs), "median": statistics.median(xs), "max": max(xs)}  # noqa: E731
    return {
        "first": {"ms": summary([r[0] for r in first]), "bytes": summary([r[1] for r in first]),
                  "requests": summary([r[2] for r in first])},
        "repeat": {"ms": summary([r[0] for r in again]), "bytes": summary([r[1] for r in again]),
                   "requests": summary([r[2] for r in again])},
    }


def test_p10_first_load(bridge_factory, model, codex_home, workspace, browser):
    env = bridge_env(codex_home)
    env.pop("CODEX_BRIDGE_WEB_DIR", None)  # the binary's embedded files
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)]
    result = {"runs": RUNS, "link": LINK, "cpuSlowdown": 4, "now": measure(browser, bridge_factory(name="p10", args=args, env=env))}
    old = os.environ.get("BENCH_OLD_WEB")
    if old:
        env_old = dict(env, CODEX_BRIDGE_WEB_DIR=old)
        result["before"] = measure(browser, bridge_factory(name="p10-old", args=args, env=env_old))
    bench_out(result)
