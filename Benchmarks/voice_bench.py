"""P14 (issue 47): what the bridge adds to voice. The real codex against the scripted model, its realtime at
Tests/integration/realtime_stub.py, all on 127.0.0.1.

- Starting a session: the time from a phone's `startVoice {sdp}` to its `voiceStarted` through `codex-bridge
  serve`, against the time from codex's own `thread/realtime/start` (webrtc) to its `thread/realtime/sdp` over
  stdio. Each run stops the session and waits until codex has left the call before the next.
- The end of speech to the first answer audio, with the audio through the bridge (`startVoice` without `sdp`, the
  live channel): the stub answers each `input_audio_buffer.append` with the model's audio at once (a model with
  no thinking time), so the time from the phone's last audio frame (one 40 ms data frame on its live stream) to
  the first frame of the model's audio back on the stream is what the bridge and codex add; against codex alone
  (`thread/realtime/appendAudio` to `thread/realtime/outputAudio/delta` over stdio) it is the bridge's own.

The two sides alternate run by run (the machine's load drifts alike for both).

Usage: voice_bench.py BRIDGE [--runs N] [--out FILE] [--build debug]. Prints one JSON object and, with --out, a
Markdown section for BENCHMARKS.md. Needs aiortc (Scripts/test installs it in .venv-test)."""
import argparse
import asyncio
import base64
import json
import os
import pathlib
import shutil
import statistics
import struct
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
            at = time.perf_counter()
            with self.cond:
                self.messages.append({**json.loads(line), "_at": at})  # when it was read: the runs' end
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

    def start_audio(self):
        """A session with the audio through codex's own websocket (the bridge's `startVoice` without `sdp`)."""
        self.codex.request("thread/realtime/start", {"threadId": self.thread, "outputModality": "audio",
                                                     "transport": {"type": "websocket"}})
        self.codex.wait(lambda m: m.get("method") == "thread/realtime/started")

    def audio_run(self, frame):
        """The phone's last frame given to codex to the model's first audio from codex."""
        audio = {"data": base64.b64encode(frame).decode(), "sampleRate": 24000, "numChannels": 1,
                 "samplesPerChannel": len(frame) // 2}
        t0 = time.perf_counter()
        self.codex.request("thread/realtime/appendAudio", {"threadId": self.thread, "audio": audio})
        first = self.codex.wait(lambda m: m.get("method") == "thread/realtime/outputAudio/delta" and m["_at"] >= t0)
        return first["_at"] - t0

    def stop_audio(self):
        self.codex.request("thread/realtime/stop", {"threadId": self.thread})
        self.codex.wait(lambda m: m.get("method") == "thread/realtime/closed")


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

    async def start_audio(self):
        await send(self.ws, {"kind": "startVoice", "id": "audio", "threadId": self.thread})
        started = await self.answer("audio")
        assert started["kind"] == "voiceStarted" and started["transport"] == "websocket", started
        self.stream = started["streamId"]

    async def audio_run(self, frame):
        """The phone's last audio frame on its live stream to the first frame of the model's audio back on it."""
        head = struct.pack(">BBI", 1, 0, self.stream)
        while True:  # nothing of an earlier run left unread
            try:
                await asyncio.wait_for(self.ws.recv(), 0.001)
            except asyncio.TimeoutError:
                break
        t0 = time.perf_counter()
        await self.ws.send(head + frame)
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), 30)
            if isinstance(raw, bytes) and raw[:6] == head:
                return time.perf_counter() - t0

    async def stop_audio(self):
        await send(self.ws, {"kind": "stopVoice", "id": "audio-stop", "threadId": self.thread})
        while True:  # past the stream's end frame and the events, to the answer
            raw = await asyncio.wait_for(self.ws.recv(), 30)
            if isinstance(raw, str) and json.loads(raw).get("id") == "audio-stop":
                return

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
        # The end of speech to the first answer audio: a model answering at once.
        stub.answer_audio = bytes(960)  # 20 ms of silence
        direct.start_audio()
        await through.start_audio()
        frame = bytes(range(256)) * 7 + bytes(128)  # 1920 bytes: the phone's 40 ms frame (voice-pcm.js)
        heard_alone, heard_bridged = [], []
        for n in range(AUDIO_WARMUP + runs * 2):
            a, b = direct.audio_run(frame), await through.audio_run(frame)
            await asyncio.sleep(0.05)  # the stub's answers to both are in; nothing left over for the next run
            if n >= AUDIO_WARMUP:
                heard_alone.append(a)
                heard_bridged.append(b)
        stub.answer_audio = None
        direct.stop_audio()
        await through.stop_audio()
        return alone, bridged, heard_alone, heard_bridged
    finally:
        direct.codex.close()
        await through.close()


AUDIO_WARMUP = 3


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
        direct, through, heard_direct, heard_through = asyncio.run(measure(opts.runs, stub, model, scratch, opts.bridge))
    finally:
        model.stop()
        stub.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    ms = lambda xs: round(statistics.median(xs) * 1000, 1)  # noqa: E731
    p90 = lambda xs: round(sorted(xs)[int(len(xs) * 0.9) - 1] * 1000, 1)  # noqa: E731
    result = {"runs": opts.runs, "direct_ms": ms(direct), "direct_p90_ms": p90(direct), "bridge_ms": ms(through),
              "bridge_p90_ms": p90(through),
              # The median of each pair's difference: the load drifts, but alike for a run and the one right after it.
              "added_ms": ms([b - d for b, d in zip(through, direct)]),
              "audio_runs": len(heard_through), "audio_direct_ms": ms(heard_direct), "audio_direct_p90_ms": p90(heard_direct),
              "audio_bridge_ms": ms(heard_through), "audio_bridge_p90_ms": p90(heard_through),
              "audio_added_ms": ms([b - d for b, d in zip(heard_through, heard_direct)]), "load": os.getloadavg()[0]}
    print(json.dumps(result))
    if opts.out:
        pathlib.Path(opts.out).write_text(
            "## P14: voice (issue 47)\n\n"
            f"From `startVoice {{sdp}}` to `voiceStarted` through the bridge ({opts.build} build), against codex's own "
            "`thread/realtime/start` (webrtc) to `thread/realtime/sdp` over stdio; the real codex, its realtime at the "
            f"loopback stub (an aiortc answer), {opts.runs} runs each, median (p90):\n\n"
            "| | ms |\n|---|---|\n"
            f"| codex alone | {result['direct_ms']} ({result['direct_p90_ms']}) |\n"
            f"| through the bridge | {result['bridge_ms']} ({result['bridge_p90_ms']}) |\n"
            f"| the bridge adds (median of the pairs' differences) | {result['added_ms']} |\n\n"
            "The end of speech to the first answer audio, the audio through the bridge (`startVoice` without `sdp`): from "
            "the phone's last 40 ms frame on its live stream to the first frame of the model's audio back on it, the "
            "stub answering each `input_audio_buffer.append` at once; against codex alone, `thread/realtime/appendAudio` "
            f"to `thread/realtime/outputAudio/delta` over stdio; {result['audio_runs']} runs each, median (p90):\n\n"
            "| end of speech → first answer audio | ms |\n|---|---|\n"  # its own name: bench_check keys rows by it
            f"| codex alone | {result['audio_direct_ms']} ({result['audio_direct_p90_ms']}) |\n"
            f"| through the bridge | {result['audio_bridge_ms']} ({result['audio_bridge_p90_ms']}) |\n"
            f"| the bridge adds (median of the pairs' differences) | {result['audio_added_ms']} |\n\n"
            f"Load average at the end: {result['load']:.1f} (on a quiet machine the spread is far smaller).\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
