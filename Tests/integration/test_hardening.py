"""Issue 11, finding 9: the smaller holes, each against the real binary."""
import asyncio
import json
import urllib.error
import urllib.request

import pytest
import websockets

from conftest import run_cli
from test_hostile import RawWS
from test_pairing import pair_json
from wsutil import connect, expect_close, hello, recv, send


async def test_token_rotate_closes_old_shared_secret_sessions(bridge):
    old_ws, ack = await hello(bridge)
    assert ack["ok"] is True
    run_cli("token", "rotate", state_dir=bridge.state_dir, check=True)
    code, reason = await asyncio.wait_for(expect_close(old_ws), 3)
    assert (code, reason) == (1008, "token rotated")
    new_ws, ack = await hello(bridge)  # bridge.token reads the new secret
    assert ack["ok"] is True
    await asyncio.sleep(1.5)  # a session opened with the new secret stays
    await send(new_ws, {"kind": "ping", "nonce": "n"})
    assert (await recv(new_ws))["kind"] == "pong"


def metrics(port, token):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as error:
        return error.code


async def test_metrics_failures_count_towards_the_rate_limit(bridge):
    assert [metrics(bridge.port, "wrong") for _ in range(5)] == [401] * 5
    assert metrics(bridge.port, "wrong") == 429
    ws, ack = await hello(bridge, token="still-wrong")
    assert ack["error"]["code"] == "rate_limited"
    assert metrics(bridge.port, bridge.token) == 200  # a valid token is never throttled


async def test_failures_at_every_entrance_count_together(bridge):
    """Issue 32 item 3: the upgrade's header, the hello's token and the HTTP bearer go through one check with one
    failure count per address; once limited, every entrance says so, and a valid credential still passes each."""
    for _ in range(2):
        ws, ack = await hello(bridge, token="wrong-hello")
        assert ack["error"]["code"] == "unauthorized"
    for _ in range(2):
        with pytest.raises(websockets.InvalidStatus) as info:
            await connect(bridge, additional_headers={"Authorization": "Bearer wrong-upgrade"})
        assert info.value.response.status_code == 401
    assert metrics(bridge.port, "wrong-http") == 401
    # Five failures from 127.0.0.1 in all: limited at every entrance.
    assert metrics(bridge.port, "wrong-http") == 429
    with pytest.raises(websockets.InvalidStatus) as info:
        await connect(bridge, additional_headers={"Authorization": "Bearer wrong-upgrade"})
    assert info.value.response.status_code == 429
    ws, ack = await hello(bridge, token="wrong-hello")
    assert ack["error"]["code"] == "rate_limited"
    # Valid credentials are never throttled.
    assert metrics(bridge.port, bridge.token) == 200
    ws = await connect(bridge, additional_headers={"Authorization": f"Bearer {bridge.token}"})
    await send(ws, {"kind": "hello", "version": 1})
    assert (await recv(ws))["ok"] is True
    await ws.close()
    ws, ack = await hello(bridge)
    assert ack["ok"] is True
    await ws.close()


async def test_pairing_code_is_not_redeemed_from_a_bearer_header(bridge):
    code = pair_json(bridge)["code"]
    with pytest.raises(websockets.InvalidStatus) as info:
        await connect(bridge, additional_headers={"Authorization": f"Bearer {code}"})
    assert info.value.response.status_code == 401
    assert json.loads(run_cli("devices", "list", "--json", state_dir=bridge.state_dir, check=True).stdout) == []
    # The code is still good in hello, which describes the device.
    ws, ack = await hello(bridge, token=code, extra={"device": {"name": "phone", "platform": "web"}})
    assert ack["ok"] is True and ack["deviceToken"]


async def test_shared_secret_hello_never_gets_a_device_token(bridge):
    ws, ack = await hello(bridge, extra={"device": {"name": "x", "platform": "web"}})
    assert ack["ok"] is True and "deviceToken" not in ack and "deviceId" not in ack


async def test_long_thread_ids_are_bad_requests(bridge):
    ws, _ = await hello(bridge)
    await send(ws, {"kind": "subscribe", "id": "s1", "threadId": "x" * 300})
    answer = await recv(ws)
    assert answer["kind"] == "error" and answer["code"] == "bad_request", answer


async def test_unmasked_client_frame_closes_1002(bridge):
    ws = await RawWS.open(bridge.port)
    payload = json.dumps({"kind": "hello", "version": 1, "token": bridge.token}).encode()
    ws.writer.write(bytes([0x81, len(payload)]) + payload)  # FIN + text, no mask bit
    await ws.writer.drain()
    code, _ = await ws.until_close()
    ws.close()
    assert code == 1002


async def test_control_characters_never_reach_the_log_raw(bridge_factory):
    bridge = bridge_factory(args=["--log-level", "debug"])
    code = pair_json(bridge)["code"]
    name = "evil\x1b]0;owned\x07\nFAKE critical: forged line"
    ws, ack = await hello(bridge, token=code, extra={"device": {"name": name, "platform": "web"}})
    assert ack["ok"] is True
    await send(ws, {"kind": "bogus\x1b[31m\n", "id": "i\x1b"})
    await recv(ws)
    log = bridge.wait_log("device paired")
    assert "\x1b" not in log and "\x07" not in log
    assert not any(line.startswith("FAKE") for line in log.splitlines())
