"""Issue 23 part 2: nothing lost from the queue. A follow-up queued behind a running turn survives kill -9 of the
bridge: after the restart every subscriber is told it still waits, `cancelQueued` still works, and the oldest
starts as the thread's next turn (the turn the crash interrupted counts as ended). The real bridge and the real
codex against the scripted model. Seen failing before the queue was kept on disk: the restart reported both
messages `failed` and the model never saw the queued text."""
import itertools
import signal

from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from mock_model import _last_user_text
from test_codex import frames, request
from wsutil import hello, recv, send


async def test_a_queued_message_survives_kill_9_and_becomes_the_next_turn(codex_bridge, model, workspace):
    model.queue({"kind": "stall", "text": "never finished"}, {"kind": "stall", "text": "second done"})
    phone, _ = await hello(codex_bridge)
    started = await request(phone, "startThread", cwd=str(workspace), prompt="one")
    thread = started["threadId"]
    async for msg in frames(phone):
        if msg["kind"] == "event" and msg["type"] == "turn/started":
            break
    model.wait_requests(1)
    kept = await request(phone, "sendMessage", threadId=thread, text="two, queued before the crash", mode="queue")
    dropped = await request(phone, "sendMessage", threadId=thread, text="xyzzy, cancelled after the crash", mode="queue")
    assert kept["queuedId"] and dropped["queuedId"], (kept, dropped)
    await phone.close()

    # The killed bridge's codex goes with it (its stdin closes), and so does the stalled stream of its turn.
    codex_bridge.stop(signal.SIGKILL)
    codex_bridge.start()

    phone, _ = await hello(codex_bridge)
    subscribed = await request(phone, "subscribe", threadId=thread, afterSeq=0)
    assert subscribed["kind"] == "subscribed", subscribed
    announced, unqueued = set(), {}
    cancel_sent = False
    async for msg in frames(phone, timeout=90):
        if msg["kind"] == "messageQueued":
            announced.add(msg["queuedId"])
        if msg["kind"] == "messageUnqueued":
            unqueued[msg["queuedId"]] = msg
        if not cancel_sent and {kept["queuedId"], dropped["queuedId"]} <= announced:
            # Both were announced again after the restart; the second still waits behind the first.
            cancel = await request(phone, "cancelQueued", threadId=thread, queuedId=dropped["queuedId"])
            assert cancel["kind"] == "accepted", cancel
            cancel_sent = True
        if kept["queuedId"] in unqueued and cancel_sent:
            break
    assert unqueued[kept["queuedId"]]["reason"] == "started", unqueued
    assert "failed" not in {m["reason"] for m in unqueued.values()}, unqueued
    model.wait_requests(2)
    bodies = " ".join(str(body) for body in model.requests)
    assert "two, queued before the crash" in bodies
    model.release()
    async for msg in frames(phone, timeout=60):
        if msg["kind"] == "event" and msg["type"] == "turn/completed" and msg["turnId"] == unqueued[kept["queuedId"]]["turnId"]:
            break
    assert "xyzzy" not in " ".join(str(body) for body in model.requests)
    # Nothing is left waiting: a client connecting now is told of no queued message.
    late, _ = await hello(codex_bridge)
    await request(late, "subscribe", threadId=thread)
    assert not [m for m in getattr(late, "pending", []) if m["kind"] == "messageQueued"]


_edits = itertools.count(1)


async def edit_queued(ws, thread, queued_id, text, first_form=False, timeout=30):
    """editQueued {threadId, queuedId, text}, or its first form, where the frame's id is the message's queuedId
    (BRIDGE.md, both accepted); returns the answer to it."""
    if first_form:
        frame_id, frame = queued_id, {"kind": "editQueued", "id": queued_id, "threadId": thread, "text": text}
    else:
        frame_id = f"edit-{next(_edits)}"
        frame = {"kind": "editQueued", "id": frame_id, "threadId": thread, "queuedId": queued_id, "text": text}
    await send(ws, frame)
    while True:
        msg = await recv(ws, timeout)
        if msg.get("id") == frame_id and msg["kind"] in ("accepted", "error"):
            return msg
        getattr(ws, "pending", None) or setattr(ws, "pending", [])
        ws.pending.append(msg)


