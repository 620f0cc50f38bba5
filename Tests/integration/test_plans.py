"""Issue 26 end to end: the real codex against the scripted model through the real bridge. The live plan
(update_plan), plan mode (remembered across a bridge restart), goals, a spawned sub-agent, and Codex's notices
(a rerouted model, a hook), all offline."""
import asyncio
import json
import os
import subprocess

from codex_fixture import bridge_codex_args, codex_bin, codex_bridge, codex_home, model, workspace  # noqa: F401
from mock_model import codex_args, codex_env
from test_codex import frames, request, until_turn_completed
from wsutil import hello

STEPS = [{"step": "Read the date helpers", "status": "completed"},
         {"step": "Parse timestamps as UTC", "status": "in_progress"},
         {"step": "Add a regression test", "status": "pending"}]
DONE = [dict(s, status="completed") for s in STEPS]


def collaboration_mode(body):
    """The collaboration-mode instructions Codex last gave the model in one request ("plan", "default" or None)."""
    mode = None
    for item in body.get("input") or []:
        if item.get("role") != "developer":
            continue
        for part in item.get("content") or []:
            text = part.get("text", "") if isinstance(part, dict) else ""
            if "<collaboration_mode>" in text:
                mode = "plan" if "Plan Mode" in text else "default" if "Collaboration Mode: Default" in text else "other"
    return mode


async def events_until(ws, predicate, timeout=60):
    """Collects frames until one satisfies `predicate`; returns them all."""
    seen = []
    async for msg in frames(ws, timeout):
        seen.append(msg)
        if predicate(msg):
            return seen


async def test_update_plan_is_the_turns_live_plan_and_is_kept(codex_bridge, model, workspace):
    model.queue({"kind": "update_plan", "plan": STEPS, "explanation": "Three steps"},
                {"kind": "update_plan", "plan": DONE},
                {"kind": "message", "text": "Fixed."})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="fix the date bug")
    assert started["kind"] == "threadStarted", started
    events, _ = await until_turn_completed(ws, started["threadId"])
    plans = [e for e in events if e["type"] == "turn/plan/updated"]
    assert [e["turnId"] for e in plans] == [started["turnId"]] * 2
    assert plans[0]["data"]["explanation"] == "Three steps"
    assert [s["status"] for s in plans[0]["data"]["plan"]] == ["completed", "inProgress", "pending"]
    assert [s["status"] for s in plans[1]["data"]["plan"]] == ["completed"] * 3
    # The bridge turned Codex's update_plan tool on (Codex 0.163 leaves it off).
    assert "update_plan" in [t.get("name") for t in model.requests[0]["tools"]]
    # Codex's stored thread does not keep the plan; the bridge does, per turn.
    snapshot = await request(ws, "readThread", threadId=started["threadId"])
    assert snapshot["plans"] == [{"turnId": started["turnId"], "plan": [
        {"step": s["step"], "status": "completed"} for s in STEPS]}], snapshot.get("plans")


async def test_plan_mode_proposes_a_plan_and_is_remembered_across_a_restart(codex_bridge, model, workspace):
    plan = "# Split the parser\n\n1. Move the lexer out\n2. Test it alone"
    model.queue({"kind": "propose_plan", "text": "Here is how.", "plan": plan},
                {"kind": "message", "text": "Still planning."},
                {"kind": "message", "text": "Implemented."})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="split the parser", collaborationMode="plan")
    assert started["kind"] == "threadStarted", started
    thread_id = started["threadId"]
    events, _ = await until_turn_completed(ws, thread_id)
    deltas = [e for e in events if e["type"] == "item/plan/delta"]
    assert deltas and "".join(e["data"]["delta"] for e in deltas).startswith("# Split the parser")
    items = [e["data"]["item"] for e in events if e["type"] == "item/completed" and e["data"]["item"]["type"] == "plan"]
    assert len(items) == 1 and items[0]["text"].strip() == plan
    assert collaboration_mode(model.requests[0]) == "plan"
    listed = (await request(ws, "listThreads"))["threads"]
    assert [t["collaborationMode"] for t in listed if t["threadId"] == thread_id] == ["plan"]
    await ws.close()

    # The bridge (and with it Codex) restarts: the thread's next turn, naming no mode, is in plan mode still.
    assert codex_bridge.stop() == 0
    codex_bridge.start()
    ws, _ = await hello(codex_bridge)
    assert (await request(ws, "subscribe", threadId=thread_id))["kind"] == "subscribed"
    sent = await request(ws, "sendMessage", threadId=thread_id, text="what about errors?")
    assert sent["kind"] == "accepted", sent
    await until_turn_completed(ws, thread_id)
    assert collaboration_mode(model.requests[1]) == "plan"
    # "Implement this plan": default mode, and the thread stays there.
    sent = await request(ws, "sendMessage", threadId=thread_id, text="Implement the plan.", collaborationMode="default")
    assert sent["kind"] == "accepted", sent
    events, _ = await until_turn_completed(ws, thread_id)
    assert collaboration_mode(model.requests[2]) == "default"
    snapshot = await request(ws, "readThread", threadId=thread_id)
    assert snapshot["collaborationMode"] == "default"
    bad = await request(ws, "sendMessage", threadId=thread_id, text="x", collaborationMode="planning")
    assert bad["kind"] == "error" and bad["code"] == "bad_request", bad


