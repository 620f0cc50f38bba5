"""Issue 3: drive the real Codex CLI (app-server) from the phone protocol."""
import asyncio
import itertools
import os
import pathlib

import pytest

from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from conftest import isolated_binary
from wsutil import hello, recv, recv_kind, send

_ids = itertools.count(1)


async def request(ws, kind, timeout=60, **fields):
    """Sends a request and returns its answer, collecting other frames into ws.pending."""
    rid = f"r{next(_ids)}"
    await send(ws, {"kind": kind, "id": rid, **fields})
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await recv(ws, max(0.01, deadline - loop.time()))
        if msg.get("id") == rid and msg["kind"] not in ("event",):
            return msg
        getattr(ws, "pending", None) or setattr(ws, "pending", [])
        ws.pending.append(msg)


async def frames(ws, timeout=60):
    """Yields already collected frames, then new ones."""
    while getattr(ws, "pending", None):
        yield ws.pending.pop(0)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        yield await recv(ws, max(0.01, deadline - loop.time()))


async def until_turn_completed(ws, thread_id, timeout=60):
    """Collects frames of `thread_id` until its turn/completed; returns (events, others)."""
    events, others = [], []
    async for msg in frames(ws, timeout):
        if msg["kind"] == "event" and msg["threadId"] == thread_id:
            events.append(msg)
            if msg["type"] == "turn/completed":
                return events, others
        else:
            others.append(msg)


def completed_status(events):
    return events[-1]["data"]["turn"]["status"]


def agent_text(events):
    for e in events:
        if e["type"] == "item/completed" and e["data"]["item"].get("type") == "agentMessage":
            return e["data"]["item"]["text"]
    return None


async def test_start_thread_streams_agent_message(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "Hello from the mock.", "deltas": ["Hello ", "from ", "the mock."]})
    ws, ack = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="say hello")
    assert started["kind"] == "threadStarted", started
    assert started["cwd"] == os.path.realpath(workspace)
    events, _ = await until_turn_completed(ws, started["threadId"])
    assert completed_status(events) == "completed"
    deltas = "".join(e["data"]["delta"] for e in events if e["type"] == "item/agentMessage/delta")
    assert deltas == "Hello from the mock."
    assert agent_text(events) == "Hello from the mock."
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    types = [e["type"] for e in events]
    assert "turn/started" in types and types.index("turn/started") < types.index("turn/completed")
    assert all(e["turnId"] == started["turnId"] for e in events if e["type"].startswith("turn/"))


async def approval_turn(bridge, model, workspace, decision):
    model.queue({"kind": "exec", "cmd": "touch approved.txt"}, {"kind": "message", "text": "done"})
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="create a file", approvalPolicy="untrusted")
    assert started["kind"] == "threadStarted", started
    approval = None
    async for msg in frames(ws):
        if msg["kind"] == "approvalRequest":
            approval = msg
            break
    assert approval["type"] == "command" and "touch approved.txt" in approval["command"]
    assert approval["threadId"] == started["threadId"]
    answer = await request(ws, "approve", approvalId=approval["approvalId"], decision=decision)
    assert answer["kind"] == "accepted" and answer["approvalId"] == approval["approvalId"]
    events, others = await until_turn_completed(ws, started["threadId"])
    resolved = [m for m in others if m["kind"] == "approvalResolved"]
    assert resolved and resolved[0]["decision"] == decision and resolved[0]["seq"] > approval["seq"]
    return ws, started, events


async def test_approval_accept_runs_the_command(codex_bridge, model, workspace):
    _, _, events = await approval_turn(codex_bridge, model, workspace, "accept")
    assert completed_status(events) == "completed"
    assert (workspace / "approved.txt").exists()


async def test_approval_decline_does_not(codex_bridge, model, workspace):
    _, _, events = await approval_turn(codex_bridge, model, workspace, "decline")
    assert completed_status(events) == "completed"
    assert not (workspace / "approved.txt").exists()


async def test_two_clients_first_approve_wins(codex_bridge, model, workspace):
    model.queue({"kind": "exec", "cmd": "touch approved.txt"}, {"kind": "message", "text": "done"})
    a, _ = await hello(codex_bridge)
    b, _ = await hello(codex_bridge)
    sub = await request(b, "subscribe", threadId="*")
    assert sub["kind"] == "subscribed"
    started = await request(a, "startThread", cwd=str(workspace), prompt="go", approvalPolicy="untrusted")
    approvals = []
    for ws in (a, b):
        async for msg in frames(ws):
            if msg["kind"] == "approvalRequest":
                approvals.append(msg)
                break
    assert approvals[0]["approvalId"] == approvals[1]["approvalId"]
    first = await request(a, "approve", approvalId=approvals[0]["approvalId"], decision="accept")
    second = await request(b, "approve", approvalId=approvals[0]["approvalId"], decision="decline")
    assert first["kind"] == "accepted"
    assert second["kind"] == "error" and second["code"] == "approval_not_pending"
    for ws in (a, b):
        _, others = await until_turn_completed(ws, started["threadId"])
        resolved = [m for m in others if m["kind"] == "approvalResolved"]
        assert [r["decision"] for r in resolved] == ["accept"]
    assert (workspace / "approved.txt").exists()