async def test_a_reordered_and_edited_line_survives_kill_9_and_starts_in_its_order(codex_bridge, model, workspace):
    """Issue 34 item 1: reorderQueued and editQueued from one phone reach the other as queueChanged; the new line
    (order and texts) is kept on disk, announced again after kill -9, and its turns start in that order with
    the edited text."""
    model.queue({"kind": "stall", "text": "never finished"},
                {"kind": "message", "text": "first done"}, {"kind": "message", "text": "second done"},
                {"kind": "message", "text": "third done"})
    phone, _ = await hello(codex_bridge)
    other, _ = await hello(codex_bridge)
    assert (await request(other, "subscribe", threadId="*"))["kind"] == "subscribed"
    started = await request(phone, "startThread", cwd=str(workspace), prompt="one")
    thread = started["threadId"]
    model.wait_requests(1)
    ids = []
    for text in ("alpha", "bravo", "charlie"):
        answer = await request(phone, "sendMessage", threadId=thread, text=text, mode="queue")
        assert answer["kind"] == "accepted" and answer.get("queuedId"), answer
        ids.append(answer["queuedId"])
    alpha, bravo, charlie = ids
    moved = await request(phone, "reorderQueued", threadId=thread, ids=[charlie, alpha, bravo])
    assert moved == {"kind": "accepted", "id": moved["id"], "threadId": thread}, moved
    once = await edit_queued(phone, thread, alpha, "alpha, once", first_form=True)
    assert once["kind"] == "accepted" and once["queuedId"] == alpha, once
    edited = await edit_queued(phone, thread, alpha, "alpha, edited")
    assert edited["kind"] == "accepted" and edited["queuedId"] == alpha and edited["id"] != alpha, edited
    stale = await request(phone, "reorderQueued", threadId=thread, ids=[alpha, bravo])
    assert stale["kind"] == "error" and stale["code"] == "conflict" and charlie in stale["message"], stale
    gone = await edit_queued(phone, thread, "q-not-there", "x")
    assert gone["kind"] == "error" and gone["code"] == "not_found", gone
    # The other phone sees each change as the whole line.
    lines = []
    async for msg in frames(other, timeout=30):
        if msg["kind"] == "queueChanged" and msg["threadId"] == thread:
            lines.append([(item["queuedId"], item["text"]) for item in msg["items"]])
            if lines[-1] == [(charlie, "charlie"), (alpha, "alpha, edited"), (bravo, "bravo")]:
                break
    assert lines[:3] == [[(alpha, "alpha")], [(alpha, "alpha"), (bravo, "bravo")],
                         [(alpha, "alpha"), (bravo, "bravo"), (charlie, "charlie")]], lines
    assert lines[3] == [(charlie, "charlie"), (alpha, "alpha"), (bravo, "bravo")], lines
    await phone.close()
    await other.close()

    codex_bridge.stop(signal.SIGKILL)
    codex_bridge.start()

    phone, _ = await hello(codex_bridge)
    assert (await request(phone, "subscribe", threadId=thread, afterSeq=0))["kind"] == "subscribed"
    after_restart, started_turns = None, []
    restart_seq = None
    async for msg in frames(phone, timeout=90):
        if msg["kind"] == "event" and msg["type"] == "bridge/turnFailed":
            restart_seq = msg["seq"]  # the interrupted turn's end: what follows is after the restart
        if msg["kind"] == "queueChanged" and restart_seq is not None and after_restart is None:
            after_restart = [(item["queuedId"], item["text"]) for item in msg["items"]]
        if msg["kind"] == "messageUnqueued":
            assert msg["reason"] == "started", msg
            started_turns.append(msg["queuedId"])
            if len(started_turns) == 3:
                break
    assert after_restart == [(charlie, "charlie"), (alpha, "alpha, edited"), (bravo, "bravo")], after_restart
    assert started_turns == [charlie, alpha, bravo]
    said = [_last_user_text(body) for body in model.wait_requests(4, timeout=60)]
    assert said[1:4] == ["charlie", "alpha, edited", "bravo"], said
