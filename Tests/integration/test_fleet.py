"""Issue 33: every workstation in one phone. Two real bridges, each with its own real codex and scripted model
(all on 127.0.0.1); B is linked to A with `machines add`; a phone talks to A only."""
import asyncio
import json
import sqlite3
import signal
import subprocess
import time

import pytest

import codex_fixture
from codex_fixture import bridge_codex_args, codex_bin
from conftest import BIN, run_cli
from fake_bridge import FakeBridge
from mock_model import MockModel, codex_env
from push_service import PushService, Subscriber
from test_pairing import PHONE, pair_device
from test_push import post_action, subscribe_device
from test_codex import frames, request, until_turn_completed
from wsutil import hello, recv_kind


@pytest.fixture
def workstation(bridge_factory, tmp_path):
    """Makes a bridge with its own codex, scripted model, CODEX_HOME and workspace: (bridge, model, workspace)."""
    made = []

    def make(name, args=()):
        args = tuple(args)
        model = MockModel().start()
        made.append(model)
        home = codex_fixture.CODEX_HOMES / f"{tmp_path.name}-{name}"
        home.mkdir(parents=True, exist_ok=True)
        ws = tmp_path / f"{name}-workspace"
        ws.mkdir()
        bridge = bridge_factory(
            name=name, env=codex_env(home),
            args=["--codex", codex_bin(), "--root", str(ws), *bridge_codex_args(model.port), *args])
        return bridge, model, ws

    yield make
    for model in made:
        model.stop()


def journal_rows(bridge, thread_id, machine=None):
    """How many journal rows `bridge` holds for `thread_id` (those relayed from `machine`, or its own)."""
    with sqlite3.connect(f"file:{bridge.state_dir / 'bridge.sqlite'}?mode=ro", uri=True) as db:
        if machine:
            return db.execute("SELECT COUNT(*) FROM journal WHERE threadId = ? AND machine = ?", (thread_id, machine)).fetchone()[0]
        return db.execute("SELECT COUNT(*) FROM journal WHERE threadId = ? AND machine IS NULL", (thread_id,)).fetchone()[0]


def link(home, other, *extra):
    url = json.loads(run_cli("pair", "--json", "--advertise", "127.0.0.1", *extra, state_dir=other.state_dir,
                             check=True).stdout)["url"]
    return json.loads(run_cli("machines", "add", url, "--json", state_dir=home.state_dir, check=True).stdout)


async def fleet_hello(bridge, **extra):
    ws, ack = await hello(bridge, extra={"fleet": True, **extra})
    assert ack["ok"], ack
    return ws, ack


async def until_machine(ws, machine_id, state, timeout=20):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await recv_kind(ws, "machineChanged", max(0.1, deadline - loop.time()))
        if msg["machine"]["id"] == machine_id and msg["machine"]["state"] == state:
            return msg


async def until_removed(ws, machine_id, timeout=20):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await recv_kind(ws, "machineChanged", max(0.1, deadline - loop.time()))
        if msg["machine"]["id"] == machine_id and msg.get("removed") is True:
            return msg