async def test_a_goal_runs_until_the_model_completes_it(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "Hello."},
                {"kind": "message", "text": "Working on the tests."},
                {"kind": "update_goal", "status": "complete"},
                {"kind": "message", "text": "All tests pass."})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hello")
    thread_id = started["threadId"]
    await until_turn_completed(ws, thread_id)
    bad = await request(ws, "setGoal", threadId=thread_id, objective="   ")
    assert bad["kind"] == "error" and bad["code"] == "bad_request", bad
    answer = await request(ws, "setGoal", threadId=thread_id, objective="Make the tests pass", tokenBudget=100000)
    assert answer["kind"] == "goal", answer
    assert answer["goal"]["objective"] == "Make the tests pass" and answer["goal"]["status"] == "active"
    assert answer["goal"]["tokenBudget"] == 100000
    # Codex works on it in turns of its own until the model says it is complete.
    seen = await events_until(ws, lambda m: m.get("type") == "thread/goal/updated"
                              and m["data"]["goal"]["status"] == "complete")
    turns = {m["turnId"] for m in seen if m.get("type") == "turn/started" and m["threadId"] == thread_id}
    assert len(turns) == 2, turns
    await until_turn_completed(ws, thread_id)
    listed = (await request(ws, "listThreads"))["threads"]
    goal = [t.get("goal") for t in listed if t["threadId"] == thread_id][0]
    assert goal["status"] == "complete" and goal["tokenBudget"] == 100000 and goal["tokensUsed"] > 0, goal
    cleared = await request(ws, "clearGoal", threadId=thread_id)
    assert cleared == {"kind": "accepted", "id": cleared["id"], "threadId": thread_id}, cleared
    await events_until(ws, lambda m: m.get("type") == "thread/goal/cleared")
    listed = (await request(ws, "listThreads"))["threads"]
    assert [t.get("goal") for t in listed if t["threadId"] == thread_id] == [None]
    snapshot = await request(ws, "readThread", threadId=thread_id)
    assert "goal" not in snapshot


async def test_a_spawned_sub_agent_is_listed_under_its_parent_with_its_status(codex_bridge, model, workspace):
    model.queue({"kind": "spawn_agent", "message": "count the files", "when": "spawn a helper"},
                {"kind": "message", "text": "There are 2 files.", "when": "count the files"},
                {"kind": "message", "text": "A helper is counting.", "when": "spawn a helper"})
    ws, _ = await hello(codex_bridge)
    assert (await request(ws, "subscribe", threadId="*"))["kind"] == "subscribed"
    started = await request(ws, "startThread", cwd=str(workspace), prompt="spawn a helper")
    parent = started["threadId"]
    state = {}

    def settled(msg):
        if msg.get("type") == "bridge/subAgent":
            state.update({k: v for k, v in msg["data"].items() if v is not None})
        return state.get("status") == "done" and "agentNickname" in state

    seen = await events_until(ws, settled)
    announced = [m for m in seen if m.get("type") == "bridge/subAgent"]
    assert all(m["threadId"] == parent and m["data"]["threadId"] == parent for m in announced)
    child = state["agentThreadId"]
    assert child != parent and state["agentNickname"]
    statuses = [m["data"].get("status") for m in announced]
    assert "running" in statuses and statuses.index("running") < statuses.index("done"), statuses
    # The child's events carry its own turn, not the parent's that spawned it.
    child_events = [m for m in seen if m.get("kind") == "event" and m["threadId"] == child]
    child_turns = {m["turnId"] for m in child_events if m["type"] in ("turn/started", "turn/completed", "item/completed")}
    assert len(child_turns) == 1 and started["turnId"] not in child_turns, child_turns
    assert "There are 2 files." in json.dumps([m["data"] for m in child_events])
    listed = {t["threadId"]: t for t in (await request(ws, "listThreads"))["threads"]}
    assert listed[child]["parentThreadId"] == parent and listed[child]["agentNickname"] == state["agentNickname"]
    assert listed[child]["source"] == "subAgent" and "parentThreadId" not in listed[parent]
    # A sub-agent is a thread like any other: readable through the gate.
    assert (await request(ws, "readThread", threadId=child))["kind"] == "thread"


