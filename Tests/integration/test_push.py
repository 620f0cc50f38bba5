"""Issue 14: Web Push to away devices (RFC 8030/8291/8292), Approve / Decline from the notification through
POST /push/action, ntfy. The real bridge and the real codex against the scripted model; the push service and
ntfy are written here (push_service.py) and listen on 127.0.0.1."""
import asyncio
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from codex_fixture import bridge_codex_args, codex_bin, codex_home, model, workspace  # noqa: F401 (fixtures)
from mock_model import codex_env
from push_service import PushService, Subscriber, unb64url, verify_vapid
from test_codex import frames, request, until_turn_completed
from test_pairing import PHONE, TABLET, pair_device
from wsutil import hello


@pytest.fixture
def push_service():
    service = PushService().start()
    yield service
    service.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_bridge(bridge_factory, model, codex_home, workspace, *extra, port=0, env=None, allow_local_push=True):
    """A bridge with push on; the local push service (http on 127.0.0.1) is allowed unless `allow_local_push` is
    False (then only public https endpoints are)."""
    env = env or codex_env(codex_home)
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port), "--push-subject",
            "mailto:test@example.org", *(["--allow-push-host", "127.0.0.1"] if allow_local_push else []), *extra]
    return bridge_factory(name="push-state", args=args, env=env, listen=f"127.0.0.1:{port}")


def metric(text, name, labels):
    for line in text.splitlines():
        series, _, value = line.rpartition(" ")
        if not line.startswith("#") and series.split("{", 1)[0] == name and labels in series:
            return float(value)
    return None


