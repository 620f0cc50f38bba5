"""Issue 6: nothing lost. The event journal, resume after reconnect, exactly-once requests, restart after
kill -9, retention gaps, a slow reader under a flood, WebSocket heartbeats. Real binary, real sockets."""
import asyncio
import base64
import json
import os
import signal
import socket
import sqlite3
import time

import websockets

from codex_fixture import bridge_codex_args, codex_bin, codex_bridge, codex_home, model, workspace  # noqa: F401
from conftest import run_cli
from mock_model import codex_env
from test_codex import request, until_turn_completed
from test_codex_faults import fake_bridge, rss_kib
from test_pairing import pair_device
from wsutil import expect_close, hello, recv, send


def journaled(msg):
    return msg.get("kind") in ("event", "approvalRequest", "approvalResolved")


async def collect(ws, until, timeout=60):
    """Journaled frames (and pending ones) until `until(msg)` is true for one; returns them all."""
    got = []
    while getattr(ws, "pending", None):
        msg = ws.pending.pop(0)
        if journaled(msg):
            got.append(msg)
            if until(msg):
                return got
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await recv(ws, max(0.01, deadline - loop.time()))
        if journaled(msg):
            got.append(msg)
            if until(msg):
                return got


def completed(thread):
    return lambda m: m["kind"] == "event" and m["threadId"] == thread and m["type"] == "turn/completed"


async def quiet(ws, seconds=0.5):
    """Asserts nothing journaled arrives for `seconds`."""
    try:
        msg = await recv(ws, seconds)
    except asyncio.TimeoutError:
        return
    raise AssertionError(f"unexpected frame {msg}")


async def test_disconnect_mid_turn_then_resume_gets_exactly_the_missed_events(codex_bridge, model, workspace):
    model.queue({"kind": "stall", "text": "after the stall"}, {"kind": "message", "text": "live again"})
    observer, _ = await hello(codex_bridge)
    assert (await request(observer, "subscribe", threadId="*"))["kind"] == "subscribed"
    phone, ack = await hello(codex_bridge, extra={"clientId": "phone-A"})
    assert ack["restoredSubscriptions"] == []
    started = await request(phone, "startThread", cwd=str(workspace), prompt="long one")
    thread = started["threadId"]
    seen = await collect(phone, lambda m: m["kind"] == "event" and m["type"] == "turn/started")
    model.wait_requests(1)
    await asyncio.sleep(0.3)
    while True:  # drain what is already queued: the cursor is the last frame the phone processed
        try:
            msg = await recv(phone, 0.3)
        except asyncio.TimeoutError:
            break
        if journaled(msg):
            seen.append(msg)
    cursor = seen[-1]["seq"]
    await phone.close()

    # The turn continues while the phone is away.
    model.release()
    everything = await collect(observer, completed(thread))
    missed = [m for m in everything if m["seq"] > cursor and m["threadId"] == thread]
    assert missed and missed[-1]["type"] == "turn/completed"

    phone, ack = await hello(codex_bridge, extra={"clientId": "phone-A", "resume": {"lastSeq": cursor}})
    assert ack["resume"] == "ok" and ack["restoredSubscriptions"] == [thread]
    assert ack["lastSeq"] == everything[-1]["seq"]
    replayed = await collect(phone, completed(thread))
    assert [m["seq"] for m in replayed] == [m["seq"] for m in missed]
    assert replayed == missed  # byte-for-byte the same frames, in order
    await quiet(phone)

    # Then live: a follow-up turn arrives without asking, with seqs continuing after the replay.
    follow = await request(phone, "sendMessage", threadId=thread, text="more")
    assert follow["kind"] == "accepted"
    live = await collect(phone, completed(thread))
    assert live[0]["seq"] > replayed[-1]["seq"]
    seqs = [m["seq"] for m in replayed + live]
    assert seqs == sorted(set(seqs))


async def test_subscribe_after_seq_replays_that_thread(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "one", "deltas": ["o", "ne"]})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="x")
    events = await collect(ws, completed(started["threadId"]))
    other, _ = await hello(codex_bridge)
    answer = await request(other, "subscribe", threadId=started["threadId"], afterSeq=events[1]["seq"])
    replayed = [m for m in getattr(other, "pending", [])]
    assert answer["resume"] == "ok" and answer["lastSeq"] == events[-1]["seq"]
    assert replayed == events[2:]


