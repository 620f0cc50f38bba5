"""Issue 34 item 3: Codex's token usage reaches a thread's subscribers as an event with Codex's own method as
`type` (`thread/tokenUsage/updated`), journaled like any thread event, with the real codex (the scripted model
reports usage with every response)."""
from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from test_codex import request, until_turn_completed
from wsutil import hello


async def test_token_usage_reaches_the_thread_and_its_journal(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "counted"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="count my tokens")
    events, _ = await until_turn_completed(ws, started["threadId"])
    usage = [e for e in events if e["type"] == "thread/tokenUsage/updated"]
    assert usage, [e["type"] for e in events]
    data = usage[-1]["data"]
    assert data["threadId"] == started["threadId"] and data["turnId"] == started["turnId"]
    assert data["tokenUsage"]["total"]["totalTokens"] > 0 and "last" in data["tokenUsage"], data
    # A phone that opens the thread later gets it from the journal (exactly once, in order).
    late, _ = await hello(codex_bridge)
    sub = await request(late, "subscribe", threadId=started["threadId"], afterSeq=0)
    assert sub["kind"] == "subscribed", sub
    replayed, _ = await until_turn_completed(late, started["threadId"])
    assert [e["seq"] for e in replayed if e["type"] == "thread/tokenUsage/updated"] == [e["seq"] for e in usage]
    # readThread carries the last count beside Codex's thread (a page opened later shows its meter at once).
    read = await request(late, "readThread", threadId=started["threadId"])
    assert read["kind"] == "thread" and read["tokenUsage"] == data["tokenUsage"], read