async def wait_online(bridge, machine_id, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ws, ack = await fleet_hello(bridge)
        await ws.close()
        states = {m["id"]: m["state"] for m in ack["machines"]}
        if states.get(machine_id) == "online":
            return ack
        await asyncio.sleep(0.2)
    raise AssertionError(f"{machine_id} not online: {ack['machines']}")


async def test_a_phone_on_the_home_bridge_drives_a_linked_machine(workstation):
    a, a_model, a_ws = workstation("a")
    b, b_model, b_ws = workstation("b")
    linked = link(a, b)
    assert linked["name"] and linked["state"] in ("offline", "online") and "token" not in linked
    # B sees A as a device on the bridge platform.
    devices = json.loads(run_cli("devices", "list", "--json", state_dir=b.state_dir, check=True).stdout)
    assert [d["platform"] for d in devices] == ["bridge"], devices
    ack = await wait_online(a, linked["id"])
    assert [m["id"] for m in ack["machines"]][0] == ack["server"]["id"] and len(ack["machines"]) == 2

    phone, _ = await fleet_hello(a)
    await request(phone, "subscribe", threadId="*")
    # A thread on B, started and streamed from the phone through A.
    b_model.queue({"kind": "exec", "cmd": "touch from-the-fleet.txt"}, {"kind": "message", "text": "done on b"})
    started = await request(phone, "startThread", machine=linked["id"], cwd=str(b_ws), prompt="make a file",
                            approvalPolicy="untrusted")
    assert started["kind"] == "threadStarted", started
    approval = None
    async for msg in frames(phone):
        if msg["kind"] == "approvalRequest":
            approval = msg
            break
    assert approval["threadId"] == started["threadId"] and approval["machine"]["id"] == linked["id"], approval
    answer = await request(phone, "approve", approvalId=approval["approvalId"], decision="accept")
    assert answer["kind"] == "accepted", answer
    events, _ = await until_turn_completed(phone, started["threadId"])
    assert (b_ws / "from-the-fleet.txt").exists()
    # B's audit names the link as the actor and, as A reported it, who at home acted (here A's shared secret).
    b_audit = [json.loads(line) for line in run_cli("audit", "--json", state_dir=b.state_dir, check=True).stdout.splitlines()
               if line.strip()]
    approved = [e for e in b_audit if e["kind"] == "approve"]
    assert approved and approved[0]["onBehalfOf"] == {"actor": "sharedSecret"}, approved
    assert approved[0]["deviceId"] == devices[0]["id"] and approved[0]["who"].startswith("shared secret via "), approved
    assert all(e["machine"]["id"] == linked["id"] for e in events)
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    # Each of B's messages is journaled once at A (issue 45 item 2): as many rows as B journaled for the thread.
    assert journal_rows(a, started["threadId"], machine=linked["id"]) == journal_rows(b, started["threadId"]), "journaled twice"
    # A thread on A at the same time, and one list with both, each labelled.
    a_model.queue({"kind": "message", "text": "done on a"})
    home = await request(phone, "startThread", cwd=str(a_ws), prompt="hello a")
    await until_turn_completed(phone, home["threadId"])
    listed = await request(phone, "listThreads")
    machines = {t["threadId"]: t["machine"]["id"] for t in listed["threads"]}
    assert machines[started["threadId"]] == linked["id"] and machines[home["threadId"]] == ack["server"]["id"], listed
    # readThread and getDiff follow the thread to B.
    read = await request(phone, "readThread", threadId=started["threadId"])
    assert read["kind"] == "thread", read

    # A phone that did not ask for the fleet sees exactly what it always did: A's threads only.
    plain, plain_ack = await hello(a)
    assert "machines" not in plain_ack
    plain_list = await request(plain, "listThreads")
    assert started["threadId"] not in {t["threadId"] for t in plain_list["threads"]}
    assert all("machine" not in t for t in plain_list["threads"])
    sub = await request(plain, "subscribe", threadId="*", afterSeq=0)
    assert sub["kind"] == "subscribed"
    # A request's answer comes after what the bridge queued before it (the replay from 0 included); request()
    # keeps the frames before it in plain.pending. (A 0.5 s sleep here read nothing: nobody took frames meanwhile.)
    assert (await request(plain, "listThreads"))["kind"] == "threads"
    assert not [m for m in getattr(plain, "pending", []) if m.get("threadId") == started["threadId"]]

    # B killed mid-nothing, then back on the same port: the phone sees B offline, then online, and a turn
    # started after it is back streams once, in order; a resume from the phone's cursor repeats nothing.
    b.stop(signal.SIGKILL, timeout=10)
    await until_machine(phone, linked["id"], "offline")
    refused = await request(phone, "sendMessage", threadId=started["threadId"], text="are you there?")
    assert refused["kind"] == "error" and refused["code"] == "machine_unavailable" and refused["machine"] == linked["id"]
    listed = await request(phone, "listThreads")
    assert started["threadId"] in {t["threadId"] for t in listed["threads"]}, "an offline machine keeps its threads"
    b.listen = f"127.0.0.1:{b.port}"
    b.start()
    await until_machine(phone, linked["id"], "online")
    b_model.queue({"kind": "message", "text": "back again"})
    sent = await request(phone, "sendMessage", threadId=started["threadId"], text="and again")
    assert sent["kind"] == "accepted", sent
    events, _ = await until_turn_completed(phone, started["threadId"])
    assert any(e["type"] == "item/completed" for e in events)
    last = max(e["seq"] for e in events)
    await phone.close()
    again, again_ack = await fleet_hello(a, resume={"lastSeq": last})
    sub = await request(again, "subscribe", threadId=started["threadId"], afterSeq=last - len(events))
    assert sub["kind"] == "subscribed"
    replayed = []
    try:
        async for msg in frames(again, timeout=2):
            if msg.get("kind") == "event":
                replayed.append(msg["seq"])
    except asyncio.TimeoutError:
        pass
    assert replayed == sorted(set(replayed)), replayed

    # Unlinked: the phone hears it, and requests for B's threads fail clearly.
    run_cli("machines", "remove", linked["id"], state_dir=a.state_dir, check=True)
    removed = await until_removed(again, linked["id"])
    assert removed["machine"]["state"] == "offline"
    gone = await request(again, "readThread", threadId=started["threadId"])
    assert gone["kind"] == "error", gone


async def test_scopes_compose_and_a_revoked_link_leaves_the_fleet(workstation):
    a, _, _ = workstation("a")
    b, _, b_ws = workstation("b")
    linked = link(a, b, "--scope", "observe")
    await wait_online(a, linked["id"])
    phone, _ = await fleet_hello(a)
    # The phone holds operate at A (the shared secret holds everything), the link at B only observe.
    refused = await request(phone, "startThread", machine=linked["id"], cwd=str(b_ws), prompt="no")
    assert refused["kind"] == "error" and refused["code"] == "forbidden", refused
    assert refused["scope"] == "operate" and refused["machine"] == linked["id"], refused
    listing = await request(phone, "listDirectory", machine=linked["id"], path=str(b_ws))
    assert listing["kind"] == "directory", listing
    # Revoked at B: within 2 s (plus the link's reconnect) the phone hears it and B's machine leaves the fleet.
    device = json.loads(run_cli("devices", "list", "--json", state_dir=b.state_dir, check=True).stdout)[0]["id"]
    run_cli("devices", "revoke", device, state_dir=b.state_dir, check=True)
    t0 = time.monotonic()
    await until_removed(phone, linked["id"], timeout=10)
    assert time.monotonic() - t0 < 5
    _, ack = await fleet_hello(a)
    assert [m["id"] for m in ack["machines"]] == [ack["server"]["id"]]
    listed = json.loads(run_cli("machines", "list", "--json", state_dir=a.state_dir, check=True).stdout)
    assert listed[0]["state"] == "revoked"


async def test_a_machine_linked_by_its_pairing_code_and_address(workstation):
    a, _, _ = workstation("a")
    b, _, _ = workstation("b")
    paired = json.loads(run_cli("pair", "--json", "--advertise", "127.0.0.1", state_dir=b.state_dir, check=True).stdout)
    added = run_cli("machines", "add", paired["code"], "--host", "127.0.0.1", "--port", str(paired["port"]), "--json",
                    state_dir=a.state_dir, check=True)
    linked = json.loads(added.stdout)
    assert linked["id"] == paired["serverId"], linked
    await wait_online(a, linked["id"])


async def test_a_linked_machine_back_is_online_at_once_and_retry_machine_asks_now(workstation):
    """Issue 46 item 1: the home's link tries a machine that went away again every 0.1-0.5 s for the first two
    minutes, so a restarted machine is online for the phones well within a second of answering; `retryMachine`
    (Try now) is accepted for a linked machine, `not_found` for another id."""
    a, _, _ = workstation("a")
    b, _, _ = workstation("b")
    b.stop()
    b.listen = f"127.0.0.1:{b.port}"  # the same address after its restart
    b.start()
    linked = link(a, b)
    await wait_online(a, linked["id"])
    phone, _ = await fleet_hello(a)
    assert (await request(phone, "retryMachine", machineId=linked["id"]))["kind"] == "accepted"
    missing = await request(phone, "retryMachine", machineId="no-such-machine")
    assert (missing["kind"], missing["code"]) == ("error", "not_found"), missing
    b.stop()
    await until_machine(phone, linked["id"], "offline")
    await asyncio.sleep(4)  # the link has tried a few times by now
    assert (await request(phone, "retryMachine", machineId=linked["id"]))["kind"] == "accepted"
    b.start()
    back = time.monotonic()  # server.json is written once it listens
    await until_machine(phone, linked["id"], "online")
    assert time.monotonic() - back < 3.0, time.monotonic() - back  # 0.1-0.5 s retries; the bound allows a loaded 2-worker run (1.5 s failed once)
    await phone.close()


def test_machines_cli_refuses_bad_input(tmp_path):
    state = tmp_path / "state"
    bad = run_cli("machines", "add", "not a url", state_dir=state)
    assert bad.returncode != 0 and "error:" in bad.stderr
    code_alone = run_cli("machines", "add", "ABCD-EFGH", state_dir=state)
    assert code_alone.returncode != 0 and "give --host and --port" in code_alone.stderr, code_alone.stderr
    missing = run_cli("machines", "remove", "nothing", state_dir=state)
    assert missing.returncode != 0 and "no linked machine" in missing.stderr
    empty = run_cli("machines", "list", state_dir=state, check=True)
    assert "No linked machines" in empty.stdout


QUESTION = {"id": "colour", "header": "Colour", "question": "Which colour?",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}


async def next_kind(ws, kind, timeout=60):
    async for msg in frames(ws, timeout):
        if msg["kind"] == kind:
            return msg


async def test_three_machines_a_question_on_c_and_b_killed_mid_turn(workstation):
    a, _, _ = workstation("a")
    b, b_model, b_ws = workstation("b")
    c, c_model, c_ws = workstation("c")
    on_b, on_c = link(a, b), link(a, c)
    await wait_online(a, on_b["id"])
    ack = await wait_online(a, on_c["id"])
    assert [m["id"] for m in ack["machines"]][1:] == [on_b["id"], on_c["id"]]
    phone, _ = await fleet_hello(a, clientId="fleet-phone")
    await request(phone, "subscribe", threadId="*")

    # A question on C, answered from the phone through A.
    c_model.queue({"kind": "ask", "questions": [QUESTION]}, {"kind": "echo_output"})
    on_c_thread = await request(phone, "startThread", machine=on_c["id"], cwd=str(c_ws), prompt="ask me")
    asked = await next_kind(phone, "inputRequest")
    assert asked["machine"]["id"] == on_c["id"] and asked["threadId"] == on_c_thread["threadId"]
    # A phone that subscribes later is offered the open question too, as it is a home one.
    late, late_ack = await fleet_hello(a)
    assert late_ack["machines"][2]["policy"]["roots"] == [str(c_ws.resolve())], late_ack["machines"]
    assert (await request(late, "subscribe", threadId="*"))["kind"] == "subscribed"
    offered = await next_kind(late, "inputRequest", timeout=5)
    assert offered["requestId"] == asked["requestId"] and offered["machine"]["id"] == on_c["id"]
    answer = await request(phone, "answerInput", requestId=asked["requestId"], answers={"colour": ["Blue"]})
    assert answer["kind"] == "accepted", answer
    events, others = await until_turn_completed(phone, on_c_thread["threadId"])
    assert "Blue" in json.dumps(c_model.requests[-1])
    # The answer came from this bridge's shared-secret phone, not from "the link's device" at C.
    resolved = [m for m in others if m["kind"] == "inputResolved"]
    assert resolved and resolved[0].get("deviceId") is None, resolved

    # A turn on B that stalls; B is killed with -9 mid-turn and comes back on the same port: the phone sees B
    # offline and online again, and the turn's events arrive once each, in order (its end is B's own
    # "bridge restarted", journaled by B when it came back and relayed by A after its cursor).
    b_model.queue({"kind": "stall", "text": "never"})
    on_b_thread = await request(phone, "startThread", machine=on_b["id"], cwd=str(b_ws), prompt="take your time")
    assert on_b_thread["kind"] == "threadStarted", on_b_thread
    seen = []
    async for msg in frames(phone):
        if msg.get("threadId") == on_b_thread["threadId"] and msg["kind"] == "event":
            seen.append(msg)
            if msg["type"] == "turn/started":
                break
    b.stop(signal.SIGKILL, timeout=10)
    b_model.release()
    await until_machine(phone, on_b["id"], "offline")
    b.listen = f"127.0.0.1:{b.port}"
    b.start()
    async for msg in frames(phone):
        if msg.get("threadId") == on_b_thread["threadId"] and msg["kind"] == "event":
            seen.append(msg)
            if msg["type"] == "bridge/turnFailed":
                break
    seqs = [m["seq"] for m in seen]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), seqs
    assert [m["type"] for m in seen].count("turn/started") == 1
    assert seen[-1]["data"]["reason"] == "bridge restarted" and seen[-1]["machine"]["id"] == on_b["id"]
    # C was never affected: its thread is still listed, labelled. (B's thread is listed as B lists it: a codex
    # killed before the turn's first item kept no rollout of it.)
    listed = await request(phone, "listThreads")
    owners = {t["threadId"]: t["machine"]["id"] for t in listed["threads"]}
    assert owners[on_c_thread["threadId"]] == on_c["id"]
    assert owners.get(on_b_thread["threadId"], on_b["id"]) == on_b["id"]


