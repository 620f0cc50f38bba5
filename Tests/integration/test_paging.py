"""Issue 36 item 1, paged history, with the real codex against the scripted model: `readThread {turns}` answers the
newest turns and a cursor, `readTurns` the pages before it down to the first turn, the pages together are the whole
thread as `readThread` without `turns` answers it (which is unchanged), and bad values are refused with a code (a
paged read mid-turn keeps the text streamed so far: Tests/web/test_reload_mid_turn.py, whose app reads pages). The
long thread: short scripted turns
(long_thread.py). Cost: ~30 s with the debug binary on a loaded machine."""
from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from long_thread import make_long_thread
from test_codex import request
from wsutil import hello

TURNS = 12


def ids(turns):
    return [t["id"] for t in turns]


async def test_pages_of_turns_make_the_whole_thread(codex_bridge, model, workspace):
    thread_id = await make_long_thread(codex_bridge, model, workspace, TURNS, items=3)
    ws, _ = await hello(codex_bridge)
    whole = await request(ws, "readThread", threadId=thread_id)
    assert whole["kind"] == "thread" and "olderTurns" not in whole, {k: whole[k] for k in whole if k != "thread"}
    everything = whole["thread"]["turns"]
    assert len(everything) == TURNS and all(len(t["items"]) == 3 for t in everything)

    first = await request(ws, "readThread", threadId=thread_id, turns=5)
    assert first["kind"] == "thread", first
    assert ids(first["thread"]["turns"]) == ids(everything[-5:]), "the newest five, oldest first"
    assert first["thread"]["turns"][-1]["items"] == everything[-1]["items"]
    assert first["thread"]["cwd"] == whole["thread"]["cwd"]
    cursor, pages = first["olderTurns"], [first["thread"]["turns"]]
    while cursor:
        page = await request(ws, "readTurns", threadId=thread_id, cursor=cursor, limit=5)
        assert page["kind"] == "turns" and page["threadId"] == thread_id, page
        pages.insert(0, page["turns"])
        cursor = page.get("olderTurns")
    assert [len(p) for p in pages] == [2, 5, 5]
    joined = [t for p in pages for t in p]
    assert ids(joined) == ids(everything)
    assert [t["items"] for t in joined] == [t["items"] for t in everything]
    assert joined[0]["items"][0]["content"][0]["text"] == "Question 0"

    # Refused with a code: out of range, an empty or foreign cursor (Codex's cursor names its thread).
    for fields in ({"turns": 0}, {"turns": 101}):
        refused = await request(ws, "readThread", threadId=thread_id, **fields)
        assert refused["kind"] == "error" and refused["code"] == "bad_request", refused
    other = await make_long_thread(codex_bridge, model, workspace, 2, items=2)
    for cursor in ("", "garbage", first["olderTurns"]):
        refused = await request(ws, "readTurns", threadId=other, cursor=cursor)
        assert refused["kind"] == "error" and refused["code"] == "bad_request", refused
    refused = await request(ws, "readTurns", threadId=thread_id, cursor=first["olderTurns"], limit=0)
    assert refused["code"] == "bad_request", refused

