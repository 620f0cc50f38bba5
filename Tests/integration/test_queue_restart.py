"""Issue 23 part 2: nothing lost from the queue. A follow-up queued behind a running turn survives kill -9 of the
bridge: after the restart every subscriber is told it still waits, `cancelQueued` still works, and the oldest
starts as the thread's next turn (the turn the crash interrupted counts as ended). The real bridge and the real
codex against the scripted model. Seen failing before the queue was kept on disk: the restart reported both
messages `failed` and the model never saw the queued text."""
import signal

from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from test_codex import frames, request
from wsutil import hello


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
