"""Issue 2: the WebSocket server, handshake, limits and credentials, over real sockets."""
import asyncio
import json
import os
import signal
import stat
import time
import urllib.request

import pytest
import websockets

from conftest import run_cli
from wsutil import connect, expect_close, hello, recv, send


async def test_hello_ping_pong(bridge):
    ws, ack = await hello(bridge)
    assert ack["ok"] is True and ack["version"] == 1
    assert ack["server"]["id"] and ack["server"]["name"] and ack["versions"] == [1]
    await send(ws, {"kind": "ping", "nonce": "abc"})
    assert await recv(ws) == {"kind": "pong", "nonce": "abc"}
    await send(ws, {"kind": "ping", "nonce": "second", "extra": [1, 2]})  # unknown fields are ignored
    assert (await recv(ws))["nonce"] == "second"
    await ws.close()


async def test_wrong_token_gets_unauthorized_and_1008(bridge):
    ws, ack = await hello(bridge, token="not-the-secret")
    assert ack["ok"] is False and ack["error"]["code"] == "unauthorized"
    assert "not-the-secret" not in json.dumps(ack)
    assert (await expect_close(ws))[0] == 1008


async def test_missing_token_is_unauthorized(bridge):
    ws = await connect(bridge)
    await send(ws, {"kind": "hello", "version": 1})
    ack = await recv(ws)
    assert ack["ok"] is False and ack["error"]["code"] == "unauthorized"
    assert (await expect_close(ws))[0] == 1008


@pytest.mark.parametrize("frame", [
    json.dumps({"kind": "ping", "nonce": "x"}),
    json.dumps({"kind": "listThreads", "id": "1"}),
    "not json",
    b"\x01\x02binary",
])
async def test_frame_before_hello_closes_1008(bridge, frame):
    ws = await connect(bridge)
    await ws.send(frame)
    code, _ = await expect_close(ws)
    assert code == 1008


async def test_no_hello_in_time_closes_1008(bridge_factory):
    bridge = bridge_factory(args=["--hello-timeout", "0.5"])
    ws = await connect(bridge)
    started = time.monotonic()
    code, reason = await expect_close(ws, timeout=5)
    assert code == 1008 and "hello" in reason
    assert 0.4 < time.monotonic() - started < 4


async def test_oversized_message_closes_1009(bridge_factory):
    bridge = bridge_factory(args=["--max-message-bytes", "4096"])
    ws, ack = await hello(bridge)
    assert ack["ok"]
    await send(ws, {"kind": "ping", "nonce": "x" * 5000})
    code, _ = await expect_close(ws)
    assert code == 1009
    # A fragmented message over the limit is refused too, and the server is still fine afterwards.
    ws, _ = await hello(bridge)
    await ws.send(iter(["{\"kind\":\"ping\",\"nonce\":\"", "y" * 3000, "z" * 3000, "\"}"]))
    assert (await expect_close(ws))[0] == 1009
    ws, ack = await hello(bridge)
    assert ack["ok"]


async def test_default_limit_is_one_mebibyte(bridge):
    ws, _ = await hello(bridge)
    await send(ws, {"kind": "ping", "nonce": "x" * (900 * 1024)})
    assert len((await recv(ws))["nonce"]) == 900 * 1024
    await send(ws, {"kind": "ping", "nonce": "x" * (1024 * 1024)})
    assert (await expect_close(ws))[0] == 1009


async def test_bearer_good_upgrades_and_hello_may_omit_token(bridge):
    ws = await connect(bridge, additional_headers={"Authorization": f"Bearer {bridge.token}"})
    await send(ws, {"kind": "hello", "version": 1})
    ack = await recv(ws)
    assert ack["ok"] is True
    await send(ws, {"kind": "ping", "nonce": "b"})
    assert (await recv(ws))["kind"] == "pong"


