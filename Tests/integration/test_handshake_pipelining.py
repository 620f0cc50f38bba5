"""Requests behind the hello (BRIDGE.md, "Other handshake rules"): a client may send requests right after its
`hello` without waiting for the `helloAck`; the bridge answers each after the ack (matched by its id, as any request), with the shared secret, a
device token, and a resuming device. Behind a pairing that waits for the workstation
(`--confirm-pairing`) they are ignored (the web app sends them again at the ack: Tests/webunit/connection.unit.mjs).
The web app relies on this to save a round trip on every connection (issue 36, P10)."""
import asyncio
import json

import pytest

from conftest import run_cli
from test_pairing import PHONE, pair_device, pair_json
from wsutil import connect, recv


async def pipelined(bridge, hello_frame, *requests):
    """Sends the hello and the requests without waiting in between; returns every frame received until each
    request was answered (or 10 s passed)."""
    ws = await connect(bridge)
    # Back to back, so that the requests arrive while the hello is still being handled.
    await asyncio.gather(*(ws.send(json.dumps(frame)) for frame in (hello_frame, *requests)))
    wanted = {r.get("id") or r.get("nonce") for r in requests}
    got = []
    while wanted:
        msg = await recv(ws, timeout=10)
        got.append(msg)
        wanted.discard(msg.get("id") or msg.get("nonce"))
    await ws.close()
    return got


def kinds(frames):
    return [(f["kind"], f.get("id") or f.get("nonce")) for f in frames]


async def test_requests_sent_behind_the_hello_are_answered_after_the_ack(bridge):
    requests = [
        {"kind": "listDevices", "id": "r1"},
        {"kind": "ping", "nonce": "n1"},
        {"kind": "listAudit", "id": "r2", "limit": 5},
    ]
    for _ in range(5):
        got = await pipelined(bridge, {"kind": "hello", "version": 1, "token": bridge.token}, *requests)
        assert kinds(got)[0] == ("helloAck", None) and got[0]["ok"] is True, got
        assert sorted(kinds(got)[1:]) == [("audit", "r2"), ("devices", "r1"), ("pong", "n1")], got


async def test_a_device_and_a_resuming_device_get_their_answers_after_the_ack(bridge):
    _, token = await pair_device(bridge, PHONE)
    plain = {"kind": "hello", "version": 1, "token": token, "clientId": "pipelined"}
    resuming = {**plain, "resume": {"lastSeq": 0}}
    for hello_frame in (plain, resuming):
        got = await pipelined(bridge, hello_frame, {"kind": "subscribe", "id": "s1", "threadId": "*"}, {"kind": "ping", "nonce": "n1"})
        assert got[0]["kind"] == "helloAck" and got[0]["ok"] is True, got
        assert sorted(kinds(got)[1:]) == [("pong", "n1"), ("subscribed", "s1")], got


async def test_behind_a_pairing_that_waits_requests_are_ignored_not_answered(bridge_factory):
    bridge = bridge_factory(args=("--confirm-pairing",))
    code = pair_json(bridge)["code"]
    ws = await connect(bridge)
    hello_frame = {"kind": "hello", "version": 1, "token": code, "device": PHONE}
    await asyncio.gather(*(ws.send(json.dumps(f)) for f in (hello_frame, {"kind": "subscribe", "id": "early", "threadId": "*"})))
    pending = await recv(ws)
    assert pending["kind"] == "pairingPending", pending
    run_cli("devices", "allow", pending["deviceId"], "--check", pending["check"], state_dir=bridge.state_dir, check=True)
    ack = await recv(ws, timeout=10)
    assert ack["kind"] == "helloAck" and ack["ok"] is True, ack
    # The early request got no answer; one sent now does (the client sends it again).
    await ws.send(json.dumps({"kind": "subscribe", "id": "early", "threadId": "*"}))
    answer = await recv(ws)
    assert (answer["kind"], answer["id"]) == ("subscribed", "early"), answer
    with pytest.raises(asyncio.TimeoutError):
        await recv(ws, timeout=1)
    await ws.close()
