"""P14 (issue 47): what the bridge adds to starting a voice session. The real codex against the scripted model,
its realtime at Tests/integration/realtime_stub.py (the WebRTC call answered by an aiortc peer), all on 127.0.0.1:
the time from a phone's `startVoice {sdp}` to its `voiceStarted` through `codex-bridge serve`, against the time
from codex's own `thread/realtime/start` (webrtc) to its `thread/realtime/sdp` over stdio. Each
run stops the session and waits until codex has left the call before the next; the two alternate.

Usage: voice_bench.py BRIDGE [--runs N] [--out FILE] [--build debug]. Prints one JSON object and, with --out, a
Markdown section for BENCHMARKS.md. Needs aiortc (Scripts/test installs it in .venv-test)."""
import argparse
import asyncio
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "integration"))
from codex_fixture import codex_bin  # noqa: E402
from conftest import Bridge  # noqa: E402
from mock_model import MockModel, chatgpt_login, codex_args, codex_env  # noqa: E402
from realtime_stub import RealtimeStub, make_offer  # noqa: E402
from wsutil import hello, recv, send  # noqa: E402


def voice_codex_args(model, home, stub):
    pathlib.Path(home).mkdir(parents=True, exist_ok=True)
    args = [a.replace("env_key=", "requires_openai_auth=true,env_key=") for a in codex_args(model.port)]
    return args + chatgpt_login(home, model.port) + stub.codex_args()


