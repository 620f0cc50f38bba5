"""Issue 8, hostile input: fuzzed frames from many connections and an auth brute force, while a
well-behaved client keeps working. Bounded: ~10k frames, well under two minutes."""
import asyncio
import base64
import json
import os
import random
import struct
import urllib.request

from test_codex_faults import fake_bridge
from wsutil import connect, recv, send

DELTAS = 2000
GOOD_ADDR = ("127.0.0.2", 0)  # the well-behaved client
BAD_ADDR = "127.0.0.3"  # offenders that never authenticate (so a per-address limiter cannot hit the others)


# --- a raw WebSocket client: sends whatever bytes it is told to, including invalid UTF-8 and bad frames ---

class RawWS:
    """A WebSocket client over a plain socket: masked frames of any opcode/payload, server frames parsed."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port, local_host="127.0.0.1"):
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(local_host, 0)), 10)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert head.startswith(b"HTTP/1.1 101"), head
        return cls(reader, writer)

    def frame(self, payload: bytes, opcode=0x1, fin=True):
        head = bytes([(0x80 if fin else 0) | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i & 3] for i, b in enumerate(payload)) if n < 4096 else _mask_fast(payload, mask)
        self.writer.write(head + mask + masked)

    async def text(self, data):
        self.frame(data if isinstance(data, bytes) else data.encode())
        await self.writer.drain()

    async def read(self, timeout=10.0):
        """One server message as (opcode, payload)."""
        b0, b1 = await asyncio.wait_for(self.reader.readexactly(2), timeout)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", await self.reader.readexactly(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", await self.reader.readexactly(8))[0]
        payload = await asyncio.wait_for(self.reader.readexactly(n), timeout)
        if b0 & 0x0F == 0x9:  # answer pings like any client
            self.frame(payload, opcode=0xA)
        return b0 & 0x0F, payload

    async def until_close(self, timeout=10.0):
        """Reads until the server's close frame; returns (close code, messages before it)."""
        before = []
        while True:
            try:
                opcode, payload = await self.read(timeout)
            except (asyncio.IncompleteReadError, ConnectionError):
                return None, before
            if opcode == 0x8:
                return (struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None), before
            if opcode in (0x1, 0x2):
                before.append(payload)

    async def hello(self, token):
        await self.text(json.dumps({"kind": "hello", "version": 1, "token": token}))
        opcode, payload = await self.read()
        ack = json.loads(payload)
        assert ack["kind"] == "helloAck" and ack["ok"], ack

    def close(self):
        self.writer.close()


def _mask_fast(payload: bytes, mask: bytes) -> bytes:
    n = len(payload)
    key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
    return (int.from_bytes(payload, "big") ^ key).to_bytes(n, "big")


# --- what the offenders send ---

STR, INT, OBJ = "str", "int", "obj"
SCHEMA = {
    "hello": {"version": INT, "token": STR, "device": OBJ, "resume": OBJ, "clientId": STR},
    "ping": {"nonce": STR},
    "ack": {"seq": INT},
    "listThreads": {"id": STR, "limit": INT, "cursor": STR},
    "startThread": {"id": STR, "cwd": STR, "prompt": STR, "model": STR, "sandbox": STR, "approvalPolicy": STR},
    "sendMessage": {"id": STR, "threadId": STR, "text": STR},
    "interrupt": {"id": STR, "threadId": STR},
    "subscribe": {"id": STR, "threadId": STR, "afterSeq": INT},
    "unsubscribe": {"id": STR, "threadId": STR},
    "readThread": {"id": STR, "threadId": STR},
    "getDiff": {"id": STR, "threadId": STR},
    "approve": {"id": STR, "approvalId": STR, "decision": STR},
}
VALID = {STR: "x", INT: 1, OBJ: {"lastSeq": 0}}
WRONG = {
    STR: [5, -1.5, True, [], {}, ["a"], {"a": 1}],
    INT: ["5", 1.5, True, [], {}, 2 ** 70, -(2 ** 70)],
    OBJ: ["x", 5, True, [1], {"lastSeq": "x"}],
}
BASE = {  # otherwise valid values that cannot start or touch anything real
    "cwd": "/nonexistent-hostile", "threadId": "no-such-thread", "approvalId": "no-such-approval",
    "decision": "accept", "id": "r", "version": 1, "prompt": "p",
}