async def test_kill_9_mid_turn_then_restart_loses_nothing(codex_bridge, model, workspace):
    model.queue({"kind": "stall", "text": "never"})
    ws, _ = await hello(codex_bridge, extra={"clientId": "phone-K"})
    started = await request(ws, "startThread", cwd=str(workspace), prompt="interrupted by a crash")
    thread, turn = started["threadId"], started["turnId"]
    seen = await collect(ws, lambda m: m["kind"] == "event" and m["type"] == "turn/started")
    model.wait_requests(1)
    await asyncio.sleep(0.5)
    while True:
        try:
            msg = await recv(ws, 0.3)
        except asyncio.TimeoutError:
            break
        if journaled(msg):
            seen.append(msg)
    codex_bridge.stop(signal.SIGKILL)
    model.release()
    db = codex_bridge.state_dir / "bridge.sqlite"
    with sqlite3.connect(db) as conn:
        journal = [json.loads(text) for (text,) in conn.execute("SELECT text FROM journal ORDER BY seq")]
    assert [m["seq"] for m in seen] == [m["seq"] for m in journal if m["seq"] <= seen[-1]["seq"]]

    codex_bridge.start()
    ws, ack = await hello(codex_bridge, extra={"clientId": "phone-K", "resume": {"lastSeq": 0}})
    assert ack["resume"] == "ok" and ack["restoredSubscriptions"] == [thread]
    replayed = await collect(ws, lambda m: m["kind"] == "event" and m["type"] == "bridge/turnFailed")
    assert replayed[:len(journal)] == journal  # everything journaled before the kill, once, in order
    failed = replayed[-1]
    assert failed["threadId"] == thread and failed["turnId"] == turn and failed["data"]["reason"] == "bridge restarted"
    assert len(replayed) == len(journal) + 1 and failed["seq"] == journal[-1]["seq"] + 1  # seq continues
    assert ack["lastSeq"] >= failed["seq"]
    # (Live events may follow: the bridge resumes the thread in the new codex, e.g. thread/status/changed.)

    # The thread is usable again (resumed in the new codex) and new events number on.
    model.queue({"kind": "message", "text": "back"})
    follow = await request(ws, "sendMessage", threadId=thread, text="again")
    assert follow["kind"] == "accepted", follow
    live = await collect(ws, completed(thread))
    assert live[0]["seq"] > failed["seq"]


async def test_cursor_older_than_retention_is_a_gap(bridge_factory, tmp_path):
    bridge, ws_dir = fake_bridge(bridge_factory, tmp_path, "normal")
    bridge.stop()
    bridge.args += ["--journal-max-age", "1s"]
    bridge.start()
    ws, _ = await hello(bridge, extra={"clientId": "phone-G"})
    started = await request(ws, "startThread", cwd=str(ws_dir), prompt="x")
    events = await collect(ws, completed(started["threadId"]))
    await ws.close()
    db = bridge.state_dir / "bridge.sqlite"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with sqlite3.connect(db) as conn:
            if conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 0:
                break
        await asyncio.sleep(0.2)
    else:
        raise AssertionError("the journal was not pruned")
    ws, ack = await hello(bridge, extra={"clientId": "phone-G", "resume": {"lastSeq": events[0]["seq"]}})
    assert ack["resume"] == "gap" and ack["lastSeq"] == events[-1]["seq"]
    await quiet(ws)
    answer = await request(ws, "subscribe", threadId="*", afterSeq=0)
    assert answer["resume"] == "gap"
    current, ack = await hello(bridge, extra={"resume": {"lastSeq": events[-1]["seq"]}})
    assert ack["resume"] == "ok"
    future, ack = await hello(bridge, extra={"resume": {"lastSeq": events[-1]["seq"] + 100}})
    assert ack["resume"] == "gap"  # a cursor from another bridge or a reset database


async def test_same_request_id_across_a_reconnect_acts_once(codex_bridge, model, workspace):
    model.queue({"kind": "exec", "cmd": "echo x >> counted.txt"}, {"kind": "message", "text": "done"})
    device_id, device_token = await pair_device(codex_bridge, {"name": "Retry Phone", "platform": "ios"})
    ws, _ = await hello(codex_bridge, token=device_token)
    start = {"kind": "startThread", "id": "start-1", "cwd": str(workspace), "prompt": "count", "approvalPolicy": "untrusted"}
    await send(ws, start)
    await ws.close()  # gone before the answer
    ws, ack = await hello(codex_bridge, token=device_token)
    await send(ws, start)
    first = None
    approval = None
    while first is None or approval is None:
        msg = await recv(ws, 60)
        if msg.get("id") == "start-1":
            first = msg
        elif msg["kind"] == "approvalRequest":
            approval = msg
    assert first["kind"] == "threadStarted", first
    thread = first["threadId"]
    assert approval["threadId"] == thread
    approve = {"kind": "approve", "id": "approve-1", "approvalId": approval["approvalId"], "decision": "accept"}
    await send(ws, approve)
    await ws.close()
    ws, ack = await hello(codex_bridge, token=device_token, extra={"resume": {"lastSeq": approval["seq"]}})
    assert thread in ack["restoredSubscriptions"]
    await send(ws, approve)
    await send(ws, start)
    answers = {}
    rest = []
    while len(answers) < 2 or not any(completed(thread)(m) for m in rest):
        msg = await recv(ws, 60)
        if msg.get("id") in ("approve-1", "start-1"):
            answers[msg["id"]] = msg
        else:
            rest.append(msg)
    assert answers["approve-1"]["kind"] == "accepted", answers  # not approval_not_pending: the first answer again
    assert answers["start-1"] == first
    resolved = [m for m in rest if m["kind"] == "approvalResolved"]
    assert len(resolved) == 1 and resolved[0]["deviceId"] == device_id
    assert (workspace / "counted.txt").read_text() == "x\n"
    assert len(model.requests) == 2  # one turn: the exec call and the final message
    listed = await request(ws, "listThreads", limit=50)
    assert [t["threadId"] for t in listed["threads"]] == [thread]
    # Acks are recorded per device and shown by `devices list`.
    await send(ws, {"kind": "ack", "seq": rest[-1]["seq"]})
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        devices = json.loads(run_cli("devices", "list", "--json", state_dir=codex_bridge.state_dir, check=True).stdout)
        mine = next(d for d in devices if d["id"] == device_id)
        if mine.get("ackedSeq") == rest[-1]["seq"]:
            break
        await asyncio.sleep(0.2)
    else:
        raise AssertionError(f"ack not recorded: {devices}")


