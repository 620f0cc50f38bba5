"""A long thread made cheaply with the real codex (issue 36, paged history): many short turns, each one scripted
response of several assistant messages (mock_model's `messages` kind), so a turn is one model request however many
items it holds. 250 turns of 20 items (about 2 MB) take about two minutes here; the tests use a few dozen."""
from test_codex import request, until_turn_completed
from wsutil import hello

FILLER = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. "


def answers(turn: int, count: int, chars: int) -> list:
    """`count` assistant messages of about `chars` characters for turn `turn`; the first names the turn."""
    body = (FILLER * (chars // len(FILLER) + 1))[:chars]
    return [f"Answer {turn}.{i}: {body}" for i in range(count)]


async def make_long_thread(bridge, model, workspace, turns: int, items: int = 4, chars: int = 80,
                           prompt=lambda n: f"Question {n}") -> str:
    """A thread of `turns` turns of `items` items each (the prompt and items - 1 answers); returns its id."""
    ws, _ = await hello(bridge)
    model.queue({"kind": "messages", "texts": answers(0, items - 1, chars)})
    started = await request(ws, "startThread", cwd=str(workspace), prompt=prompt(0))
    assert started["kind"] == "threadStarted", started
    thread_id = started["threadId"]
    await until_turn_completed(ws, thread_id, timeout=120)
    for n in range(1, turns):
        model.queue({"kind": "messages", "texts": answers(n, items - 1, chars)})
        sent = await request(ws, "sendMessage", threadId=thread_id, text=prompt(n))
        assert sent["kind"] == "accepted", sent
        await until_turn_completed(ws, thread_id, timeout=120)
    await ws.close()
    return thread_id
