"""Formats bench_first_load.py's JSON as BENCHMARKS.md's P10 section (`bench_report.py FILE BASE`),
bench_open_long.py's as the P9 section (`bench_report.py --p9 FILE BASE`), or test_lan_web.py's printed "LAN: …"
lines from stdin as the P11 section (`bench_report.py --p11`)."""
import json
import re
import statistics
import sys

if sys.argv[1:] == ["--p11"]:
    runs = [[float(x) for x in re.findall(r"([0-9.]+) s after", line)] for line in sys.stdin if line.startswith("LAN:")]
    runs = [r for r in runs if len(r) == 3]
    print("""
## P11: back after a link drop

A phone's Chromium in a network namespace of its own, the bridge in another, a turn streaming: the phone's
link is down for 4 s. Seconds from the link's return until the page is Connected with every event of the
outage shown once (Tests/web/test_lan_web.py). Target: ≤ 3 s.
""")
    if not runs:
        print("No run completed (the LAN test failed or needs root).")
        sys.exit(0)
    print("| case | min / median / max |\n|---|---|")
    for k, name in enumerate(("the socket survives the drop", "the workstation forgot the connection",
                              "the phone slept through it (from being shown)")):
        xs = [r[k] for r in runs]
        print(f"| {name} | {min(xs):.1f} / {statistics.median(xs):.1f} / {max(xs):.1f} s |")
    print(f"\n{len(runs)} runs.")
    sys.exit(0)

if sys.argv[1:2] == ["--p9"]:
    data = json.load(open(sys.argv[2]))
    base = sys.argv[3]

    def parts(name, f):
        p = f.get("parts")
        if not p:
            return ""
        med = lambda key: f"{p[key]['median']:,.0f}" if p.get(key) else "–"  # noqa: E731
        return (f"\n{name}, medians: readThread sent at {med('requestMs')} ms, its answer in at {med('answerMs')} ms, the last "
                f"message shown at {med('shownMs')} ms, the composer focused at {f['openMs']['median']:,.0f} ms "
                f"(the harness's own clock, its round trips to the browser included: {med('wallMs')} ms).")

    def p9_row(name, f):
        o = f["openMs"]
        first = "no" if f["scrollToFirstS"] is None else f"yes, {f['scrollToFirstS']:.0f} s"
        return (f"| {name} | {o['min']:,.0f} / {o['median']:,.0f} / {o['max']:,.0f} ms | {f['heapMB']:.1f} MB | "
                f"{f['domNodes']:,} | {first} | {f['domNodesAtFirst']:,} / {f['heapMBAtFirst']:.1f} MB |")
    print(f"""
## P9: opening a long thread

Chromium on a 390x844 phone viewport, CPU slowed {data['cpuSlowdown']}x through the DevTools protocol; a thread of
{data['turns']} turns, {data['items']:,} items ({data['historyBytes'] / 1e6:.1f} MB as readThread sends it whole), made with
the real codex against the scripted model (Tests/web/bench_open_long.py). The app loaded afresh on the thread list,
then the thread opened: the time until its last message is on screen and a tap on the composer has focused it,
timed in the page ({data['runs']} runs, min / median / max); the page's JS heap after a garbage collection and its elements; then
scrolling up to the first turn. Target: open ≤ 1 s, heap ≤ 50 MB, the first turn reachable.

| app | open | JS heap | elements | first turn reached | elements / heap there |
|---|---|---|---|---|---|
{p9_row("now (paged)", data["now"])}""")
    if "before" in data:
        print(p9_row(f"before ({base}, whole thread)", data["before"]))
        ratio = data["now"]["openMs"]["median"] / data["before"]["openMs"]["median"]
        print(f"\nRatio of the medians, now / before: open {ratio:.2f}x, heap {data['now']['heapMB'] / data['before']['heapMB']:.2f}x.")
    print(parts("Now", data["now"]))
    if "before" in data:
        print(parts("Before", data["before"]))
    if "loadAverage" in data:
        print(f"\nThe machine's load average (1 min) at the start and the end of the run: {data['loadAverage'][0]:.1f}, {data['loadAverage'][1]:.1f}.")
    sys.exit(0)

data = json.load(open(sys.argv[1]))
base = sys.argv[2]
link = data["link"]


def row(name, figures):
    def cell(kind, unit, scale=1):
        f = figures.get(kind)
        if not f:
            return "–"
        return " / ".join(f"{f[m] / scale:,.0f}" for m in ("min", "median", "max")) + f" {unit}"
    return (f"| {name} | {cell('ms', 'ms')} | {cell('shownMs', 'ms')} | {cell('connectedMs', 'ms')} | "
            f"{cell('documentMs', 'ms')} | {cell('bytes', 'KB', 1000)} | {cell('requests', '')} |")


print(f"""
## P10: first load over a weak link

Chromium on a 390x844 phone viewport, CPU slowed {data['cpuSlowdown']}x and the link throttled through the DevTools protocol
({link['latency']} ms added per request, {link['downloadThroughput'] * 8 / 1e6:.1f} Mbit/s down, {link['uploadThroughput'] * 8 / 1e3:.0f} kbit/s up);
paired first, then, timed in the page from the navigation's start: until the live thread list is shown and
connected (listThreads answered; "live list", the figure), until a list is first shown (the one last seen, kept
on the phone, or the live one), until the status says Connected, until the document has arrived; and the bytes
received. "first": the browser's cache emptied; "repeat": kept. No service worker (a phone on LAN http has
none). {data['runs']} runs each, min / median / max. Target: first ≤ 2 s, repeat ≤ 0.5 s with no asset downloaded.

| load | live list | a list shown | connected | document | received | requests |
|---|---|---|---|---|---|---|
{row("first (now)", data["now"]["first"])}
{row("repeat (now)", data["now"]["repeat"])}""")
if "before" in data:
    print(row(f"first (before, {base})", data["before"]["first"]))
    print(row(f"repeat (before, {base})", data["before"]["repeat"]))
    now, before = data["now"], data["before"]
    print(f"""
Ratios of the medians, now / before: first load {now['first']['ms']['median'] / before['first']['ms']['median']:.2f}x,
repeat visit {now['repeat']['ms']['median'] / before['repeat']['ms']['median']:.2f}x
(received {now['repeat']['bytes']['median'] / max(before['repeat']['bytes']['median'], 1):.2f}x).""")
if "loadAverage" in data:
    print(f"\nThe machine's load average (1 min) at the start and the end of the run: {data['loadAverage'][0]:.1f}, {data['loadAverage'][1]:.1f}.")