async def test_follow_up_and_interrupt(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "first"}, {"kind": "message", "text": "second"}, {"kind": "stall", "text": "late"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="one")
    thread = started["threadId"]
    events, _ = await until_turn_completed(ws, thread)
    assert agent_text(events) == "first"
    follow = await request(ws, "sendMessage", threadId=thread, text="two")
    assert follow["kind"] == "accepted" and follow["turnId"] != started["turnId"]
    events, _ = await until_turn_completed(ws, thread)
    assert agent_text(events) == "second"
    # A turn whose model stream stalls, then interrupt.
    third = await request(ws, "sendMessage", threadId=thread, text="three")
    async for msg in frames(ws):
        if msg["kind"] == "event" and msg["type"] == "turn/started":
            break
    model.wait_requests(3)
    stopped = await request(ws, "interrupt", threadId=thread)
    assert stopped["kind"] == "accepted" and stopped["turnId"] == third["turnId"]
    events, _ = await until_turn_completed(ws, thread)
    assert completed_status(events) == "interrupted"
    none = await request(ws, "interrupt", threadId=thread)
    assert none["kind"] == "error" and none["code"] == "conflict"
    model.release()


async def test_list_read_and_diff(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "edited"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="edit")
    thread = started["threadId"]
    events, _ = await until_turn_completed(ws, thread)
    assert completed_status(events) == "completed"
    # The working tree changes (as a command of the agent would change it); no turn diff was reported, so
    # getDiff falls back to `git diff` of the thread's cwd.
    (workspace / "tracked.txt").write_text("two\n")
    listed = await request(ws, "listThreads", limit=20)
    assert listed["kind"] == "threads"
    assert thread in [t["threadId"] for t in listed["threads"]]
    mine = next(t for t in listed["threads"] if t["threadId"] == thread)
    assert mine["cwd"] == os.path.realpath(workspace)
    read = await request(ws, "readThread", threadId=thread)
    assert read["kind"] == "thread" and read["thread"]["id"] == thread
    assert len(read["thread"]["turns"]) >= 1
    diff = await request(ws, "getDiff", threadId=thread)
    assert diff["kind"] == "diff" and diff["threadId"] == thread
    assert "-one" in diff["diff"] and "+two" in diff["diff"]
    missing = await request(ws, "readThread", threadId="00000000-0000-0000-0000-000000000000")
    assert missing["kind"] == "error" and missing["code"] in ("not_found", "codex_error")


async def test_cwd_outside_roots_is_forbidden(codex_bridge, workspace, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "escape").symlink_to(outside)
    ws, _ = await hello(codex_bridge)
    for cwd in (str(workspace / ".."), "/etc", str(workspace / "escape"), "relative/dir", str(workspace / "missing")):
        answer = await request(ws, "startThread", cwd=cwd, prompt="x")
        assert answer["kind"] == "error" and answer["code"] == "forbidden_path", (cwd, answer)
    bad = await request(ws, "startThread", cwd=str(workspace), prompt="x", sandbox="danger-full-access")
    assert bad["kind"] == "error" and bad["code"] == "forbidden"


async def test_codex_missing_is_codex_unavailable(bridge_factory, workspace, tmp_path):
    # No codex anywhere the locator looks (an explicit --codex that does not exist is a startup error instead): the
    # binary outside the checkout, whose .venv-codex (Scripts/run's) it would find.
    env = dict(os.environ, PATH="/usr/bin:/bin", HOME=str(tmp_path / "home"))
    bridge = bridge_factory(args=["--root", str(workspace)], env=env, binary=isolated_binary(tmp_path))
    ws, ack = await hello(bridge)
    assert ack["ok"]
    answer = await request(ws, "startThread", cwd=str(workspace), prompt="x", timeout=30)
    assert answer["kind"] == "error" and answer["code"] == "codex_unavailable"
    assert "openai-codex-cli-bin" in answer["message"] or "install" in answer["message"].lower()
    await send(ws, {"kind": "ping", "nonce": "alive"})
    assert (await recv_kind(ws, "pong"))["nonce"] == "alive"
    # The supervisor keeps looking (0.5 s, 1 s, ... backoff) but says so once, not on every retry.
    await asyncio.sleep(2.0)
    assert bridge.log().count("codex not found") == 1, bridge.log()