def event(seq, thread_id, type_="item/agentMessage/delta", **data):
    return {"kind": "event", "seq": seq, "threadId": thread_id, "turnId": "t", "type": type_, "data": data}


async def test_a_hostile_linked_bridge_cannot_reach_past_its_own_threads(workstation):
    a, a_model, a_ws = workstation("a")
    fake = FakeBridge(name="<img src=x onerror=alert(1)>\u001b]52;c;bad\u0007").start()
    try:
        linked = json.loads(run_cli("machines", "add", fake.pairing_url, "--json", state_dir=a.state_dir,
                                    check=True).stdout)
        listed = run_cli("machines", "list", state_dir=a.state_dir, check=True).stdout
        # The name it gives itself keeps its text, not its control characters (issue 44); it is shown as text.
        assert "\u001b" not in listed and "<img src=x onerror=alert(1)>]52;c;bad" in listed, listed
        fake.wait_connections(2)  # the pairing, then the running bridge's link
        ack = await wait_online(a, linked["id"])
        phone, _ = await fleet_hello(a)
        plain, _ = await hello(a)
        for ws in (phone, plain):
            await request(ws, "subscribe", threadId="*")
        a_model.queue({"kind": "message", "text": "home is fine"})
        own = await request(phone, "startThread", cwd=str(a_ws), prompt="mine")
        await until_turn_completed(phone, own["threadId"])
        # The fake claims the home bridge's thread, sends a legitimate event and a seq from the past.
        fake.send(event(10, own["threadId"], text="forged on a home thread"))
        fake.send(event(11, "fake-thread", text="<script>alert(1)</script>"))
        fake.send(event(5, "fake-thread", text="from the past"))
        got = []
        try:
            async for msg in frames(phone, timeout=2):
                if msg.get("kind") == "event" and msg.get("machine"):
                    got.append(msg)
        except asyncio.TimeoutError:
            pass
        assert [m["threadId"] for m in got] == ["fake-thread"], got
        assert got[0]["data"]["text"] == "<script>alert(1)</script>" and got[0]["machine"]["id"] == linked["id"]
        # The phone that did not ask for the fleet got none of it (what came before a request's answer).
        assert (await request(plain, "listThreads"))["kind"] == "threads"
        assert not [m for m in getattr(plain, "pending", []) if m.get("machine")]
        # A frame over the link's 8 MiB is refused from its header: the link drops and comes back.
        fake.send("x" * (9 << 20))
        await until_machine(phone, linked["id"], "offline")
        await until_machine(phone, linked["id"], "online", timeout=30)
        # Garbage closes the link with its reason (issue 44: it was skipped before), shown on the phone and by
        # `machines list`; the link is tried again 30 s later.
        # The link retries at once after the drop above and may come back more than once: the garbage goes on the
        # connection the fake holds now, again if that one was already being replaced.
        closed = None
        for _ in range(5):
            fake.send('{"kind":"event","seq":"x"}')
            try:
                closed = await until_machine(phone, linked["id"], "offline", timeout=5)
            except (asyncio.TimeoutError, TimeoutError):
                continue
            if (closed["machine"].get("error") or {}).get("code") == "bad_frame":
                break
            await until_machine(phone, linked["id"], "online", timeout=30)
        assert closed is not None and closed["machine"]["error"]["code"] == "bad_frame", closed
        listed = run_cli("machines", "list", "--json", state_dir=a.state_dir, check=True).stdout
        assert json.loads(listed)[0]["error"]["code"] == "bad_frame", listed
        # Home keeps working throughout.
        a_model.queue({"kind": "message", "text": "still fine"})
        sent = await request(phone, "sendMessage", threadId=own["threadId"], text="again")
        assert sent["kind"] == "accepted", sent
        events, _ = await until_turn_completed(phone, own["threadId"])
        assert all("machine" not in e for e in events)
        assert ack["machines"][1]["name"] == "<img src=x onerror=alert(1)>]52;c;bad"  # text; the web app renders it as text
    finally:
        fake.stop()


