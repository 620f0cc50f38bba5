"""P13 (issue 35): the preview proxy against a direct connection to the same dev server, in one run: a 10 MB
response's throughput (median of runs) and a small response's latency (p50, p99 of sequential requests on one
kept-alive connection). A real `codex-bridge serve` with the bench's fake codex, a threaded Python dev server in the
thread's directory, all on 127.0.0.1.

Usage: preview_bench.py BRIDGE BENCH_TOOL [--quick] [--out FILE] [--build release]. Prints one JSON object and, with
--out, a Markdown section for BENCHMARKS.md."""
import argparse
import asyncio
import http.client
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "integration"))
from conftest import Bridge  # noqa: E402
from wsutil import hello, recv, send  # noqa: E402

DEV_SERVER = r'''
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
BIG = b"x" * (10 * 1000 * 1000)
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def setup(self):
        super().setup()
        # Headers and body go out as separate writes: without this, Nagle and delayed ACKs add 40 ms to each answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def do_GET(self):
        body = BIG if self.path == "/big" else b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
'''


async def request(ws, kind, **fields):
    await send(ws, {"kind": kind, "id": kind, **fields})
    while True:
        msg = await recv(ws, 30)
        if msg.get("id") == kind:
            return msg


def fetch(conn, path, headers):
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    body = response.read()
    assert response.status == 200, (response.status, body[:200])
    return len(body)


def throughput(port, headers, runs):
    speeds = []
    for _ in range(runs):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        started = time.perf_counter()
        size = fetch(conn, "/big", headers)
        speeds.append(size / (time.perf_counter() - started) / 1e6)
        conn.close()
    return statistics.median(speeds)


def latency(port, headers, count):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    fetch(conn, "/small", headers)  # the connection is open
    times = []
    for _ in range(count):
        started = time.perf_counter()
        fetch(conn, "/small", headers)
        times.append((time.perf_counter() - started) * 1000)
    conn.close()
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.99) - 1]


async def run(bridge_bin, bench, base, quick):
    workspace = base / "ws"
    workspace.mkdir()
    bridge = Bridge(base / "state", binary=bridge_bin, args=["--codex", bench, "--root", str(workspace), "--log-level", "warning"])
    bridge.start(timeout=60)
    dev = subprocess.Popen([sys.executable, "-c", DEV_SERVER], cwd=workspace, stdout=subprocess.PIPE, text=True)
    try:
        dev_port = int(dev.stdout.readline())
        ws, _ = await hello(bridge)
        thread = (await request(ws, "startThread", cwd=str(workspace), prompt="one"))["threadId"]
        opened = await request(ws, "openPreview", threadId=thread, port=dev_port)
        url = urllib.parse.urlsplit(opened["url"])
        conn = http.client.HTTPConnection("127.0.0.1", url.port, timeout=10)
        conn.request("GET", f"{url.path}?{url.query}")
        answer = conn.getresponse()
        answer.read()
        cookie = {"Cookie": answer.getheader("Set-Cookie").split(";")[0]}
        # The preview port exchanged the ticket; the preview is served on its own origin, where it redirects.
        origin = urllib.parse.urlsplit(answer.getheader("Location")).port
        conn.close()
        await ws.close()
        runs, count = (3, 100) if quick else (9, 1000)
        direct_mb, proxied_mb = throughput(dev_port, {}, runs), throughput(origin, cookie, runs)
        direct_lat, proxied_lat = latency(dev_port, {}, count), latency(origin, cookie, count)
        return {
            "throughput": {"bytes": 10_000_000, "runs": runs, "direct_mb_s": direct_mb, "proxied_mb_s": proxied_mb,
                           "ratio": proxied_mb / direct_mb},
            "latency": {"requests": count, "direct_p50_ms": direct_lat[0], "proxied_p50_ms": proxied_lat[0],
                        "added_p50_ms": proxied_lat[0] - direct_lat[0], "direct_p99_ms": direct_lat[1],
                        "proxied_p99_ms": proxied_lat[1]},
        }
    finally:
        dev.kill()
        dev.wait()
        bridge.stop()


def markdown(result, build):
    thr, lat = result["throughput"], result["latency"]
    return "\n".join([
        "## P13: the preview proxy (a thread's dev server on the preview origin)",
        "",
        f"One run, `Benchmarks/preview_bench.py`, {build} build, the bench's fake codex, a threaded Python dev server, "
        "all on 127.0.0.1.",
        "",
        "| figure | direct to the dev server | through the preview origin | target |",
        "|---|---|---|---|",
        f"| 10 MB response (median of {thr['runs']}) | {thr['direct_mb_s']:.0f} MB/s | {thr['proxied_mb_s']:.0f} MB/s "
        f"({thr['ratio'] * 100:.0f} %) | ≥ 50 % |",
        f"| small response p50 ({lat['requests']} on one connection) | {lat['direct_p50_ms']:.2f} ms | "
        f"{lat['proxied_p50_ms']:.2f} ms (+{lat['added_p50_ms']:.2f}) | ≤ +1 ms |",
        f"| small response p99 | {lat['direct_p99_ms']:.2f} ms | {lat['proxied_p99_ms']:.2f} ms | |",
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
    with tempfile.TemporaryDirectory(prefix="preview-bench-") as tmp:
        result = await run(args.bridge, args.bench, pathlib.Path(tmp), args.quick)
    print(json.dumps(result, indent=1))
    if args.out:
        pathlib.Path(args.out).write_text(markdown(result, args.build))


if __name__ == "__main__":
    asyncio.run(main())