async def test_bearer_bad_is_http_401(bridge):
    with pytest.raises(websockets.InvalidStatus) as info:
        await connect(bridge, additional_headers={"Authorization": "Bearer wrong"})
    assert info.value.response.status_code == 401
    with pytest.raises(websockets.InvalidStatus) as info:
        await connect(bridge, additional_headers={"Authorization": "Basic Zm9vOmJhcg=="})
    assert info.value.response.status_code == 401


async def test_versions(bridge):
    ws, ack = await hello(bridge, version=0)
    assert ack["ok"] is False and ack["error"]["code"] == "version_unsupported"
    assert (await expect_close(ws))[0] == 1008
    ws, ack = await hello(bridge, version=7)
    assert ack["ok"] is True and ack["version"] == 1


async def test_rate_limit_per_address(bridge):
    for _ in range(5):
        ws, ack = await hello(bridge, token="bad")
        assert ack["error"]["code"] == "unauthorized"
        await expect_close(ws)
    # The sixth failure from 127.0.0.1 is refused as rate limited...
    ws, ack = await hello(bridge, token="bad")
    assert ack["ok"] is False and ack["error"]["code"] == "rate_limited"
    assert (await expect_close(ws))[0] == 1008
    with pytest.raises(websockets.InvalidStatus) as info:
        await connect(bridge, additional_headers={"Authorization": "Bearer bad"})
    assert info.value.response.status_code == 429
    # ...but a valid credential from the same address is never throttled (issue 11, finding 5).
    ws, ack = await hello(bridge)
    assert ack["ok"] is True
    ws = await connect(bridge, additional_headers={"Authorization": f"Bearer {bridge.token}"})
    await ws.close()
    # Another address is not slowed down.
    started = time.monotonic()
    ws, ack = await hello(bridge, local_addr=("127.0.0.2", 0))
    assert ack["ok"] is True
    assert time.monotonic() - started < 1.0


async def test_errors_after_handshake_keep_connection_open(bridge):
    ws, _ = await hello(bridge)
    await ws.send("{not json")
    err = await recv(ws)
    assert err["kind"] == "error" and err["code"] == "bad_request" and "id" not in err
    await send(ws, {"kind": "launchRockets", "id": "r1"})
    err = await recv(ws)
    assert err == {"kind": "error", "id": "r1", "code": "unknown_kind", "message": err["message"]}
    await send(ws, {"kind": "startThread", "id": "s1", "cwd": 5})
    err = await recv(ws)
    assert err["id"] == "s1" and err["code"] == "bad_request"
    await send(ws, {"kind": "readThread", "threadId": "t"})
    err = await recv(ws)
    assert err["code"] == "bad_request" and "id" in err["message"]
    await send(ws, {"kind": "hello", "version": 1, "token": bridge.token})
    assert (await recv(ws))["code"] == "already_authenticated"
    await ws.send(b"\x00binary")
    assert (await recv(ws))["code"] == "bad_request"
    await send(ws, {"kind": "ping", "nonce": "still-open"})
    assert (await recv(ws))["nonce"] == "still-open"


async def test_sigterm_closes_clients_1001_and_exits_0(bridge):
    clients = [(await hello(bridge))[0] for _ in range(3)]
    closes = [asyncio.create_task(expect_close(ws)) for ws in clients]
    bridge.proc.send_signal(signal.SIGTERM)
    results = await asyncio.gather(*closes)
    assert [code for code, _ in results] == [1001, 1001, 1001]
    assert await asyncio.to_thread(bridge.proc.wait, 10) == 0


def test_healthz_needs_no_token(bridge):
    for path in ("/healthz", "/health"):
        with urllib.request.urlopen(f"http://127.0.0.1:{bridge.port}{path}", timeout=5) as response:
            assert response.status == 200
            assert json.loads(response.read())["status"] == "ok"