def wrong_type_frames():
    """Every field of every kind set, one at a time, to each value of the wrong type (and the kind itself)."""
    for kind, fields in SCHEMA.items():
        base = {"kind": kind, **{f: BASE.get(f, VALID[t]) for f, t in fields.items()}}
        for field, typ in fields.items():
            for bad in WRONG[typ]:
                yield json.dumps({**base, field: bad})
        for bad in WRONG[STR]:
            yield json.dumps({**base, "kind": bad})
        yield json.dumps({k: v for k, v in base.items() if k != "kind"})


def garbage_frames(rng: random.Random):
    """Bad JSON, non-objects, deep nesting, unknown kinds, random text: none of it is a valid request."""
    yield "{"
    yield "}"
    yield ""
    yield "null"
    yield "[]"
    yield "42"
    yield '"kind"'
    yield '{"kind":"ping","nonce":"a"'
    yield '{"kind":"ping","nonce":"a"}}'
    yield "[" * 100_000
    yield '{"a":' * 50_000 + "1" + "}" * 50_000
    yield '{"kind":"' + "k" * 10_000 + '"}'
    yield '{"kind":"noSuchKind","id":"u"}'
    yield '{"kind":"listThreads","id":"' + "i" * 129 + '"}'
    yield '{"kind":"listThreads","id":""}'
    yield '{"kind":"listThreads"}'
    yield '{"kind":"ping","nonce":"\\ud800"}'
    for _ in range(60):
        n = rng.randint(1, 200)
        yield "".join(rng.choice('{}[]":,\\ \tabc019eE.-+nulltruefalse') for _ in range(n))
    for _ in range(20):
        n = rng.randint(1, 100)
        yield "".join(chr(rng.randint(0x20, 0xD7FF)) for _ in range(n))


async def one_reply_each(ws: RawWS, frames, read_timeout=20.0):
    """Sends frames (pipelined) and checks every one gets exactly one non-event answer; the socket stays open."""
    reader_done = asyncio.get_running_loop().create_future()
    answers = []

    async def read_all(expected):
        try:
            while len(answers) < expected:
                opcode, payload = await ws.read(read_timeout)
                assert opcode != 0x8, f"offender closed with {payload[:2].hex()} after {len(answers)} answers"
                if opcode == 0x1:
                    answers.append(json.loads(payload))
            reader_done.set_result(None)
        except BaseException as error:  # noqa: B902 - handed to the waiter
            reader_done.set_exception(error)

    frames = list(frames)
    task = asyncio.create_task(read_all(len(frames)))
    for i, frame in enumerate(frames):
        await ws.text(frame)
        if i % 50 == 49:
            await asyncio.sleep(0)
    await reader_done
    await task
    kinds = {a["kind"] for a in answers}
    assert kinds <= {"error", "pong", "threads", "subscribed", "unsubscribed"}, kinds
    # Still open and answering.
    await ws.text('{"kind":"ping","nonce":"still-open"}')
    opcode, payload = await ws.read(read_timeout)
    assert json.loads(payload) == {"kind": "pong", "nonce": "still-open"}
    return answers