async def test_slow_reader_is_closed_others_get_everything_memory_bounded(bridge_factory, tmp_path):
    count = 50_000
    # 5k events/s: faster than a phone needs, slow enough for this Python client to keep up with.
    bridge, ws_dir = fake_bridge(bridge_factory, tmp_path, "flood", FAKE_CODEX_COUNT=str(count), FAKE_CODEX_RATE="5000")
    baseline = rss_kib(bridge.proc.pid)
    # The slow client stops reading after the handshake: its socket buffers fill, then its outbox.
    slow, _ = await hello(bridge, max_queue=1, extra={"clientId": "slow"})
    assert (await request(slow, "subscribe", threadId="*"))["kind"] == "subscribed"
    slow.transport.pause_reading()
    fast, _ = await hello(bridge)
    began = time.monotonic()
    started = await request(fast, "startThread", cwd=str(ws_dir), prompt="flood")
    thread = started["threadId"]
    expected, peak, last = 0, 0, None
    pending = list(getattr(fast, "pending", []))
    while True:
        # Plain recv() under one overall timeout: a wait_for per frame costs more than the frame.
        async with asyncio.timeout(90):
            msg = pending.pop(0) if pending else json.loads(await fast.recv())
        if msg["kind"] != "event" or msg["threadId"] != thread:
            continue
        assert last is None or msg["seq"] == last + 1
        last = msg["seq"]
        if msg["type"] == "item/agentMessage/delta":
            expected += 1
            if expected % 5000 == 0:
                peak = max(peak, rss_kib(bridge.proc.pid))
        elif msg["type"] == "turn/completed":
            break
    elapsed = time.monotonic() - began
    assert expected == count
    assert elapsed < 60, f"the fast client needed {elapsed:.1f}s"
    assert peak - baseline < 150 * 1024, f"RSS grew from {baseline} to {peak} KiB"
    assert "outbound queue full" in bridge.wait_log("outbound queue full")
    slow.transport.resume_reading()
    code, _ = await expect_close(slow, timeout=20)
    assert code in (1013, None)  # 1013 when the close frame made it through the full socket
    # It comes back and resumes from the journal.
    back, ack = await hello(bridge, extra={"clientId": "slow", "resume": {"lastSeq": last - 10}})
    assert ack["resume"] == "ok" and ack["restoredSubscriptions"] == ["*"]
    replayed = [(await recv(back))["seq"] for _ in range(10)]
    assert replayed == list(range(last - 9, last + 1))
    print(f"flood of {count}: {elapsed:.1f}s, RSS {baseline} -> {peak} KiB")


def raw_upgrade(bridge):
    sock = socket.create_connection(("127.0.0.1", bridge.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{bridge.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                  f"Authorization: Bearer {bridge.token}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


async def test_peer_that_stops_answering_pings_is_closed(bridge_factory):
    bridge = bridge_factory(args=["--ping-interval", "0.5", "--hello-timeout", "30"])
    sock = raw_upgrade(bridge)
    began = time.monotonic()
    await asyncio.sleep(0.4)  # receives pings but never answers them
    sock.settimeout(10)
    data = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    closed_after = time.monotonic() - began
    sock.close()
    # Pings every 0.5 s, each with an 8-byte payload; the peer is closed when a third would be due, i.e. after
    # it missed two (not after one: ~1.0 s), with 1001 "Ping timeout".
    assert data.startswith(b"\x89\x08"), data[:20]
    close_at = data.index(b"\x88")
    assert data[:close_at].count(b"\x89\x08") == 2, data
    assert data[close_at + 2:close_at + 4] == (1001).to_bytes(2, "big") and b"Ping timeout" in data[close_at:]
    assert 1.3 <= closed_after <= 4.0, closed_after
    # A client that answers (the websockets library does) stays connected, and app-level ping still works.
    ws, _ = await hello(bridge)
    await asyncio.sleep(2.0)
    await send(ws, {"kind": "ping", "nonce": "still"})
    assert (await recv(ws)) == {"kind": "pong", "nonce": "still"}