class StdioCodex:
    """codex app-server over stdio, as the bridge runs it."""

    def __init__(self, args, env, cwd):
        self.proc = subprocess.Popen([codex_bin(), "app-server", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, cwd=cwd, text=True)
        self.messages = []
        self.cond = threading.Condition()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.messages.append(json.loads(line))
                self.cond.notify_all()

    def wait(self, predicate, timeout=30):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for m in self.messages:
                    if predicate(m):
                        self.messages.remove(m)
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("codex did not answer")
                self.cond.wait(left)

    def request(self, method, params, timeout=30):
        self.next_id += 1
        rid = self.next_id
        self.proc.stdin.write(json.dumps({"id": rid, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def close(self):
        self.proc.kill()
        self.proc.wait()


class Direct:
    """Codex alone: `thread/realtime/start` (webrtc) to `thread/realtime/sdp` over stdio."""

    def __init__(self, stub, model, home, workdir):
        self.stub = stub
        self.codex = StdioCodex(voice_codex_args(model, home, stub), codex_env(home), workdir)
        codex = self.codex
        codex.request("initialize", {"clientInfo": {"name": "bench", "version": "0"}, "capabilities": {"experimentalApi": True}})
        codex.proc.stdin.write('{"method":"initialized"}\n')
        codex.proc.stdin.flush()
        self.thread = codex.request("thread/start", {"cwd": workdir})["result"]["thread"]["id"]
        model.queue({"kind": "message", "text": "ok"})
        codex.request("turn/start", {"threadId": self.thread, "input": [{"type": "text", "text": "hi"}]})
        codex.wait(lambda m: m.get("method") == "turn/completed", 60)

    def run(self, offer):
        t0 = time.perf_counter()
        self.codex.request("thread/realtime/start", {"threadId": self.thread, "outputModality": "audio",
                                                     "transport": {"type": "webrtc", "sdp": offer}})
        self.codex.wait(lambda m: m.get("method") == "thread/realtime/sdp")
        elapsed = time.perf_counter() - t0
        self.codex.request("thread/realtime/stop", {"threadId": self.thread})
        self.codex.wait(lambda m: m.get("method") == "thread/realtime/closed")
        self.stub.wait(lambda s: s.open_sockets() == 0, what="codex leaving the call")
        return elapsed


class Through:
    """The bridge: `startVoice {sdp}` to `voiceStarted` over a WebSocket."""

    def __init__(self, stub, model, home, workdir, binary, state):
        self.stub = stub
        args = ["--codex", codex_bin(), "--root", workdir]
        for flag, value in zip(*[iter(voice_codex_args(model, home, stub))] * 2):
            args += ["--codex-config", value]
        self.bridge = Bridge(state, args=args, env=codex_env(home), binary=binary).start()
        self.model = model
        self.workdir = workdir
        self.n = 0

    async def open(self):
        self.ws, _ = await hello(self.bridge)
        # As a phone does before offering voice: the bridge's readiness checks are then behind it.
        await send(self.ws, {"kind": "listVoices", "id": "v"})
        assert (await self.answer("v"))["kind"] == "voices"
        self.model.queue({"kind": "message", "text": "ok"})
        await send(self.ws, {"kind": "startThread", "id": "t", "cwd": self.workdir, "prompt": "hi"})
        while True:
            msg = await recv(self.ws, 60)
            if msg.get("kind") == "threadStarted":
                self.thread = msg["threadId"]
            if msg.get("kind") == "event" and msg["type"] == "turn/completed":
                return

    async def answer(self, rid):
        while True:
            msg = await recv(self.ws, 60)
            if msg.get("id") == rid:
                return msg

    async def run(self, offer):
        self.n += 1
        t0 = time.perf_counter()
        await send(self.ws, {"kind": "startVoice", "id": f"s{self.n}", "threadId": self.thread, "sdp": offer})
        msg = await self.answer(f"s{self.n}")
        elapsed = time.perf_counter() - t0
        assert msg["kind"] == "voiceStarted", msg
        await send(self.ws, {"kind": "stopVoice", "id": f"x{self.n}", "threadId": self.thread})
        await self.answer(f"x{self.n}")
        self.stub.wait(lambda s: s.open_sockets() == 0, what="codex leaving the call")
        return elapsed

    async def close(self):
        await self.ws.close()
        self.bridge.stop()


async def measure(runs, stub, model, scratch, binary):
    """Alternates a run of each (the machine's load drifts alike for both)."""
    workdir = scratch / "work"
    workdir.mkdir()
    direct = Direct(stub, model, scratch / "home-direct", str(workdir))
    through = Through(stub, model, scratch / "home-bridge", str(workdir), binary, scratch / "state")
    try:
        await through.open()
        alone, bridged = [], []
        for _ in range(runs):
            alone.append(direct.run(await make_offer()))
            bridged.append(await through.run(await make_offer()))
        return alone, bridged
    finally:
        direct.codex.close()
        await through.close()


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("bridge")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--out")
    parser.add_argument("--build", default="release")
    opts = parser.parse_args(argv)
    stub = RealtimeStub().start()
    model = MockModel().start()
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="voice-bench-", dir=os.path.expanduser("~")))
    try:
        direct, through = asyncio.run(measure(opts.runs, stub, model, scratch, opts.bridge))
    finally:
        model.stop()
        stub.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    ms = lambda xs: round(statistics.median(xs) * 1000, 1)  # noqa: E731
    p90 = lambda xs: round(sorted(xs)[int(len(xs) * 0.9) - 1] * 1000, 1)  # noqa: E731
    result = {"runs": opts.runs, "direct_ms": ms(direct), "direct_p90_ms": p90(direct), "bridge_ms": ms(through),
              "bridge_p90_ms": p90(through),
              # The median of each pair's difference: the load drifts, but alike for a run and the one right after it.
              "added_ms": ms([b - d for b, d in zip(through, direct)]), "load": os.getloadavg()[0]}
    print(json.dumps(result))
    if opts.out:
        pathlib.Path(opts.out).write_text(
            "## P14: starting a voice session (issue 47)\n\n"
            f"From `startVoice {{sdp}}` to `voiceStarted` through the bridge ({opts.build} build), against codex's own "
            "`thread/realtime/start` (webrtc) to `thread/realtime/sdp` over stdio; the real codex, its realtime at the "
            f"loopback stub (an aiortc answer), {opts.runs} runs each, median (p90):\n\n"
            "| | ms |\n|---|---|\n"
            f"| codex alone | {result['direct_ms']} ({result['direct_p90_ms']}) |\n"
            f"| through the bridge | {result['bridge_ms']} ({result['bridge_p90_ms']}) |\n"
            f"| the bridge adds (median of the pairs' differences) | {result['added_ms']} |\n\n"
            f"Load average at the end: {result['load']:.1f} (on a quiet machine the spread is far smaller).\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
