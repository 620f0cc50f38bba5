"""Issue 25: scopes per device, pairings confirmed on the workstation, and the audit log — the real binary on real
sockets, the real codex against the scripted model, the CLI in its own processes."""
import asyncio
import json
import os
import select
import subprocess
import time
import unicodedata
import urllib.error
import urllib.request

from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from conftest import BIN, run_cli
from push_service import PushService, Subscriber
from test_codex import frames, request, until_turn_completed
from test_pairing import PHONE, TABLET
from test_push import post_action, start_approval, start_bridge, subscribe_device
from wsutil import connect, expect_close, hello, recv, send

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def cli_json(bridge, *args):
    return json.loads(run_cli(*args, "--json", state_dir=bridge.state_dir, check=True).stdout)


async def pair(bridge, device, *scope_args):
    """Pairs one device with `pair --scope …`; returns (deviceId, deviceToken, helloAck)."""
    summary = cli_json(bridge, "pair", *scope_args)
    ws, ack = await hello(bridge, token=summary["code"], extra={"device": device})
    assert ack["ok"] is True, ack
    await ws.close()
    return ack["deviceId"], ack["deviceToken"], ack


def http(bridge, method, path, token, body=None, headers=None):
    req = urllib.request.Request(f"http://127.0.0.1:{bridge.port}{path}", data=body, method=method,
                                 headers={"Authorization": f"Bearer {token}", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            status, data, kind = response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        status, data, kind = error.code, error.read(), error.headers.get("Content-Type", "")
    return status, json.loads(data) if kind.startswith("application/json") else data


def audit(bridge, *args):
    lines = run_cli("audit", "--json", *args, state_dir=bridge.state_dir, check=True).stdout.splitlines()
    return [json.loads(line) for line in lines]


async def approval_of(ws):
    async for msg in frames(ws):
        if msg["kind"] == "approvalRequest":
            return msg


async def test_scopes_are_enforced_end_to_end_with_the_real_codex(codex_bridge, model, workspace):
    bridge = codex_bridge
    watcher_id, watcher_token, watcher_ack = await pair(bridge, PHONE, "--scope", "observe")
    driver_id, driver_token, driver_ack = await pair(bridge, TABLET)
    assert watcher_ack["scopes"] == ["observe"] and driver_ack["scopes"] == ["observe", "operate", "approve"]
    listed = {d["id"]: d["scopes"] for d in cli_json(bridge, "devices", "list")}
    assert listed == {watcher_id: ["observe"], driver_id: ["observe", "operate", "approve"]}
    assert "observe,operate,approve" in run_cli("devices", "list", state_dir=bridge.state_dir, check=True).stdout
    _, secret_ack = await hello(bridge)
    assert secret_ack["scopes"] == ["observe", "operate", "approve", "publish", "run", "admin"]

    watcher, _ = await hello(bridge, token=watcher_token)
    driver, _ = await hello(bridge, token=driver_token)
    # The watcher may look but not act: nothing reaches Codex (the model is never asked).
    refused = await request(watcher, "startThread", cwd=str(workspace), prompt="delete everything")
    assert refused["kind"] == "error" and refused["code"] == "forbidden" and refused["scope"] == "operate", refused
    assert f"codex-bridge devices scope {watcher_id} observe,operate" in refused["message"]
    assert model.requests == []
    assert (await request(watcher, "subscribe", threadId="*"))["kind"] == "subscribed"
    assert (await request(watcher, "listThreads", limit=5))["kind"] == "threads"
    assert (await request(watcher, "listDevices"))["scope"] == "admin"

    # The driver starts a turn whose command needs approval; the watcher sees it and may not answer it.
    model.queue({"kind": "exec", "cmd": "touch approved.txt"}, {"kind": "message", "text": "done"})
    started = await request(driver, "startThread", cwd=str(workspace), prompt="make a file", approvalPolicy="untrusted")
    assert started["kind"] == "threadStarted", started
    thread_id = started["threadId"]
    approval = await approval_of(watcher)
    answer = await request(watcher, "approve", approvalId=approval["approvalId"], decision="accept")
    assert answer["code"] == "forbidden" and answer["scope"] == "approve", answer

    # The workstation lets the watcher approve: its open connection follows within 2 s (no reconnect).
    changed_at = time.monotonic()
    run_cli("devices", "scope", watcher_id, "observe,approve", state_dir=bridge.state_dir, check=True)
    async for msg in frames(watcher, timeout=5):
        if msg["kind"] == "scopesChanged":
            assert msg["scopes"] == ["observe", "approve"]
            break
    assert time.monotonic() - changed_at < 2.0
    answer = await request(watcher, "approve", approvalId=approval["approvalId"], decision="accept")
    assert answer["kind"] == "accepted", answer
    events, _ = await until_turn_completed(driver, thread_id)
    assert events[-1]["data"]["turn"]["status"] == "completed"
    assert (workspace / "approved.txt").exists()
    interrupt = await request(watcher, "interrupt", threadId=thread_id)
    assert interrupt["code"] == "forbidden" and interrupt["scope"] == "operate"

    # The HTTP routes ask the same gate: uploads need operate, downloads observe.
    status, body = await asyncio.to_thread(http, bridge, "POST", "/uploads", watcher_token, PNG, {"Content-Type": "image/png"})
    assert status == 403 and body["code"] == "forbidden" and body["scope"] == "operate", body
    status, body = await asyncio.to_thread(http, bridge, "POST", "/uploads", driver_token, PNG, {"Content-Type": "image/png"})
    assert status == 201 and body["mimeType"] == "image/png", body
    status, body = await asyncio.to_thread(http, bridge, "GET", f"/files?threadId={thread_id}&path=tracked.txt", watcher_token)
    assert (status, body) == (200, b"one\n")

    # The audit shows the session: who, from where, what, which thread, how it ended.
    entries = audit(bridge, "--since", "1h")
    rows = [(e["who"].split(" (")[0], e["kind"], e.get("threadId"), e["outcome"]) for e in entries]
    assert (PHONE["name"], "startThread", None, "forbidden") in rows
    assert (TABLET["name"], "startThread", thread_id, "ok") in rows
    assert (PHONE["name"], "approve", None, "forbidden") in rows
    assert ("workstation", "setDeviceScopes", None, "ok") in rows
    assert (PHONE["name"], "approve", thread_id, "ok") in rows
    assert (TABLET["name"], "upload", None, "ok") in rows and (PHONE["name"], "upload", None, "forbidden") in rows
    assert [e["kind"] for e in entries if e["kind"] == "pair"] == ["pair", "pair"]
    assert all(e["address"] == "127.0.0.1" for e in entries if e["actor"] == "device")
    assert not any(e["kind"] in ("listThreads", "subscribe", "readThread") for e in entries)
    mine = audit(bridge, "--device", watcher_id)
    assert mine and all(e.get("deviceId") == watcher_id for e in mine)
    table = run_cli("audit", state_dir=bridge.state_dir, check=True).stdout
    assert "TIME" in table and f"{PHONE['name']} ({watcher_id})" in table and "setDeviceScopes" in table
    for ws in (watcher, driver):
        await ws.close()


async def test_an_admin_device_manages_devices_from_the_phone(bridge):
    admin_id, admin_token, _ = await pair(bridge, PHONE, "--scope", "observe,admin")
    other_id, other_token, _ = await pair(bridge, TABLET)
    admin, _ = await hello(bridge, token=admin_token)
    other, _ = await hello(bridge, token=other_token)
    assert (await request(other, "listDevices"))["scope"] == "admin"
    devices = (await request(admin, "listDevices"))["devices"]
    by_id = {d["id"]: d for d in devices}
    assert by_id[admin_id]["current"] is True and by_id[other_id]["connected"] is True
    assert by_id[other_id]["scopes"] == ["observe", "operate", "approve"] and "tokenHash" not in json.dumps(devices)
    changed = await request(admin, "setDeviceScopes", deviceId=other_id, scopes=["observe"])
    assert changed["device"]["scopes"] == ["observe"]
    msg = await recv(other)
    assert msg == {"kind": "scopesChanged", "scopes": ["observe"]}
    code = await request(admin, "pairDevice", scopes=["observe", "approve"], ttl=120)
    assert code["kind"] == "pairingCode" and code["scopes"] == ["observe", "approve"] and len(code["code"]) == 10
    assert code["code"] not in bridge.log()
    _, third_ack = await hello(bridge, token=code["code"], extra={"device": {"name": "Third", "platform": "web"}})
    assert third_ack["ok"] and third_ack["scopes"] == ["observe", "approve"]
    revoked = await request(admin, "revokeDevice", deviceId=other_id)
    assert revoked["device"]["revoked"] is True
    assert await expect_close(other, timeout=3) == (1008, "device revoked")
    log = await request(admin, "listAudit", limit=10)
    kinds = [e["kind"] for e in log["entries"]]
    assert kinds[:3] == ["revokeDevice", "pair", "pairDevice"] and "setDeviceScopes" in kinds
    await admin.close()


async def pending_pairing(bridge, device=PHONE):
    """Redeems a fresh code on a bridge that confirms pairings; returns (ws, pairingPending)."""
    summary = cli_json(bridge, "pair")
    ws = await connect(bridge)
    await send(ws, {"kind": "hello", "version": 1, "token": summary["code"], "device": device})
    pending = await recv(ws)
    assert pending["kind"] == "pairingPending", pending
    assert len(pending["check"]) == 4 and pending["check"].isdigit()
    return ws, pending, summary["code"]


async def test_a_pairing_waits_for_the_workstation_and_allow_completes_it(bridge_factory):
    bridge = bridge_factory(args=["--confirm-pairing"])
    ws, pending, code = await pending_pairing(bridge)
    [waiting] = cli_json(bridge, "devices", "pending")
    assert waiting == {**waiting, "id": pending["deviceId"], "name": PHONE["name"], "platform": "ios", "address": "127.0.0.1",
                       "check": pending["check"], "scopes": ["observe", "operate", "approve"]}
    assert cli_json(bridge, "devices", "list") == []
    log = bridge.wait_log("Pairing waits for confirmation")
    assert pending["check"] in log and code not in log
    # The phone keeps waiting (a frame it sends meanwhile is ignored).
    await send(ws, {"kind": "listThreads", "id": "early"})
    await asyncio.sleep(0.5)

    # Allowing takes the check code the phone shows (issue 31): without it (and no terminal to ask on) or with
    # another phone's, nothing is allowed and the pairing keeps waiting.
    bare = run_cli("devices", "allow", pending["deviceId"], state_dir=bridge.state_dir)
    assert bare.returncode == 1 and "--check" in bare.stderr and "Allowed" not in bare.stdout, bare
    wrong = "1111" if pending["check"] == "0000" else "0000"
    refused = run_cli("devices", "allow", pending["deviceId"], "--check", wrong, state_dir=bridge.state_dir)
    assert refused.returncode == 1, refused
    assert refused.stderr.startswith(f"error: that is not the check code of pairing {pending['deviceId']}"), refused.stderr
    assert [p["id"] for p in cli_json(bridge, "devices", "pending")] == [pending["deviceId"]]
    allowed = run_cli("devices", "allow", pending["deviceId"], "--check", pending["check"], state_dir=bridge.state_dir, check=True)
    assert f"Allowed: device {pending['deviceId']}" in allowed.stdout
    ack = await recv(ws, timeout=5)
    assert ack["kind"] == "helloAck" and ack["ok"] is True, ack
    assert ack["deviceId"] == pending["deviceId"] and ack["deviceToken"] and ack["scopes"] == ["observe", "operate", "approve"]
    await send(ws, {"kind": "ping", "nonce": "after"})
    assert await recv(ws) == {"kind": "pong", "nonce": "after"}
    await ws.close()
    again, again_ack = await hello(bridge, token=ack["deviceToken"])
    assert again_ack["ok"] and again_ack["deviceId"] == pending["deviceId"]
    await again.close()
    assert [d["id"] for d in cli_json(bridge, "devices", "list")] == [pending["deviceId"]]
    assert cli_json(bridge, "devices", "pending") == []
    kinds = [(e["actor"], e["kind"]) for e in audit(bridge)]
    assert kinds[-3:] == [("device", "pairingRequested"), ("workstation", "allowPairing"), ("device", "pair")]


def allow_on_a_terminal(bridge, device_id, typed):
    """`devices allow ID` on a pseudo-terminal, typing `typed` when it asks for the check code; returns (exit
    status, what it printed before asking, everything it printed)."""
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CODEX_BRIDGE_HOME"}
    proc = subprocess.Popen([str(BIN), "devices", "allow", device_id, "--state-dir", str(bridge.state_dir)],
                            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    out, asked = b"", None
    deadline = time.monotonic() + 20
    try:
        while time.monotonic() < deadline:
            if asked is None and b"check code the phone shows" in out.lower():
                asked = out.decode(errors="replace")
                os.write(master, typed.encode() + b"\n")
            ready, _, _ = select.select([master], [], [], 0.2)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the command exited and closed the terminal
                break
            if not chunk:
                break
            out += chunk
        return proc.wait(timeout=10), asked, out.decode(errors="replace")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


async def test_devices_allow_on_a_terminal_asks_for_the_check_code(bridge_factory):
    bridge = bridge_factory(args=["--confirm-pairing"])
    ws, pending, _ = await pending_pairing(bridge)
    wrong = "1111" if pending["check"] == "0000" else "0000"
    status, asked, said = await asyncio.to_thread(allow_on_a_terminal, bridge, pending["deviceId"], wrong)
    # It shows which pairing it is (not its check code: that is for the person to read off the phone) and asks.
    assert asked is not None and PHONE["name"] in asked and "127.0.0.1" in asked and pending["check"] not in asked, said
    assert status == 1 and "that is not the check code" in said and "Allowed" not in said, said
    assert [p["id"] for p in cli_json(bridge, "devices", "pending")] == [pending["deviceId"]]
    spaced = " ".join(pending["check"])  # as the phone shows it
    status, asked, said = await asyncio.to_thread(allow_on_a_terminal, bridge, pending["deviceId"], spaced)
    assert status == 0 and f"Allowed: device {pending['deviceId']}" in said, said
    ack = await recv(ws, timeout=5)
    assert ack["kind"] == "helloAck" and ack["ok"] is True, ack
    await ws.close()


async def test_deny_closes_the_phone_and_nothing_is_stored(bridge_factory):
    bridge = bridge_factory(args=["--confirm-pairing"])
    ws, pending, _ = await pending_pairing(bridge)
    denied = run_cli("devices", "deny", pending["deviceId"], state_dir=bridge.state_dir, check=True)
    assert "Denied" in denied.stdout
    ack = await recv(ws, timeout=5)
    assert ack["ok"] is False and ack["error"]["code"] == "pairing_denied", ack
    assert await expect_close(ws) == (1008, "pairing denied")
    assert cli_json(bridge, "devices", "list") == [] and cli_json(bridge, "devices", "pending") == []
    again = run_cli("devices", "allow", pending["deviceId"], state_dir=bridge.state_dir)
    assert again.returncode == 1 and again.stderr.startswith("error: no pairing waits for confirmation")


async def test_an_unconfirmed_or_abandoned_pairing_leaves_nothing(bridge_factory):
    bridge = bridge_factory(args=["--confirm-pairing", "--confirm-pairing-timeout", "2s"])
    ws, pending, _ = await pending_pairing(bridge)
    started = time.monotonic()
    ack = await recv(ws, timeout=6)
    assert ack["ok"] is False and ack["error"]["code"] == "pairing_expired", ack
    assert await expect_close(ws) == (1008, "pairing not confirmed")
    assert 1.5 < time.monotonic() - started < 4
    # A phone that goes away while waiting: its pairing is forgotten at once.
    ws, second, _ = await pending_pairing(bridge, TABLET)
    await ws.close()
    deadline = time.monotonic() + 2
    while cli_json(bridge, "devices", "pending") and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert cli_json(bridge, "devices", "pending") == [] and cli_json(bridge, "devices", "list") == []
    kinds = [e["kind"] for e in audit(bridge)]
    assert "pairingExpired" in kinds and "pairingAbandoned" in kinds


async def test_notification_actions_obey_the_approve_scope(bridge_factory, model, codex_home, workspace):
    service = PushService().start()
    try:
        bridge = start_bridge(bridge_factory, model, codex_home, workspace, "--push-delay", "1s")
        watcher_id, watcher_token, _ = await pair(bridge, PHONE, "--scope", "observe")
        approver_id, approver_token, _ = await pair(bridge, TABLET)
        watcher_sub, approver_sub = Subscriber(), Subscriber()
        for token, subscriber, name in ((watcher_token, watcher_sub, "watcher"), (approver_token, approver_sub, "approver")):
            ws, _, _ = await subscribe_device(bridge, token, subscriber, service.endpoint(name))
            await ws.close()  # away: pushed at once
        desk, _ = await hello(bridge)
        thread_id, approval = await start_approval(desk, workspace, model)
        [to_watcher] = service.wait(1, "/push/watcher", timeout=20)
        [to_approver] = service.wait(1, "/push/approver", timeout=20)
        # Only a device that may approve gets the buttons (its action token).
        assert "token" not in watcher_sub.decrypt(to_watcher["body"])
        token = approver_sub.decrypt(to_approver["body"])["token"]
        # Taken away meanwhile: the token no longer answers, and nothing changes.
        run_cli("devices", "scope", approver_id, "observe", state_dir=bridge.state_dir, check=True)
        status, answer = await asyncio.to_thread(post_action, bridge, {"token": token, "decision": "accept"})
        assert status == 403 and answer["code"] == "forbidden" and answer["scope"] == "approve", answer
        accepted = await request(desk, "approve", approvalId=approval["approvalId"], decision="decline")
        assert accepted["kind"] == "accepted", accepted
        await until_turn_completed(desk, thread_id)
        assert not (workspace / "approved.txt").exists()
        notified = [e for e in audit(bridge) if e["actor"] == "notification"]
        assert [(e["deviceId"], e["outcome"]) for e in notified] == [(approver_id, "forbidden")]
        await desk.close()
    finally:
        service.stop()


async def test_a_valid_code_waiting_for_confirmation_is_no_failed_attempt(bridge_factory):
    """Regression: a pairing that waits for the workstation counted as a failed authentication, so five of them
    from one address (a household behind one NAT) rate-limited the sixth phone."""
    bridge = bridge_factory(args=["--confirm-pairing"])
    waiting = [await pending_pairing(bridge, {"name": f"Phone {n}", "platform": "web"}) for n in range(5)]
    ws, ack = await hello(bridge, token="ABCDE-FGHJK")
    assert ack["ok"] is False and ack["error"]["code"] == "unauthorized", ack
    for sock, _, _ in waiting:
        await sock.close()


async def test_commands_need_run_and_a_push_needs_publish_with_the_real_codex(codex_bridge, model, workspace):
    """The scopes of the git and command requests: a phone paired with the standard scopes may look at git status
    and commit, but not run `!commands` (run) nor push (publish) until the workstation says so."""
    from test_commands import run_to_exit

    bridge = codex_bridge
    phone_id, phone_token, _ = await pair(bridge, PHONE)
    model.queue({"kind": "message", "text": "ready"})
    ws, _ = await hello(bridge, token=phone_token)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hi")
    thread = started["threadId"]
    await until_turn_completed(ws, thread)
    assert (await request(ws, "gitStatus", threadId=thread))["kind"] == "gitStatus"
    refused = await request(ws, "runCommand", threadId=thread, command="touch ran.txt")
    assert refused["code"] == "forbidden" and refused["scope"] == "run", refused
    pushed = await request(ws, "gitPush", threadId=thread)
    assert pushed["code"] == "forbidden" and pushed["scope"] == "publish", pushed
    await asyncio.sleep(0.5)
    assert not (workspace / "ran.txt").exists()

    run_cli("devices", "scope", phone_id, "observe,operate,approve,run", state_dir=bridge.state_dir, check=True)
    async for msg in frames(ws, timeout=5):
        if msg["kind"] == "scopesChanged":
            break
    _, _, exited, _ = await run_to_exit(ws, thread, "touch ran.txt")
    assert exited["exitCode"] == 0 and (workspace / "ran.txt").exists()
    kinds = [(e["kind"], e["outcome"]) for e in audit(bridge, "--device", phone_id)]
    assert ("runCommand", "forbidden") in kinds and ("gitPush", "forbidden") in kinds and ("runCommand", "ok") in kinds
    await ws.close()


def raw_controls(text):
    """The characters of the one escaping rule (Unicode Cc, Cf, Zl, Zp) in `text`, newlines aside."""
    return [c for c in text if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]


async def test_a_device_can_neither_drive_the_owners_terminal_nor_flush_the_audit_log(bridge):
    """Regression (issue 31, findings 6 and 7): an observe-only device put escape sequences on the owner's terminal
    through `codex-bridge audit` and `devices list` (a thread id it sent, its name, printed raw), and each refusal
    was a row of its own, so a flood pushed everything else out of the log. Now every printed string is escaped,
    and alike refusals share one row with a count. Cost: ~2 s."""
    # The registry drops Cc and Cf from a device's name, but a line separator got through.
    device = {"name": "Ana\u2028FAKE\u2029line", "platform": "i\u2028os"}
    watcher_id, watcher_token, _ = await pair(bridge, device, "--scope", "observe")
    run_cli("devices", "scope", watcher_id, "observe", state_dir=bridge.state_dir, check=True)
    ws, _ = await hello(bridge, token=watcher_token)
    hostile = "\u202e\u200b\x1b[2J\u009b\x1b]52;c;Y3VybCB4fHNo\x07"
    flood, batch = 400, 25  # a connection may have 64 requests in flight
    for start in range(0, flood, batch):
        for index in range(start, start + batch):
            await send(ws, {"kind": "startThread", "id": f"s{index}", "cwd": "/srv/" + hostile, "prompt": "x"})
            await send(ws, {"kind": "interrupt", "id": f"i{index}", "threadId": f"{hostile}{index}"})
        refused = 0
        while refused < 2 * batch:
            msg = await recv(ws, 30)
            if msg["kind"] == "error":
                assert msg["code"] == "forbidden", msg
                refused += 1
    await ws.close()

    text = run_cli("audit", state_dir=bridge.state_dir, check=True).stdout
    assert raw_controls(text) == [], text
    assert "Ana\\u{2028}FAKE\\u{2029}line" in text and "\\u{202E}\\u{200B}\\u{1B}[2J\\u{9B}" in text, text
    json_text = run_cli("audit", "--json", state_dir=bridge.state_dir, check=True).stdout
    assert raw_controls(json_text) == [], json_text
    entries = [json.loads(line) for line in json_text.splitlines()]
    mine = [e for e in entries if e.get("deviceId") == watcher_id and e["outcome"] == "forbidden"]
    assert sorted((e["kind"], e["count"]) for e in mine) == [("interrupt", flood), ("startThread", flood)], mine
    assert next(e for e in mine if e["kind"] == "interrupt")["threadId"] == hostile + "0"
    # What matters is still there, beside two rows.
    assert [e["kind"] for e in entries if e.get("deviceId") == watcher_id and e["outcome"] == "ok"] == ["pair", "setDeviceScopes"]
    assert "COUNT" in text.splitlines()[0] and f" {flood} " in text
    for listing in ("list", "pending"):
        shown = run_cli("devices", listing, state_dir=bridge.state_dir, check=True).stdout
        assert raw_controls(shown) == [], shown
    listed = run_cli("devices", "list", "--json", state_dir=bridge.state_dir, check=True).stdout
    assert raw_controls(listed) == [] and json.loads(listed)[0]["name"] == device["name"], listed