def trusted_hook_home(home, workspace):
    """Writes a UserPromptSubmit command hook into CODEX_HOME and trusts it the way Codex records trust (the hash
    `hooks/list` reports, in config.toml)."""
    (home / "hooks.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "echo checked", "timeout": 10, "statusMessage": "Checking the prompt"}]}]}}))
    proc = subprocess.Popen([codex_bin(), "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=codex_env(home), text=True)
    try:
        for message in ({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "0"}}},
                        {"method": "initialized"}, {"id": 2, "method": "hooks/list", "params": {"cwds": [str(workspace)]}}):
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        while True:
            answer = json.loads(proc.stdout.readline())
            if answer.get("id") == 2:
                break
    finally:
        proc.kill()
        proc.wait()
    hook = answer["result"]["data"][0]["hooks"][0]
    assert hook["trustStatus"] == "untrusted"
    (home / "config.toml").write_text(f'[hooks.state."{hook["key"]}"]\ntrusted_hash = "{hook["currentHash"]}"\n')


async def test_notices_a_rerouted_model_and_a_hook(bridge_factory, model, codex_home, workspace):
    trusted_hook_home(codex_home, workspace)
    bridge = bridge_factory(name="notices", env=codex_env(codex_home), args=[
        "--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)])
    model.queue({"kind": "message", "text": "Done.", "served_model": "gpt-fallback"})
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hi")
    events, _ = await until_turn_completed(ws, started["threadId"])
    kinds = [e["type"] for e in events]
    rerouted = [e for e in events if e["type"] == "model/rerouted"]
    assert len(rerouted) == 1 and rerouted[0]["data"]["fromModel"] == "mock-model"
    assert rerouted[0]["data"]["toModel"] == "gpt-fallback" and rerouted[0]["turnId"] == started["turnId"]
    assert kinds.index("hook/started") < kinds.index("hook/completed")
    done = [e for e in events if e["type"] == "hook/completed"][0]["data"]["run"]
    assert done["eventName"] == "userPromptSubmit" and done["status"] == "completed"
    assert done["statusMessage"] == "Checking the prompt"


def fake_codex_bridge(bridge_factory, workspace, mode):
    fake = os.path.join(os.path.dirname(__file__), "fake_codex.py")
    env = dict(os.environ, FAKE_CODEX_MODE=mode, FAKE_CODEX_CWD=str(workspace))
    return bridge_factory(name=f"fake-{mode}", env=env, args=["--codex", fake, "--root", str(workspace)])


async def test_review_and_compaction_sub_threads_are_hidden_unless_asked_for(bridge_factory, workspace):
    """Fault injection: the bridge never makes the real codex create review or compaction sub-threads offline (its
    reviews are inline; compaction has no sub-thread with a custom provider), so a fake Codex lists them."""
    bridge = fake_codex_bridge(bridge_factory, workspace, "subthreads")
    ws, _ = await hello(bridge)
    shown = await request(ws, "listThreads")
    assert shown["kind"] == "threads", shown
    assert {t["threadId"] for t in shown["threads"]} == {"parent", "spawned"}
    assert [t.get("parentThreadId") for t in shown["threads"] if t["threadId"] == "spawned"] == ["parent"]
    everything = await request(ws, "listThreads", includeInternal=True)
    assert {t["threadId"] for t in everything["threads"]} == {"parent", "spawned", "review", "compact"}