def post_action(bridge, body, headers=None):
    """POST /push/action; returns (status, JSON answer)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{bridge.port}/push/action", data=data, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def subscribe_device(bridge, device_token, subscriber, endpoint, events=None, visible=None):
    """Connects as a paired device and subscribes; returns (ws, ack, subscriptionId)."""
    ws, ack = await hello(bridge, token=device_token)
    assert ack["ok"], ack
    fields = {"subscription": subscriber.subscription(endpoint)}
    if events is not None:
        fields["events"] = events
    answer = await request(ws, "pushSubscribe", **fields)
    assert answer["kind"] == "pushSubscribed", answer
    if visible is not None:
        assert (await request(ws, "presence", visible=visible))["kind"] == "accepted"
    return ws, ack, answer["subscriptionId"]


async def start_approval(ws, workspace, model, cmd="touch approved.txt"):
    """Starts a thread whose first command needs approval; returns (threadId, approvalRequest)."""
    model.queue({"kind": "exec", "cmd": cmd}, {"kind": "message", "text": "All done.\nSecond line."})
    started = await request(ws, "startThread", cwd=str(workspace), prompt="make a file", approvalPolicy="untrusted")
    assert started["kind"] == "threadStarted", started
    async for msg in frames(ws):
        if msg["kind"] == "approvalRequest":
            return started["threadId"], msg


async def test_away_device_gets_an_encrypted_signed_push_and_approves_from_it(bridge_factory, model, codex_home, workspace,
                                                                              push_service):
    bridge = start_bridge(bridge_factory, model, codex_home, workspace, "--push-delay", "1s")
    device_id, device_token = await pair_device(bridge, PHONE)
    phone = Subscriber()
    ws, ack, subscription_id = await subscribe_device(bridge, device_token, phone, push_service.endpoint("phone"))
    key = ack["server"]["pushPublicKey"]
    assert len(unb64url(key)) == 65 and unb64url(key)[0] == 4
    await ws.close()  # the phone is away: no connection

    desk, desk_ack = await hello(bridge)  # the workstation's own client (shared secret)
    assert desk_ack["server"]["pushPublicKey"] == key
    thread_id, approval = await start_approval(desk, workspace, model)
    [push] = push_service.wait(1, "/push/phone", timeout=20)
    headers = {k.lower(): v for k, v in push["headers"].items()}
    assert headers["content-encoding"] == "aes128gcm"
    assert headers["urgency"] == "high" and 0 < int(headers["ttl"]) <= 15 * 60
    claims = verify_vapid(headers["authorization"], key, push_service.origin)
    assert claims["sub"] == "mailto:test@example.org"
    payload = phone.decrypt(push["body"])
    assert len(json.dumps(payload).encode()) <= 3072
    assert payload["type"] == "approval" and payload["title"] == "Approval needed"
    assert "touch approved.txt" in payload["body"]
    assert payload["approvalId"] == approval["approvalId"] and payload["threadId"] == thread_id
    assert payload["tag"] == f"approval-{approval['approvalId']}" and payload["actionPath"] == "/push/action"
    token = payload["token"]
    assert token not in bridge.log()

    status, answer = await asyncio.to_thread(post_action, bridge, {"token": token, "decision": "accept"})
    assert status == 200 and answer == {"ok": True, "approvalId": approval["approvalId"], "decision": "accept"}, answer
    events, others = await until_turn_completed(desk, thread_id)
    resolved = [m for m in others if m["kind"] == "approvalResolved"]
    assert resolved and resolved[0]["decision"] == "accept" and resolved[0]["deviceId"] == device_id
    assert (workspace / "approved.txt").exists()
    # Single use: the same token again is refused and changes nothing.
    status, answer = await asyncio.to_thread(post_action, bridge, {"token": token, "decision": "decline"})
    assert status == 403 and answer["code"] == "unauthorized", answer
    # The notification is replaced (same tag) by "Approved on <device>", then the finished turn is pushed.
    pushes = push_service.wait(3, "/push/phone", timeout=20)
    decoded = [phone.decrypt(p["body"]) for p in pushes]
    follow = next(p for p in decoded if p["type"] == "resolved")
    assert follow["title"] == "Approved on Ana's Phone" and follow["tag"] == payload["tag"] and "token" not in follow
    done = next(p for p in decoded if p["type"] == "turnCompleted")
    assert done["title"] == "Turn completed" and done["body"].endswith("All done.") and "Second line" not in done["body"]
    # /metrics counts them.
    request_metrics = urllib.request.Request(f"http://127.0.0.1:{bridge.port}/metrics",
                                             headers={"Authorization": f"Bearer {bridge.token}"})
    with urllib.request.urlopen(request_metrics, timeout=10) as response:
        body = response.read().decode()
    assert metric(body, "codex_bridge_pushes_total", 'outcome="delivered"') >= 3
    assert metric(body, "codex_bridge_push_actions_total", 'result="answered"') == 1
    assert metric(body, "codex_bridge_push_actions_total", 'result="refused"') == 1
    # Revoking the device deletes its subscription.
    from conftest import run_cli
    run_cli("devices", "revoke", device_id, state_dir=bridge.state_dir, check=True)
    import sqlite3
    with sqlite3.connect(bridge.state_dir / "bridge.sqlite") as db:
        assert db.execute("SELECT count(*) FROM pushSubscription").fetchone()[0] == 0
    await desk.close()


async def test_retry_after_then_gone_drops_the_subscription(bridge_factory, model, codex_home, workspace, push_service):
    bridge = start_bridge(bridge_factory, model, codex_home, workspace, "--push-delay", "1s")
    _, device_token = await pair_device(bridge, PHONE)
    phone = Subscriber()
    ws, _, subscription_id = await subscribe_device(bridge, device_token, phone, push_service.endpoint("p"),
                                                    events=["turnCompleted"])
    await ws.close()
    push_service.script((429, {"Retry-After": "2"}), (201, {}), (410, {}))
    desk, _ = await hello(bridge)
    model.queue({"kind": "message", "text": "First."})
    started = await request(desk, "startThread", cwd=str(workspace), prompt="one")
    await until_turn_completed(desk, started["threadId"])
    first, second = push_service.wait(2, "/push/p")
    assert first["status"] == 429 and second["status"] == 201
    assert second["at"] - first["at"] >= 1.9, "Retry-After was not honoured"
    assert phone.decrypt(second["body"])["body"].endswith("First.")
    assert (await request(desk, "sendMessage", threadId=started["threadId"], text="two"))["kind"] == "accepted"
    model.queue({"kind": "message", "text": "Second."})
    await until_turn_completed(desk, started["threadId"])
    assert push_service.wait(3, "/push/p")[2]["status"] == 410
    bridge.wait_log("Push subscription dropped")
    with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{bridge.port}/metrics",
                                                       headers={"Authorization": f"Bearer {bridge.token}"}), timeout=10) as r:
        body = r.read().decode()
    assert metric(body, "codex_bridge_pushes_total", 'outcome="gone"') == 1
    assert metric(body, "codex_bridge_pushes_total", 'outcome="delivered"') == 1
    # Gone: no more pushes, and the device no longer holds it.
    model.queue({"kind": "message", "text": "Third."})
    await request(desk, "sendMessage", threadId=started["threadId"], text="three")
    await until_turn_completed(desk, started["threadId"])
    await asyncio.sleep(1.5)
    assert len(push_service.seen("/push/p")) == 3
    ws, _ = await hello(bridge, token=device_token)
    gone = await request(ws, "pushUnsubscribe", subscriptionId=subscription_id)
    assert gone["kind"] == "error" and gone["code"] == "not_found"
    await ws.close()
    await desk.close()


async def test_presence_visible_hidden_and_answered_during_the_delay(bridge_factory, model, codex_home, workspace,
                                                                    push_service):
    bridge = start_bridge(bridge_factory, model, codex_home, workspace, "--push-delay", "3s")
    _, device_token = await pair_device(bridge, PHONE)
    phone = Subscriber()
    ws, _, _ = await subscribe_device(bridge, device_token, phone, push_service.endpoint("v"), events=["approval"],
                                      visible=True)
    # Visible: the page shows the approval; no push.
    thread_id, approval = await start_approval(ws, workspace, model, cmd="touch one.txt")
    await asyncio.sleep(4)
    assert push_service.seen("/push/v") == []
    assert (await request(ws, "approve", approvalId=approval["approvalId"], decision="accept"))["kind"] == "accepted"
    await until_turn_completed(ws, thread_id)
    # Hidden and answered during the delay: no push.
    assert (await request(ws, "presence", visible=False))["kind"] == "accepted"
    _, approval = await start_approval(ws, workspace, model, cmd="touch two.txt")
    assert (await request(ws, "approve", approvalId=approval["approvalId"], decision="decline"))["kind"] == "accepted"
    await asyncio.sleep(4)
    assert push_service.seen("/push/v") == []
    # Hidden and not answered: pushed after the delay.
    asked = time.monotonic()
    thread_id, approval = await start_approval(ws, workspace, model, cmd="touch three.txt")
    [push] = push_service.wait(1, "/push/v", timeout=20)
    assert push["at"] - asked >= 2.5
    assert phone.decrypt(push["body"])["approvalId"] == approval["approvalId"]
    assert (await request(ws, "approve", approvalId=approval["approvalId"], decision="decline"))["kind"] == "accepted"
    await until_turn_completed(ws, thread_id)
    pushed = len(push_service.seen("/push/v"))  # the approval and its follow-up
    # Hidden, looked at during the delay, hidden again: it was seen; no push.
    thread_id, approval = await start_approval(ws, workspace, model, cmd="touch four.txt")
    assert (await request(ws, "presence", visible=True))["kind"] == "accepted"
    assert (await request(ws, "presence", visible=False))["kind"] == "accepted"
    await asyncio.sleep(4)
    assert len(push_service.seen("/push/v")) == pushed
    await ws.close()


async def test_action_tokens_refused_when_expired_foreign_or_resolved(bridge_factory, model, codex_home, workspace,
                                                                      push_service):
    bridge = start_bridge(bridge_factory, model, codex_home, workspace, "--push-delay", "1s", "--push-token-lifetime", "3s")
    phone_id, phone_token = await pair_device(bridge, PHONE)
    tablet_id, tablet_token = await pair_device(bridge, TABLET)
    phone, tablet = Subscriber(), Subscriber()
    ws, _, _ = await subscribe_device(bridge, phone_token, phone, push_service.endpoint("phone"), events=["approval"])
    await ws.close()
    ws, _, _ = await subscribe_device(bridge, tablet_token, tablet, push_service.endpoint("tablet"), events=["approval"])
    await ws.close()
    desk, _ = await hello(bridge)
    thread_id, approval = await start_approval(desk, workspace, model)
    phone_token_a = phone.decrypt(push_service.wait(1, "/push/phone")[0]["body"])["token"]
    tablet_token_a = tablet.decrypt(push_service.wait(1, "/push/tablet")[0]["body"])["token"]
    # Bad bodies: 422 with a JSON error.
    status, answer = await asyncio.to_thread(post_action, bridge, b"not json")
    assert status == 422 and answer["code"] == "bad_request" and "token" in answer["message"], answer
    status, answer = await asyncio.to_thread(post_action, bridge, {"token": phone_token_a, "decision": "maybe"})
    assert status == 422 and answer["code"] == "bad_request"
    # Another device's token (the tablet presents the phone's): refused, and the phone's token still works later.
    status, answer = await asyncio.to_thread(post_action, bridge, {"token": phone_token_a, "decision": "accept"},
                                             {"Authorization": f"Bearer {tablet_token}"})
    assert status == 403 and answer["code"] == "unauthorized"
    # A token for another approval id: refused.
    status, _ = await asyncio.to_thread(post_action, bridge, {"token": tablet_token_a, "decision": "accept",
                                                              "approvalId": "ap-other"})
    assert status == 403
    # Expired (lifetime 3 s): refused, nothing changes.
    await asyncio.sleep(3.5)
    status, _ = await asyncio.to_thread(post_action, bridge, {"token": phone_token_a, "decision": "accept"})
    assert status == 403
    assert not (workspace / "approved.txt").exists()
    # Still pending: the desk answers; a token for the resolved approval is refused.
    assert (await request(desk, "approve", approvalId=approval["approvalId"], decision="decline"))["kind"] == "accepted"
    await until_turn_completed(desk, thread_id)
    _, approval2 = await start_approval(desk, workspace, model, cmd="touch later.txt")

    async def token_for(subscriber, path):
        for _ in range(200):
            fresh = [subscriber.decrypt(p["body"]) for p in push_service.seen(path)]
            found = next((p["token"] for p in fresh if p.get("approvalId") == approval2["approvalId"] and p["type"] == "approval"), None)
            if found:
                return found
            await asyncio.sleep(0.1)
        raise AssertionError(f"no push for {approval2['approvalId']} at {path}")

    token2 = await token_for(tablet, "/push/tablet")
    # A device revoked after its notification was sent cannot answer with it.
    phone_token2 = await token_for(phone, "/push/phone")
    from conftest import run_cli
    run_cli("devices", "revoke", phone_id, state_dir=bridge.state_dir, check=True)
    status, answer = await asyncio.to_thread(post_action, bridge, {"token": phone_token2, "decision": "accept"})
    assert status == 403 and "revoked" in answer["message"], answer
    assert (await request(desk, "approve", approvalId=approval2["approvalId"], decision="decline"))["kind"] == "accepted"
    status, answer = await asyncio.to_thread(post_action, bridge, {"token": token2, "decision": "accept"})
    assert status == 403, answer
    assert not (workspace / "later.txt").exists()
    await desk.close()


class FakeNtfy:
    def __init__(self):
        self.posts = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                service.posts.append({"path": self.path, "headers": dict(self.headers.items()), "body": body})
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count, timeout=20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.posts) >= count:
                return self.posts
            time.sleep(0.05)
        raise AssertionError(f"ntfy got {len(self.posts)} posts")


async def test_ntfy_gets_title_priority_and_working_action_buttons(bridge_factory, model, codex_home, workspace):
    ntfy, hook = FakeNtfy(), FakeNtfy()
    port = free_port()
    topic = f"ntfy:http://127.0.0.1:{ntfy.server.server_address[1]}/codex-topic?auth=tk_SECRETTOKEN"
    webhook = f"http://127.0.0.1:{hook.server.server_address[1]}/hook/SECRETPATH"
    bridge = start_bridge(bridge_factory, model, codex_home, workspace, "--notify-url", topic, "--notify-url", webhook,
                          "--notify-action-url", f"http://127.0.0.1:{port}", port=port)
    desk, _ = await hello(bridge)
    await request(desk, "presence", visible=False)
    thread_id, approval = await start_approval(desk, workspace, model)
    post = ntfy.wait(1)[0]
    headers = {k.lower(): v for k, v in post["headers"].items()}
    assert post["path"].startswith("/codex-topic?auth=tk_SECRETTOKEN")
    assert headers["title"] == "Approval needed" and headers["priority"] == "5" and "warning" in headers["tags"]
    assert "touch approved.txt" in post["body"].decode()
    actions = headers["actions"]
    assert actions.count("http, ") == 2 and f"http://127.0.0.1:{port}/push/action" in actions
    body = actions.split("body='", 1)[1].split("'", 1)[0]
    approve = json.loads(body)
    assert approve["decision"] == "accept"
    status, answer = await asyncio.to_thread(post_action, bridge, approve)
    assert status == 200 and answer["approvalId"] == approval["approvalId"]
    status, _ = await asyncio.to_thread(post_action, bridge, approve)
    assert status == 403
    await until_turn_completed(desk, thread_id)
    assert (workspace / "approved.txt").exists()
    assert "tk_SECRETTOKEN" not in bridge.log() and "codex-topic" not in bridge.log() and "SECRETPATH" not in bridge.log()
    # The webhook got the same events as JSON: the approval (with its own action token) and the finished turn.
    posts = hook.wait(2)
    bodies = [json.loads(p["body"]) for p in posts]
    assert all(p["headers"].get("Content-Type") == "application/json" for p in posts)
    asked = next(b for b in bodies if b["event"] == "approval")
    assert asked["approvalId"] == approval["approvalId"] and asked["threadId"] == thread_id
    assert asked["title"] == "Approval needed" and "touch approved.txt" in asked["text"]
    assert asked["actionUrl"] == f"http://127.0.0.1:{port}/push/action" and asked["actionToken"] != approve["token"]
    # That token died with the approval.
    status, _ = await asyncio.to_thread(post_action, bridge, {"token": asked["actionToken"], "decision": "decline"})
    assert status == 403
    done = next(b for b in bodies if b["event"] == "turnCompleted")
    assert done["threadId"] == thread_id and done["text"].endswith("All done.")
    await desk.close()
    ntfy.server.shutdown()
    hook.server.shutdown()


async def test_push_requests_are_checked(bridge_factory, model, codex_home, workspace, push_service):
    bridge = start_bridge(bridge_factory, model, codex_home, workspace)
    _, device_token = await pair_device(bridge, PHONE)
    ws, _ = await hello(bridge, token=device_token)
    sub = Subscriber()
    for endpoint in ["http://push.example/x", "ftp://127.0.0.1/x", "not a url"]:
        answer = await request(ws, "pushSubscribe", subscription=sub.subscription(endpoint))
        assert answer["kind"] == "error" and answer["code"] == "bad_request" and "https" in answer["message"], answer
    bad_keys = sub.subscription(push_service.endpoint("x"))
    bad_keys["keys"]["p256dh"] = "AAAA"
    answer = await request(ws, "pushSubscribe", subscription=bad_keys)
    assert answer["code"] == "bad_request" and "p256dh" in answer["message"]
    answer = await request(ws, "pushSubscribe", subscription=sub.subscription(push_service.endpoint("x")), events=["all"])
    assert answer["code"] == "bad_request"
    answer = await request(ws, "pushSubscribe", subscription={"endpoint": 5})
    assert answer["code"] == "bad_request"
    # The connection survives its bad requests.
    ok = await request(ws, "pushSubscribe", subscription=sub.subscription(push_service.endpoint("x")))
    assert ok["kind"] == "pushSubscribed"
    assert (await request(ws, "pushUnsubscribe", subscriptionId=ok["subscriptionId"]))["kind"] == "accepted"
    assert (await request(ws, "pushUnsubscribe", subscriptionId=ok["subscriptionId"]))["code"] == "not_found"
    await ws.close()
    key_file = bridge.state_dir / "push-vapid.pem"
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"


async def test_shared_secret_clients_cannot_subscribe(bridge_factory, model, codex_home, workspace, push_service):
    bridge = start_bridge(bridge_factory, model, codex_home, workspace)
    ws, ack = await hello(bridge, extra={"clientId": "web-static-1"})
    assert ack["server"]["pushPublicKey"]
    answer = await request(ws, "pushSubscribe", subscription=Subscriber().subscription(push_service.endpoint("x")))
    assert answer["kind"] == "error" and answer["code"] == "forbidden" and "paired device" in answer["message"]
    await ws.close()


async def test_no_push_turns_it_off(bridge_factory, model, codex_home, workspace, push_service):
    bridge = start_bridge(bridge_factory, model, codex_home, workspace, "--no-push")
    ws, ack = await hello(bridge)
    assert "pushPublicKey" not in ack["server"]
    answer = await request(ws, "pushSubscribe", subscription=Subscriber().subscription(push_service.endpoint("x")))
    assert answer["kind"] == "error" and answer["code"] == "forbidden"
    assert not (bridge.state_dir / "push-vapid.pem").exists()
    await ws.close()


@pytest.mark.parametrize("text,needle", [
    ('push_delay = "soon"\n', "push_delay must be a duration"),
    ('notify = ["mailto:ana@example.org"]\n', "notify must be an http(s) URL"),
    ('push_subject = "ana@example.org"\n', "push_subject must be a mailto: or https:// URI"),
    ('notify_action_url = "phone"\n', "notify_action_url must be an http(s) base URL"),
    ('inhibit = "no"\n', "inhibit must be true or false"),
])
def test_bad_push_settings_in_the_config_are_one_clear_error(tmp_path, text, needle):
    from conftest import run_cli
    state = tmp_path / "state"
    state.mkdir()
    (state / "config.toml").write_text("# notifications\n" + text)
    result = run_cli("serve", "--no-qr", "--no-mdns", "--listen", "127.0.0.1:0", state_dir=state, timeout=30)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines()[0].startswith(f"error: {state / 'config.toml'}:2: ") and needle in result.stderr, result.stderr


@pytest.mark.parametrize("flag,value,needle", [
    ("--push-subject", "ana", "--push-subject must be a mailto: or https:// URI"),
    ("--notify-url", "ftp://x/y", "--notify-url must be an http(s) URL"),
    ("--push-delay", "2h", "--push-delay must be at most 1h"),
])
def test_bad_push_flags_are_usage_errors(tmp_path, flag, value, needle):
    from conftest import run_cli
    result = run_cli("serve", flag, value, "--no-qr", "--no-mdns", "--listen", "127.0.0.1:0", state_dir=tmp_path / "s", timeout=10)
    assert result.returncode == 2 and needle in result.stderr, (result.returncode, result.stderr)


async def test_push_off_from_the_config_file(bridge_factory):
    """push = false in config.toml turns Web Push off."""
    b = bridge_factory(name="cfg-state", start=False)
    b.state_dir.mkdir(parents=True, exist_ok=True)
    (b.state_dir / "config.toml").write_text('push = false\n')
    b.start()
    ws, ack = await hello(b)
    assert "pushPublicKey" not in ack["server"]
    await ws.close()


async def test_a_device_cannot_aim_the_bridge_at_local_or_private_addresses(bridge_factory, model, codex_home, workspace,
                                                                           push_service):
    """Issue 22 finding 2. Seen failing before the fix: every endpoint below was accepted, and the bridge then
    POSTed to it when a turn ended (a local service's kill URL included)."""
    bridge = start_bridge(bridge_factory, model, codex_home, workspace, "--push-delay", "1s", allow_local_push=False)
    _, device_token = await pair_device(bridge, PHONE)
    ws, ack = await hello(bridge, token=device_token)
    phone = Subscriber()
    port = push_service.server.server_address[1]
    for endpoint in (push_service.endpoint("plain-http"), f"https://127.0.0.1:{port}/v1.41/containers/victim/kill?signal=KILL",
                     f"https://localhost:{port}/x", "https://169.254.169.254/latest/meta-data", "https://10.0.0.8/x",
                     "https://[::1]/x", "https://[::ffff:127.0.0.1]/x", "https://[fd00::5]/x"):
        answer = await request(ws, "pushSubscribe", subscription=phone.subscription(endpoint))
        assert answer["kind"] == "error" and answer["code"] in ("bad_request", "forbidden"), (endpoint, answer)
    import sqlite3
    with sqlite3.connect(bridge.state_dir / "bridge.sqlite") as db:
        assert db.execute("SELECT count(*) FROM pushSubscription").fetchone()[0] == 0
    await ws.close()
    bridge.stop()

    # A subscription made while the host was allowed is checked again at delivery: nothing reaches it once the
    # bridge no longer allows it.
    allowed = start_bridge(bridge_factory, model, codex_home, workspace, "--push-delay", "1s")
    _, token = await pair_device(allowed, PHONE)
    ws, _, _ = await subscribe_device(allowed, token, phone, push_service.endpoint("later"), events=["turnCompleted"])
    await ws.close()
    allowed.stop()
    strict = bridge_factory(name="push-state", args=allowed.args[:allowed.args.index("--allow-push-host")] +
                            allowed.args[allowed.args.index("--allow-push-host") + 2:], env=allowed.env)
    desk, _ = await hello(strict)
    model.queue({"kind": "message", "text": "Done."})
    started = await request(desk, "startThread", cwd=str(workspace), prompt="one")
    await until_turn_completed(desk, started["threadId"])
    strict.wait_log("Push endpoint refused")
    assert push_service.seen("/push/later") == []
    await desk.close()


async def test_the_same_endpoint_from_two_devices_stays_each_devices_own(bridge_factory, model, codex_home, workspace,
                                                                         push_service):
    """Issue 22 finding 5: a subscription is keyed by (device, endpoint); another device submitting the same endpoint
    does not take it over. At most five per device."""
    bridge = start_bridge(bridge_factory, model, codex_home, workspace, "--push-delay", "1s")
    _, phone_token = await pair_device(bridge, PHONE)
    _, tablet_token = await pair_device(bridge, {"name": "Tablet", "platform": "android"})
    phone, tablet = Subscriber(), Subscriber()
    ws_phone, _, phone_id = await subscribe_device(bridge, phone_token, phone, push_service.endpoint("shared"))
    ws_tablet, _, tablet_id = await subscribe_device(bridge, tablet_token, tablet, push_service.endpoint("shared"))
    assert phone_id != tablet_id
    # The tablet cannot remove the phone's subscription either.
    assert (await request(ws_tablet, "pushUnsubscribe", subscriptionId=phone_id))["kind"] == "error"
    for index in range(6):
        await request(ws_tablet, "pushSubscribe", subscription=tablet.subscription(push_service.endpoint(f"t{index}")))
    import sqlite3
    with sqlite3.connect(bridge.state_dir / "bridge.sqlite") as db:
        rows = db.execute("SELECT owner, endpoint FROM pushSubscription ORDER BY endpoint").fetchall()
    owners = {}
    for owner, endpoint in rows:
        owners.setdefault(owner, []).append(endpoint.rsplit("/", 1)[1])
    assert sorted(len(v) for v in owners.values()) == [1, 5], owners
    assert any(v == ["shared"] for v in owners.values()), owners
    await ws_phone.close()
    await ws_tablet.close()