def healthz(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
        return r.status


async def good_client(bridge, ws_dir, turns=2):
    """Runs `turns` flood turns and checks every delta arrives, in order, with consecutive seqs."""
    ws = await connect(bridge, local_addr=GOOD_ADDR)
    await send(ws, {"kind": "hello", "version": 1, "token": bridge.token})
    assert (await recv(ws))["ok"]
    thread = None
    for turn in range(turns):
        if thread is None:
            await send(ws, {"kind": "startThread", "id": "good-0", "cwd": str(ws_dir), "prompt": "go"})
        else:
            await send(ws, {"kind": "sendMessage", "id": f"good-{turn}", "threadId": thread, "text": "again"})
        expected, last_seq, answered, completed = 0, None, False, False
        while not (answered and completed):
            msg = await recv(ws, timeout=60)
            if msg["kind"] in ("threadStarted", "accepted") and msg.get("id") == f"good-{turn}":
                thread = msg["threadId"]
                answered = True
                continue
            assert msg["kind"] == "event", msg
            if last_seq is not None:
                assert msg["seq"] == last_seq + 1, (msg["seq"], last_seq)
            last_seq = msg["seq"]
            if msg["type"] == "item/agentMessage/delta":
                assert msg["data"]["delta"] == f"{expected} ", msg
                expected += 1
            elif msg["type"] == "turn/completed":
                completed = True
        assert expected == DELTAS
    await ws.close()
    return turns


async def test_fuzzed_frames_close_only_offenders_while_a_turn_completes(bridge_factory, tmp_path):
    bridge, ws_dir = fake_bridge(bridge_factory, tmp_path, "flood", FAKE_CODEX_COUNT=str(DELTAS))
    port, token = bridge.port, bridge.token
    rng = random.Random(8)
    sent = {"frames": 0}
    closes = []

    # Authenticated offenders first (before any failed authentication exists anywhere).
    post = [await RawWS.open(port) for _ in range(20)]
    for ws in post:
        await ws.hello(token)
    wrong = list(wrong_type_frames())
    garbage = list(garbage_frames(rng))
    ids = [json.dumps({"kind": "listThreads", "id": f"flood-{i}"}) for i in range(300)]
    big = "b" * ((1 << 20) - 200)
    near_limit = [json.dumps({"kind": "ping", "nonce": big[:-20]}),
                  json.dumps({"kind": "startThread", "id": "big", "cwd": "/nonexistent-hostile", "prompt": big[:-90]})]
    after_hello = [json.dumps({"kind": "hello", "version": 1, "token": token})]

    async def post_hello_offender(i, ws):
        frames = list(wrong) + list(garbage) + after_hello
        rng.shuffle(frames)
        if i % 4 == 0:
            frames += ids  # a request flood: every one answered (result or rate_limited)
        if i % 10 == 0:
            frames += near_limit
        sent["frames"] += len(frames) + 1
        answers = await one_reply_each(ws, frames)
        assert len(answers) == len(frames)
        ws.close()

    pre_kinds = list(SCHEMA) + ["noSuchKind"]

    async def pre_hello_offender(frame, binary=False):
        ws = await RawWS.open(port, BAD_ADDR)
        ws.frame(frame.encode() if isinstance(frame, str) else frame, opcode=0x2 if binary else 0x1)
        sent["frames"] += 1
        code, before = await ws.until_close()
        ws.close()
        # Only a failed hello may be answered (ok:false) before the 1008.
        for payload in before:
            ack = json.loads(payload)
            assert ack["kind"] == "helloAck" and ack["ok"] is False, ack
        closes.append(("pre-hello", code))
        assert code == 1008, (frame[:80], code)

    async def closing_offender(send_frames, expected_codes, authenticate=True, label=""):
        ws = await RawWS.open(port)
        if authenticate:
            await ws.hello(token)
        await send_frames(ws)
        sent["frames"] += 1
        code, before = await ws.until_close()
        ws.close()
        closes.append((label, code))
        assert code in expected_codes, (label, code, before[:3])
        for payload in before:  # nothing but errors may come back before the close
            assert json.loads(payload)["kind"] == "error", payload[:200]

    async def invalid_utf8(ws):
        ws.frame(b'{"kind":"ping","nonce":"\xff\xfe"}')

    async def invalid_utf8_split(ws):
        ws.frame(b'{"kind":"ping","nonce":"\xe2\x82', fin=False)
        ws.frame(b'("}', opcode=0x0)

    async def too_big(ws):
        # The header declares 1.2 MB but only its first KiB is sent, so the server's 1009 cannot be lost to
        # a TCP reset (test_whole_oversized_frame_gets_1009 covers the whole frame).
        mask = os.urandom(4)
        ws.writer.write(bytes([0x81, 0x80 | 127]) + struct.pack("!Q", 1_200_002) + mask + _mask_fast(b"[" + b"1," * 511, mask))

    async def too_big_fragments(ws):
        ws.frame(b'{"kind":"ping","nonce":"' + b"a" * 700_000, fin=False)
        ws.frame(b"a" * 700_000 + b'"}', opcode=0x0)

    async def reserved_opcode(ws):
        ws.frame(b"x", opcode=0x3)

    jobs = [post_hello_offender(i, ws) for i, ws in enumerate(post)]
    for kind in pre_kinds:
        fields = SCHEMA.get(kind, {})
        jobs.append(pre_hello_offender(json.dumps({"kind": kind, **{f: BASE.get(f, VALID[t]) for f, t in fields.items()
                                                                     if kind != "hello" or f != "token"}, "token": "wrong"})))
    for frame in garbage[:40] + rng.sample(wrong, 60):
        jobs.append(pre_hello_offender(frame))
    jobs.append(pre_hello_offender(b'{"kind":"hello","version":1}', binary=True))
    for i in range(5):
        jobs.append(closing_offender(invalid_utf8, {1007}, label="invalid utf-8"))
        jobs.append(closing_offender(invalid_utf8_split, {1007}, label="invalid utf-8 across fragments"))
        jobs.append(closing_offender(invalid_utf8, {1007, 1008}, authenticate=False, label="invalid utf-8 before hello"))
        jobs.append(closing_offender(too_big, {1009}, label="message over the limit"))
        jobs.append(closing_offender(too_big_fragments, {1009}, label="fragments over the limit"))
        jobs.append(closing_offender(reserved_opcode, {1002}, label="reserved opcode"))

    limit = asyncio.Semaphore(64)

    async def bounded(job):
        async with limit:
            await job

    async def good_after_a_moment():
        await asyncio.sleep(0.5)
        assert healthz(port) == 200
        return await good_client(bridge, ws_dir)

    results = await asyncio.wait_for(
        asyncio.gather(good_after_a_moment(), *(bounded(j) for j in jobs), return_exceptions=True), 100)
    errors = [r for r in results if isinstance(r, BaseException)]
    assert not errors, errors[:5]
    assert results[0] == 2
    assert sent["frames"] >= 9000, sent
    assert bridge.proc.poll() is None, bridge.log()[-3000:]
    assert healthz(port) == 200
    # The server still serves a fresh client end to end.
    assert await good_client(bridge, ws_dir, turns=1) == 1
    assert "Fatal error" not in bridge.log()


async def test_auth_brute_force_does_not_slow_a_valid_device(bridge_factory, tmp_path):
    bridge, _ = fake_bridge(bridge_factory, tmp_path, "normal")
    port, token = bridge.port, bridge.token
    outcomes = {}
    stop = asyncio.Event()

    async def attacker(i):
        ws = await RawWS.open(port)  # from 127.0.0.1
        await ws.text(json.dumps({"kind": "hello", "version": 1, "token": f"bad-{i:04d}-{os.urandom(8).hex()}"}))
        code, before = await ws.until_close()
        ws.close()
        assert code == 1008, code
        ack = json.loads(before[0])
        assert ack["kind"] == "helloAck" and ack["ok"] is False
        outcomes[ack["error"]["code"]] = outcomes.get(ack["error"]["code"], 0) + 1

    async def attack():
        limit = asyncio.Semaphore(16)

        async def bounded(i):
            async with limit:
                await attacker(i)
        try:
            await asyncio.gather(*(bounded(i) for i in range(1000)))
        finally:
            stop.set()

    async def device():
        times = []
        while not stop.is_set() or len(times) < 5:
            start = asyncio.get_running_loop().time()
            ws = await connect(bridge, local_addr=GOOD_ADDR)
            await send(ws, {"kind": "hello", "version": 1, "token": token})
            ack = await recv(ws, timeout=5)
            times.append(asyncio.get_running_loop().time() - start)
            assert ack["ok"], ack
            await ws.close()
            await asyncio.sleep(0.1)
        return times

    start = asyncio.get_running_loop().time()
    _, times = await asyncio.wait_for(asyncio.gather(attack(), device()), 60)
    elapsed = asyncio.get_running_loop().time() - start
    assert sum(outcomes.values()) == 1000 and elapsed < 60
    assert outcomes.get("rate_limited", 0) >= 990, outcomes  # 5 per minute, then limited
    assert max(times) < 1.0, f"valid device handshakes: max {max(times):.3f}s over {len(times)}"
    assert bridge.proc.poll() is None


async def test_whole_oversized_frame_gets_1009(bridge_factory, tmp_path):
    """The client is still sending the rest of the frame when the bridge answers: the bridge half-closes and
    drains instead of closing, so the kernel does not reset the connection and the 1009 is read every time."""
    bridge, _ = fake_bridge(bridge_factory, tmp_path, "normal")
    codes = []
    for _ in range(5):
        ws = await RawWS.open(bridge.port)
        await ws.hello(bridge.token)
        ws.frame(b"[" + b"1," * 600_000 + b"1]")
        code, _ = await ws.until_close()
        ws.close()
        codes.append(code)
    assert codes == [1009] * 5, codes