def test_secret_file_modes_and_never_logged(bridge_factory, tmp_path):
    bridge = bridge_factory(args=["--log-level", "trace"])
    secret = bridge.token
    assert len(secret) == 43  # 32 bytes, base64url without padding
    assert stat.S_IMODE(os.stat(bridge.state_dir / "token").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(bridge.state_dir).st_mode) == 0o700

    async def traffic():
        ws, _ = await hello(bridge)
        await ws.close()
        ws, _ = await hello(bridge, token=secret + "x")
        await expect_close(ws)
        ws = await connect(bridge, additional_headers={"Authorization": f"Bearer {secret}"})
        await send(ws, {"kind": "hello", "version": 1})
        await recv(ws)
        await ws.close()
    asyncio.run(traffic())
    assert bridge.stop() == 0
    log = bridge.log()
    assert "Client authenticated" in log
    assert secret not in log and secret[:16] not in log


async def test_token_rotate_takes_effect_within_2s(bridge):
    old = bridge.token
    result = run_cli("token", "rotate", state_dir=bridge.state_dir, check=True)
    new = result.stdout.strip()
    assert new != old and new == bridge.token
    assert run_cli("token", "show", state_dir=bridge.state_dir, check=True).stdout.strip() == new
    await asyncio.sleep(0.1)
    ws, ack = await hello(bridge, token=new)
    assert ack["ok"] is True
    ws, ack = await hello(bridge, token=old)
    assert ack["ok"] is False


def test_cli_errors_are_one_line_and_nonzero(tmp_path):
    result = run_cli("serve", "--listen", "nonsense:port", state_dir=tmp_path / "s")
    assert result.returncode != 0 and "--listen" in result.stderr
    result = run_cli("serve", "--log-level", "loud", state_dir=tmp_path / "s")
    assert result.returncode != 0 and "log-level" in result.stderr
    for cmd in (["--help"], ["serve", "--help"], ["token", "--help"], ["token", "rotate", "--help"]):
        result = run_cli(*cmd)
        assert result.returncode == 0 and "USAGE" in result.stdout.upper()


def test_port_in_use_is_a_clear_error(bridge, tmp_path):
    result = run_cli("serve", "--listen", f"127.0.0.1:{bridge.port}", "--no-qr", "--no-mdns", state_dir=tmp_path / "other")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines()[0] == (
        f"error: 127.0.0.1:{bridge.port} is already in use (by another program); stop it or choose --listen HOST:PORT")
    mine = run_cli("serve", "--listen", f"127.0.0.1:{bridge.port}", "--no-qr", "--no-mdns", state_dir=bridge.state_dir)
    assert mine.returncode == 1 and mine.stderr.splitlines()[0].startswith(
        f"error: 127.0.0.1:{bridge.port} is already in use (by codex-bridge pid {bridge.proc.pid}, serving this state directory)")


def test_explicit_codex_that_cannot_run_is_a_startup_error(tmp_path):
    result = run_cli("serve", "--codex", "/nonexistent/codex", "--listen", "127.0.0.1:0", "--no-qr", "--no-mdns",
                     state_dir=tmp_path / "s")
    assert result.returncode == 1
    assert result.stderr.splitlines()[0].startswith("error: --codex names /nonexistent/codex, which is not an executable file")


def test_serve_tightens_its_own_secret_and_refuses_someone_elses(bridge_factory, tmp_path):
    """Issue 17, item 5: serve accepted a 0644 token file silently."""
    bridge = bridge_factory()
    bridge.stop()
    token = bridge.state_dir / "token"
    token.chmod(0o644)
    bridge.start()
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    assert "was readable by others (mode 644); made it 0600" in bridge.log()
    bridge.stop()
    token.chmod(0o644)
    os.chown(token, 65534, 65534)  # another user's file: this user cannot tighten or trust it
    result = run_cli("serve", "--listen", "127.0.0.1:0", "--no-qr", "--no-mdns", state_dir=bridge.state_dir, timeout=20)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0].startswith(f"error: {token} is readable by others (mode 644) and belongs to uid 65534")