async def test_a_linked_machines_approval_notifies_the_home_bridges_phone_and_approve_works_from_it(workstation):
    service = PushService().start()
    try:
        a, _, _ = workstation("a", args=("--push-subject", "mailto:test@example.org", "--allow-push-host", "127.0.0.1",
                                          "--push-delay", "1s"))
        b, b_model, b_ws = workstation("b")
        linked = link(a, b)
        await wait_online(a, linked["id"])
        device_id, device_token = await pair_device(a, PHONE)
        subscriber = Subscriber()
        ws, _, _ = await subscribe_device(a, device_token, subscriber, service.endpoint("phone"))
        await ws.close()  # the phone is away; it subscribed once, at home
        desk, _ = await fleet_hello(a)
        await request(desk, "subscribe", threadId="*")
        b_model.queue({"kind": "exec", "cmd": "touch pushed.txt"}, {"kind": "message", "text": "done"})
        started = await request(desk, "startThread", machine=linked["id"], cwd=str(b_ws), prompt="x",
                                approvalPolicy="untrusted")
        assert started["kind"] == "threadStarted", started
        push = service.wait(1, "/push/phone", timeout=20)[0]
        payload = subscriber.decrypt(push["body"])
        assert payload["type"] == "approval" and payload["threadId"] == started["threadId"], payload
        status, answer = await asyncio.to_thread(post_action, a, {"token": payload["token"], "decision": "accept"})
        assert status == 200 and answer["ok"], answer
        events, others = await until_turn_completed(desk, started["threadId"])
        assert (b_ws / "pushed.txt").exists()
        resolved = [m for m in others if m["kind"] == "approvalResolved"]
        assert resolved and resolved[0]["decision"] == "accept" and resolved[0]["machine"]["id"] == linked["id"]
        # Audited at home as a notification's answer, and at B as the link's, for that phone's notification.
        audit = run_cli("audit", "--json", state_dir=a.state_dir, check=True).stdout
        assert any(json.loads(line).get("actor") == "notification" for line in audit.splitlines() if line.strip())
        b_audit = [json.loads(line) for line in run_cli("audit", "--json", state_dir=b.state_dir, check=True).stdout.splitlines()
                   if line.strip()]
        behalf = [e["onBehalfOf"] for e in b_audit if e["kind"] == "approve"]
        assert behalf == [{"actor": "notification", "deviceId": device_id, "name": PHONE["name"]}], behalf
    finally:
        service.stop()


