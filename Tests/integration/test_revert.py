"""Issue 34 item 5's `revertThread` with the real codex against the scripted model: Codex's `thread/revert` drops a
thread's last turns from what Codex remembers (the next model request no longer carries them), every subscriber is
told (`thread/reverted`), a retry gets the first answer, the audit names the turn, a running turn makes it a
`conflict`, and a file a reverted turn wrote stays (files are not reverted). Cost: ~10 s."""
from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from test_codex import request, until_turn_completed
from test_housekeeping import next_event
from test_pairing import PHONE
from test_trust import pair
from wsutil import hello, recv_kind, send


def prompts(model_request):
    """The user prompts a model request carries, in order."""
    return [part["text"] for item in model_request["input"] if item.get("role") == "user"
            for part in item.get("content", []) if part.get("type") == "input_text" and not part["text"].startswith("<")]


async def test_revert_the_last_turns(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "first answer"},
                {"kind": "exec", "cmd": "touch kept.txt"}, {"kind": "message", "text": "second answer"},
                {"kind": "stall", "text": "third answer"}, {"kind": "message", "text": "after the revert"})
    phone, _ = await hello(codex_bridge, extra={"clientId": "phone-revert"})
    laptop, _ = await hello(codex_bridge)
    started = await request(phone, "startThread", cwd=str(workspace), prompt="one", sandbox="workspace-write")
    thread = started["threadId"]
    assert (await request(laptop, "subscribe", threadId=thread))["kind"] == "subscribed"
    await until_turn_completed(phone, thread)
    assert (await request(phone, "sendMessage", threadId=thread, text="two"))["kind"] == "accepted"
    await until_turn_completed(phone, thread)
    assert (workspace / "kept.txt").exists()

    # While a turn runs, Codex would interrupt it: the bridge refuses instead.
    assert (await request(phone, "sendMessage", threadId=thread, text="three"))["kind"] == "accepted"
    turns = (await request(phone, "readThread", threadId=thread))["thread"]["turns"]
    assert len(turns) == 3, turns
    busy = await request(phone, "revertThread", threadId=thread, turnId=turns[1]["id"])
    assert busy["kind"] == "error" and busy["code"] == "conflict", busy
    model.release()
    await until_turn_completed(phone, thread)
    await until_turn_completed(laptop, thread)

    # Bad turn ids: empty is bad_request; one the thread does not have is Codex's error, nothing reverted.
    assert (await request(phone, "revertThread", threadId=thread, turnId=""))["code"] == "bad_request"
    unknown = await request(phone, "revertThread", threadId=thread, turnId="no-such-turn")
    assert unknown["kind"] == "error" and unknown["code"] == "codex_error", unknown
    assert len((await request(phone, "readThread", threadId=thread))["thread"]["turns"]) == 3

    # Revert from the second turn: it and the third are gone; a retry of the same request is answered again.
    await send(phone, {"kind": "revertThread", "id": "rev-1", "threadId": thread, "turnId": turns[1]["id"]})
    reverted = await recv_kind(phone, "accepted", timeout=30)
    assert reverted == {"kind": "accepted", "id": "rev-1", "threadId": thread}, reverted
    await send(phone, {"kind": "revertThread", "id": "rev-1", "threadId": thread, "turnId": turns[1]["id"]})
    assert await recv_kind(phone, "accepted", timeout=30) == reverted
    told = await next_event(laptop, "thread/reverted", thread)
    assert told["data"] == {"threadId": thread}, told
    left = (await request(laptop, "readThread", threadId=thread))["thread"]["turns"]
    assert [t["id"] for t in left] == [turns[0]["id"]], left
    assert (workspace / "kept.txt").exists()  # files are not reverted

    # The next turn: Codex answers from the kept history only.
    assert (await request(phone, "sendMessage", threadId=thread, text="four"))["kind"] == "accepted"
    await until_turn_completed(phone, thread)
    assert prompts(model.requests[-1]) == ["one", "four"], prompts(model.requests[-1])

    audit = await request(laptop, "listAudit", limit=20)
    entries = [e for e in audit["entries"] if e["kind"] == "revertThread"]
    assert {"conflict", "bad_request", "codex_error", "ok"} <= {e["outcome"] for e in entries}, entries
    assert any(e["outcome"] == "ok" and turns[1]["id"] in (e.get("detail") or "") for e in entries), entries


async def test_revert_needs_operate(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "done"})
    owner, _ = await hello(codex_bridge)
    started = await request(owner, "startThread", cwd=str(workspace), prompt="watch me")
    await until_turn_completed(owner, started["threadId"])
    turn = (await request(owner, "readThread", threadId=started["threadId"]))["thread"]["turns"][0]["id"]
    _, token, _ = await pair(codex_bridge, PHONE, "--scope", "observe")
    watcher, _ = await hello(codex_bridge, token=token)
    refused = await request(watcher, "revertThread", threadId=started["threadId"], turnId=turn)
    assert refused["kind"] == "error" and refused["code"] == "forbidden" and refused["scope"] == "operate", refused
