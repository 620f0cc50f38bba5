"""P12 (issue 33): the fleet. One home bridge A with linked bridges (each a real `codex-bridge serve` running the
bench's fake codex), all on 127.0.0.1, in one run:

- the latency a phone sees for a linked machine's events through A against a phone connected to that machine
  directly, in the same run (paced deltas stamped with CLOCK_MONOTONIC by the fake codex), p50 and p99;
- relay throughput: a flood of deltas, events per second through A against direct;
- A's memory (VmRSS) per linked machine with 32 machines linked and 10 phones connected, and per relayed idle
  thread.

Usage: fleet_bench.py BRIDGE BENCH_TOOL [--quick] [--out FILE]. Prints one JSON object and, with --out, a
Markdown section for BENCHMARKS.md."""
import argparse
import asyncio
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "integration"))
from conftest import Bridge  # noqa: E402
from wsutil import hello, recv, send  # noqa: E402


def rss_kib(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cli(binary, *args, state_dir):
    out = subprocess.run([binary, *args, "--state-dir", str(state_dir)], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        raise RuntimeError(f"{args}: {out.stderr}")
    return out.stdout


def serve(binary, bench, base, name):
    state = base / name
    ws = base / f"{name}-ws"
    ws.mkdir(parents=True, exist_ok=True)
    return Bridge(state, binary=binary, args=["--codex", bench, "--root", str(ws), "--log-level", "warning",
                                              "--max-unauthenticated-per-address", "20000"]).start(timeout=60), ws


def link(binary, home, other):
    url = json.loads(cli(binary, "pair", "--json", "--advertise", "127.0.0.1", state_dir=other.state_dir))["url"]
    return json.loads(cli(binary, "machines", "add", url, "--json", state_dir=home.state_dir))["id"]


async def wait_online(home, ids, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ws, ack = await hello(home, extra={"fleet": True})
        await ws.close()
        states = {m["id"]: m["state"] for m in ack["machines"]}
        if all(states.get(i) == "online" for i in ids):
            return
        await asyncio.sleep(0.2)
    raise RuntimeError("linked machines did not come online")


async def request(ws, kind, **fields):
    rid = f"r{time.monotonic_ns()}"
    await send(ws, {"kind": kind, "id": rid, **fields})
    while True:
        msg = await recv(ws, 60)
        if msg.get("id") == rid:
            return msg


async def collect(ws, thread_id, until_type="turn/completed"):
    """(receive ns, frame) of every delta of `thread_id` until its turn completes."""
    got = []
    while True:
        msg = json.loads(await ws.recv())
        now = time.monotonic_ns()
        if msg.get("kind") == "event" and msg.get("threadId") == thread_id:
            if msg["type"] == "item/agentMessage/delta":
                got.append((now, msg))
            elif msg["type"] == until_type:
                return got


async def count_flood(ws, thread_id):
    """(first, last) receive ns of the deltas of `thread_id` until its turn completes, and how many: the flood is
    counted without parsing each frame (the client must keep up with the bridge)."""
    first = last = None
    n = 0
    tag = json.dumps(thread_id)
    while True:
        text = await ws.recv()
        if tag not in text:
            continue
        now = time.monotonic_ns()
        if '"item/agentMessage/delta"' in text:
            first = first or now
            last = now
            n += 1
        elif '"turn/completed"' in text:
            return first, last, n


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def latency_and_throughput(binary, bench, base, quick):
    a, _ = serve(binary, bench, base, "home")
    b, b_ws = serve(binary, bench, base, "linked")
    try:
        b_id = link(binary, a, b)
        await wait_online(a, [b_id])
        direct, _ = await hello(b)
        via, _ = await hello(a, extra={"fleet": True})
        for ws in (direct, via):
            assert (await request(ws, "subscribe", threadId="*"))["kind"] == "subscribed"
        results = {}
        count = 300 if quick else 2000
        started = await request(direct, "startThread", cwd=str(b_ws), prompt=f"paced {count} 1000")
        tid = started["threadId"]
        d, v = await asyncio.gather(collect(direct, tid), collect(via, tid))
        lat_d = [(now - msg["data"]["ts"]) / 1e6 for now, msg in d]
        lat_v = [(now - msg["data"]["ts"]) / 1e6 for now, msg in v]
        results["latency"] = {
            "events": len(lat_v), "direct_p50_ms": pct(lat_d, 50), "direct_p99_ms": pct(lat_d, 99),
            "via_home_p50_ms": pct(lat_v, 50), "via_home_p99_ms": pct(lat_v, 99),
            "added_p50_ms": pct(lat_v, 50) - pct(lat_d, 50), "added_p99_ms": pct(lat_v, 99) - pct(lat_d, 99),
        }
        flood = 5000 if quick else 20000
        runs = []
        for _ in range(1 if quick else 3):
            sent = await request(direct, "sendMessage", threadId=tid, text=f"flood {flood}")
            assert sent["kind"] == "accepted", sent
            d, v = await asyncio.gather(count_flood(direct, tid), count_flood(via, tid))
            rate = lambda got: got[2] / max(1e-9, (got[1] - got[0]) / 1e9)  # noqa: E731
            runs.append((rate(d), rate(v), v[2]))
        results["throughput"] = {
            "events": flood, "direct_per_s": statistics.median(r[0] for r in runs),
            "via_home_per_s": statistics.median(r[1] for r in runs),
            "ratio": statistics.median(r[1] / r[0] for r in runs), "delivered_via_home": min(r[2] for r in runs),
        }
        return results
    finally:
        a.stop()
        b.stop()


async def memory(binary, bench, base, quick):
    machines = 8 if quick else 32
    threads_each = 2 if quick else 10
    a, _ = serve(binary, bench, base, "scale-home")
    others = []
    try:
        phones = []
        for _ in range(10):
            ws, _ = await hello(a, extra={"fleet": True})
            await request(ws, "subscribe", threadId="*")
            phones.append(ws)
        await asyncio.sleep(1)
        before = rss_kib(a.proc.pid)
        ids = []
        for i in range(machines):
            bridge, ws_dir = serve(binary, bench, base, f"m{i}")
            others.append((bridge, ws_dir))
            ids.append(link(binary, a, bridge))
        await wait_online(a, ids, timeout=120)
        await asyncio.sleep(2)
        linked = rss_kib(a.proc.pid)
        for bridge, ws_dir in others:
            client, _ = await hello(bridge)
            for _ in range(threads_each):
                await request(client, "startThread", cwd=str(ws_dir), prompt="one")
            await client.close()
        await asyncio.sleep(3)
        with_threads = rss_kib(a.proc.pid)
        for ws in phones:
            await ws.close()
        return {
            "machines": machines, "phones": 10, "threads": machines * threads_each,
            "rss_before_kib": before, "rss_linked_kib": linked, "rss_threads_kib": with_threads,
            "per_machine_kib": (linked - before) / machines,
            "per_idle_thread_kib": (with_threads - linked) / (machines * threads_each),
        }
    finally:
        a.stop()
        for bridge, _ in others:
            bridge.stop()


def markdown(result, build):
    lat, thr, mem = result["latency"], result["throughput"], result["memory"]
    return "\n".join([
        "## P12: the fleet (a home bridge relaying linked machines)",
        "",
        f"One run, `Benchmarks/fleet_bench.py`, {build} build, every bridge with the bench's fake codex, all on 127.0.0.1.",
        "",
        "| figure | direct to the machine | through the home bridge | target |",
        "|---|---|---|---|",
        f"| event latency p50 ({lat['events']} paced deltas) | {lat['direct_p50_ms']:.2f} ms | {lat['via_home_p50_ms']:.2f} ms "
        f"(+{lat['added_p50_ms']:.2f}) | ≤ +1 ms |",
        f"| event latency p99 | {lat['direct_p99_ms']:.2f} ms | {lat['via_home_p99_ms']:.2f} ms (+{lat['added_p99_ms']:.2f}) | ≤ +3 ms |",
        f"| relay throughput ({thr['events']} deltas, median of runs) | {thr['direct_per_s']:.0f} events/s | "
        f"{thr['via_home_per_s']:.0f} events/s ({thr['ratio'] * 100:.0f} %) | ≥ 50 % |",
        "",
        f"Memory of the home bridge (VmRSS) with {mem['phones']} fleet phones connected: "
        f"{mem['per_machine_kib']:.0f} KiB per linked machine ({mem['machines']} linked), "
        f"{mem['per_idle_thread_kib']:.1f} KiB per relayed idle thread ({mem['threads']} threads).",
        "",
    ])


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bridge")
    parser.add_argument("bench")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    parser.add_argument("--build", default="release")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
        base = pathlib.Path(tmp)
        result = await latency_and_throughput(args.bridge, args.bench, base, args.quick)
        result["memory"] = await memory(args.bridge, args.bench, base, args.quick)
    print(json.dumps(result, indent=1))
    if args.out:
        pathlib.Path(args.out).write_text(markdown(result, args.build))


if __name__ == "__main__":
    asyncio.run(main())