async def test_a_link_to_a_machine_that_confirms_pairings_waits_for_its_owner(workstation):
    a, _, _ = workstation("a")
    b, _, _ = workstation("b", args=("--confirm-pairing",))
    url = json.loads(run_cli("pair", "--json", "--advertise", "127.0.0.1", state_dir=b.state_dir, check=True).stdout)["url"]
    adding = subprocess.Popen([str(BIN), "machines", "add", url, "--json", "--state-dir", str(a.state_dir)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        waiting = []
        while not waiting and time.monotonic() < deadline:
            waiting = json.loads(run_cli("devices", "pending", "--json", state_dir=b.state_dir, check=True).stdout)
            time.sleep(0.1)
        assert waiting and waiting[0]["platform"] == "bridge", waiting
        # Nothing is linked while B's owner has not allowed it: the machine is listed as pending, with no link running.
        listed = json.loads(run_cli("machines", "list", "--json", state_dir=a.state_dir, check=True).stdout)
        assert [m["state"] for m in listed] == ["pending"] and listed[0]["id"] == "pending-" + waiting[0]["id"], listed
        allowed = run_cli("devices", "allow", waiting[0]["id"], "--check", waiting[0]["check"], state_dir=b.state_dir)
        assert allowed.returncode == 0, allowed.stderr
        out, err = adding.communicate(timeout=20)
        assert adding.returncode == 0, err
        assert "check code" in out and waiting[0]["check"] in out
        linked = json.loads(out[out.index("{"):])
        await wait_online(a, linked["id"])
        # The pending entry made way for the link.
        listed = json.loads(run_cli("machines", "list", "--json", state_dir=a.state_dir, check=True).stdout)
        assert [m["id"] for m in listed] == [linked["id"]], listed
    finally:
        if adding.poll() is None:
            adding.kill()


async def test_an_admin_phone_manages_the_machines(workstation):
    a, _, _ = workstation("a")
    b, _, _ = workstation("b")
    admin, _ = await hello(a)  # the shared secret holds every scope, admin too
    empty = await request(admin, "listMachines", nearby=True)
    assert empty["kind"] == "machines" and empty["machines"] == [] and isinstance(empty["nearby"], list), empty
    bad = await request(admin, "addMachine", url="https://example.invalid/no-pairing")
    assert bad["kind"] == "error" and bad["code"] == "bad_request", bad
    url = json.loads(run_cli("pair", "--json", "--advertise", "127.0.0.1", state_dir=b.state_dir, check=True).stdout)["url"]
    added = await request(admin, "addMachine", url=url, name="Build box")
    assert added["kind"] == "machines" and [m["name"] for m in added["machines"]] == ["Build box"], added
    machine_id = added["machines"][0]["id"]
    await wait_online(a, machine_id)
    renamed = await request(admin, "renameMachine", machineId=machine_id, name="Builder")
    assert renamed["machines"][0]["name"] == "Builder"
    bad_name = await request(admin, "renameMachine", machineId=machine_id, name="\u001b[31m")
    assert bad_name["kind"] == "error" and bad_name["code"] == "bad_request", bad_name
    # A phone without admin may not.
    _, token = await pair_device(a, PHONE)
    phone, _ = await hello(a, token=token)
    refused = await request(phone, "removeMachine", machineId=machine_id)
    assert refused["kind"] == "error" and refused["code"] == "forbidden" and refused["scope"] == "admin", refused
    fleet, _ = await fleet_hello(a)
    removed = await request(admin, "removeMachine", machineId=machine_id)
    assert removed["machines"] == []
    await until_removed(fleet, machine_id)
    missing = await request(admin, "removeMachine", machineId=machine_id)
    assert missing["kind"] == "error" and missing["code"] == "not_found", missing
    audit = [json.loads(line) for line in run_cli("audit", "--json", state_dir=a.state_dir, check=True).stdout.splitlines() if line.strip()]
    kinds = {e["kind"] for e in audit}
    assert {"addMachine", "renameMachine", "removeMachine"} <= kinds, kinds
