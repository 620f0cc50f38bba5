"""Issue 15: the agent's questions and queued follow-ups, with the real codex against the scripted model."""
import asyncio
import json

from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from test_codex import agent_text, completed_status, frames, request, until_turn_completed
from wsutil import hello

QUESTION = {"id": "colour", "header": "Colour", "question": "Which colour?",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}


async def next_kind(ws, kind, timeout=60):
    async for msg in frames(ws, timeout):
        if msg["kind"] == kind:
            return msg


async def test_a_question_reaches_every_client_and_the_first_answer_reaches_the_model(codex_bridge, model, workspace):
    model.queue({"kind": "ask", "questions": [QUESTION]}, {"kind": "echo_output"})
    phone, _ = await hello(codex_bridge)
    laptop, _ = await hello(codex_bridge)
    assert (await request(laptop, "subscribe", threadId="*"))["kind"] == "subscribed"
    started = await request(phone, "startThread", cwd=str(workspace), prompt="ask me")
    assert started["kind"] == "threadStarted", started
    asked = await next_kind(phone, "inputRequest")
    seen = await next_kind(laptop, "inputRequest")
    assert asked["requestId"] == seen["requestId"] and asked["type"] == "userInput"
    assert asked["threadId"] == started["threadId"] and asked["turnId"] == started["turnId"]
    assert asked["questions"][0]["id"] == "colour"
    assert [o["label"] for o in asked["questions"][0]["options"]] == ["Red", "Blue"]
    wrong = await request(phone, "answerInput", requestId=asked["requestId"], answers={"size": ["L"]})
    assert wrong["kind"] == "error" and wrong["code"] == "bad_request", wrong
    answer = await request(phone, "answerInput", requestId=asked["requestId"], answers={"colour": ["Blue"]})
    assert answer["kind"] == "accepted" and answer["requestId"] == asked["requestId"], answer
    late = await request(laptop, "answerInput", requestId=asked["requestId"], action="decline")
    assert late["kind"] == "error" and late["code"] == "input_not_pending", late
    events, others = await until_turn_completed(phone, started["threadId"])
    assert completed_status(events) == "completed"
    resolved = [m for m in others if m["kind"] == "inputResolved"]
    assert [r["action"] for r in resolved] == ["accept"] and resolved[0]["seq"] > asked["seq"]
    # What the model got back from the tool is the answer chosen on the phone.
    assert json.loads(agent_text(events)) == {"answers": {"colour": {"answers": ["Blue"]}}}
    _, others = await until_turn_completed(laptop, started["threadId"])
    assert any(m["kind"] == "inputResolved" for m in others)


async def test_a_declined_question_does_not_hang_the_turn(codex_bridge, model, workspace):
    model.queue({"kind": "ask", "questions": [QUESTION]}, {"kind": "echo_output"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="ask me")
    asked = await next_kind(ws, "inputRequest")
    answer = await request(ws, "answerInput", requestId=asked["requestId"], action="decline")
    assert answer["kind"] == "accepted", answer
    events, _ = await until_turn_completed(ws, started["threadId"])
    assert completed_status(events) == "completed"
    assert json.loads(agent_text(events)) == {"answers": {}}
    stale = await request(ws, "answerInput", requestId="in-0-0-deadbeef", answers={"colour": ["Red"]})
    assert stale["kind"] == "error" and stale["code"] == "input_not_pending"


async def test_a_queued_message_becomes_the_next_turn(codex_bridge, model, workspace):
    model.queue({"kind": "stall", "text": "first done"}, {"kind": "message", "text": "second done"})
    phone, _ = await hello(codex_bridge)
    laptop, _ = await hello(codex_bridge)
    await request(laptop, "subscribe", threadId="*")
    started = await request(phone, "startThread", cwd=str(workspace), prompt="one")
    thread = started["threadId"]
    async for msg in frames(phone):
        if msg["kind"] == "event" and msg["type"] == "turn/started":
            break
    model.wait_requests(1)
    queued = await request(phone, "sendMessage", threadId=thread, text="two, queued", mode="queue")
    assert queued["kind"] == "accepted" and queued["queuedId"] and "turnId" not in queued, queued
    dropped = await request(phone, "sendMessage", threadId=thread, text="xyzzy-cancelled", mode="queue")
    cancel = await request(laptop, "cancelQueued", threadId=thread, queuedId=dropped["queuedId"])
    assert cancel["kind"] == "accepted", cancel
    again = await request(laptop, "cancelQueued", threadId=thread, queuedId=dropped["queuedId"])
    assert again["kind"] == "error" and again["code"] == "not_found"
    announced = await next_kind(laptop, "messageQueued")
    assert announced["queuedId"] == queued["queuedId"] and announced["text"] == "two, queued"
    model.release()
    events, others = await until_turn_completed(phone, thread)
    assert agent_text(events) == "first done"
    unqueued = None
    async for msg in frames(phone):
        if msg["kind"] == "messageUnqueued" and msg["queuedId"] == queued["queuedId"]:
            unqueued = msg
            break
    assert unqueued["reason"] == "started" and unqueued["turnId"] != started["turnId"]
    events, _ = await until_turn_completed(phone, thread)
    assert agent_text(events) == "second done"
    assert all(e["turnId"] == unqueued["turnId"] for e in events if e["type"].startswith("turn/"))
    # The model saw the queued text as a new user turn, and never the cancelled one.
    bodies = json.dumps(model.requests)
    assert "two, queued" in bodies and "xyzzy-cancelled" not in bodies
    cancelled = [m for m in others if m["kind"] == "messageUnqueued" and m["reason"] == "cancelled"]
    assert [m["queuedId"] for m in cancelled] == [dropped["queuedId"]]
    await asyncio.sleep(0)


def png(width=2, height=2, pad=b"") -> bytes:
    """A valid RGB PNG (optionally with a text chunk of `pad` bytes to make it bigger)."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + (chunk(b"tEXt", b"pad\x00" + pad) if pad else b"") + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def post_upload(bridge, body: bytes, token=None, content_type="image/png"):
    import urllib.error
    import urllib.request
    headers = {"Content-Type": content_type}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(f"http://127.0.0.1:{bridge.port}/uploads", data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


async def test_an_attached_image_reaches_the_model_and_is_deleted_after_the_turn(
        bridge_factory, model, codex_home, workspace):
    import os
    import stat

    from codex_fixture import bridge_codex_args, codex_bin
    from mock_model import codex_env
    bridge = bridge_factory(name="uploads", env=codex_env(codex_home), args=[
        "--codex", codex_bin(), "--root", str(workspace), "--max-upload-bytes", "4096", *bridge_codex_args(model.port)])
    image = png()
    assert post_upload(bridge, image)[0] == 401
    assert post_upload(bridge, image, token="not-the-token")[0] == 401
    status, body = post_upload(bridge, b"GIF89a not what we take", token=bridge.token)
    assert status == 415 and body["code"] == "unsupported_media", body
    # The declared type is not trusted: text labelled image/png is still text.
    status, body = post_upload(bridge, b"hello, I am text", token=bridge.token, content_type="image/png")
    assert status == 415 and body["code"] == "unsupported_media", body
    status, body = post_upload(bridge, png(pad=b"x" * 5000), token=bridge.token)
    assert status == 413 and body["code"] == "too_large", body
    status, body = post_upload(bridge, image, token=bridge.token)
    assert status == 201 and body["mimeType"] == "image/png" and body["size"] == len(image), body
    upload_id = body["uploadId"]
    stored = [p for p in (bridge.state_dir / "uploads").iterdir()]
    assert len(stored) == 1 and upload_id in stored[0].name
    assert stat.S_IMODE(os.stat(stored[0]).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(bridge.state_dir / "uploads").st_mode) == 0o700

    model.queue({"kind": "echo_images"})
    ws, _ = await hello(bridge)
    unknown = await request(ws, "startThread", cwd=str(workspace), prompt="look", attachments=["up-" + "0" * 32])
    assert unknown["kind"] == "error" and unknown["code"] == "not_found", unknown
    started = await request(ws, "startThread", cwd=str(workspace), prompt="what is in this picture?", attachments=[upload_id])
    assert started["kind"] == "threadStarted", started
    events, _ = await until_turn_completed(ws, started["threadId"])
    seen = json.loads(agent_text(events))
    assert [i["mime"] for i in seen["images"]] == ["image/png"], seen
    assert seen["images"][0]["bytes"] > 0
    assert any(upload_id in note for note in seen["notes"]), seen
    # The turn that used it ended: the file is gone, and the id cannot be used again.
    assert list((bridge.state_dir / "uploads").iterdir()) == []
    again = await request(ws, "sendMessage", threadId=started["threadId"], text="again", attachments=[upload_id])
    assert again["kind"] == "error" and again["code"] == "not_found", again
    # An audio clip becomes a localAudio input.
    import io
    import wave
    clip = io.BytesIO()
    with wave.open(clip, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * 400)
    status, body = post_upload(bridge, clip.getvalue(), token=bridge.token, content_type="application/octet-stream")
    assert status == 201 and body["mimeType"] == "audio/wav", body
    model.queue({"kind": "message", "text": "heard"})
    sent = await request(ws, "sendMessage", threadId=started["threadId"], text="listen", attachments=[body["uploadId"]])
    assert sent["kind"] == "accepted", sent
    events, _ = await until_turn_completed(ws, started["threadId"])
    assert agent_text(events) == "heard"
    assert "<audio" in json.dumps(model.requests[-1]) and body["uploadId"] in json.dumps(model.requests[-1])
    assert list((bridge.state_dir / "uploads").iterdir()) == []


async def test_search_files_finds_files_of_the_thread_only(codex_bridge, model, workspace, tmp_path):
    (workspace / "app").mkdir()
    (workspace / "app" / "dates.py").write_text("x\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "dates_secret.py").write_text("secret\n")
    (workspace / "linked").symlink_to(outside)
    model.queue({"kind": "message", "text": "ok"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hi")
    await until_turn_completed(ws, started["threadId"])
    found = await request(ws, "searchFiles", threadId=started["threadId"], query="dates")
    assert found["kind"] == "files", found
    paths = [f["path"] for f in found["files"]]
    assert "app/dates.py" in paths, found
    assert not any("secret" in p for p in paths), found
    bad = await request(ws, "searchFiles", threadId=started["threadId"], query="")
    assert bad["kind"] == "error" and bad["code"] == "bad_request"
    unknown = await request(ws, "searchFiles", threadId="00000000-0000-0000-0000-000000000000", query="dates")
    assert unknown["kind"] == "error" and unknown["code"] in ("not_found", "codex_error"), unknown


REVIEW = {"findings": [{"title": "Off by one in the loop", "body": "The loop stops one early.", "confidence_score": 0.9,
                        "priority": 1, "code_location": {"absolute_file_path": "tracked.txt",
                                                         "line_range": {"start": 1, "end": 1}}}],
          "overall_correctness": "patch is incorrect", "overall_explanation": "One bug.", "overall_confidence_score": 0.8}


async def test_a_review_streams_its_findings_as_a_turn(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "ok"}, {"kind": "message", "text": json.dumps(REVIEW)})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hi")
    thread = started["threadId"]
    await until_turn_completed(ws, thread)
    (workspace / "tracked.txt").write_text("two\n")
    bad = await request(ws, "startReview", threadId=thread, target={"commit": "not-a-sha"})
    assert bad["kind"] == "error" and bad["code"] == "bad_request", bad
    flag = await request(ws, "startReview", threadId=thread, target={"base": "--output=/tmp/x"})
    assert flag["kind"] == "error" and flag["code"] == "bad_request", flag
    review = await request(ws, "startReview", threadId=thread, target="uncommitted")
    assert review["kind"] == "accepted" and review["turnId"] and review["turnId"] != started["turnId"], review
    events, _ = await until_turn_completed(ws, thread)
    assert completed_status(events) == "completed"
    assert all(e["turnId"] == review["turnId"] for e in events if e["type"].startswith("turn/"))
    texts = json.dumps([e["data"] for e in events if e["type"] == "item/completed"])
    assert "Off by one in the loop" in texts, [e["type"] for e in events]
    # The model was asked to review (Codex's review prompt), not to answer a chat message.
    assert "review" in json.dumps(model.requests[-1]).lower()
    # The review's turn is over for the bridge too: nothing to interrupt, and a follow-up starts a new turn.
    none = await request(ws, "interrupt", threadId=thread)
    assert none["kind"] == "error" and none["code"] == "conflict", none


async def test_an_mcp_servers_form_reaches_the_phone_and_its_answer_the_server(bridge_factory, model, codex_home, workspace):
    import pathlib
    import sys

    from codex_fixture import bridge_codex_args, codex_bin
    from mcp_elicit import mcp_args
    from mock_model import codex_env
    script = str(pathlib.Path(__file__).with_name("mcp_elicit.py"))
    extra = [a for value in mcp_args(sys.executable, script) for a in ("--codex-config", value)]
    bridge = bridge_factory(name="mcp", env=codex_env(codex_home), args=[
        "--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port), *extra])
    model.queue({"kind": "call", "namespace": "mcp__tickets", "name": "ask_ticket"}, {"kind": "echo_output"})
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="pick a ticket")
    assert started["kind"] == "threadStarted", started
    # Codex itself first asks, as an elicitation with no fields, whether the tool may run.
    allow = await next_kind(ws, "inputRequest", timeout=60)
    assert allow["type"] == "elicitation" and "ask_ticket" in allow["message"], allow
    assert (await request(ws, "answerInput", requestId=allow["requestId"], action="accept", content={}))["kind"] == "accepted"
    asked = await next_kind(ws, "inputRequest", timeout=60)
    assert asked["type"] == "elicitation" and asked["serverName"] == "tickets", asked
    assert asked["message"] == "Which ticket should I work on?" and asked["schema"]["required"] == ["ticket"]
    missing = await request(ws, "answerInput", requestId=asked["requestId"], action="accept", content={})
    assert missing["kind"] == "error" and missing["code"] == "bad_request", missing
    answer = await request(ws, "answerInput", requestId=asked["requestId"], action="accept", content={"ticket": 42})
    assert answer["kind"] == "accepted", answer
    events, _ = await until_turn_completed(ws, started["threadId"])
    assert completed_status(events) == "completed"
    # The server got the phone's answer and returned it as the tool's result, which the model read.
    assert '\\"ticket\\": 42' in agent_text(events) and '\\"action\\": \\"accept\\"' in agent_text(events), agent_text(events)
    # Why a tool is there: the thread's MCP servers (state and tool names) and hooks, as Codex reports them.
    tools = await request(ws, "listTools", threadId=started["threadId"])
    assert tools["kind"] == "tools" and isinstance(tools["hooks"], list), tools
    tickets = next(s for s in tools["mcpServers"] if s["name"] == "tickets")
    assert tickets["tools"] == ["ask_priority", "ask_ticket"] and tickets.get("status") in (None, "connected"), tickets
    assert (await request(ws, "listTools"))["kind"] == "tools"
    # OpenAI's form extension: the bridge declares it at `initialize`, so Codex offers it to its MCP servers, and a
    # form the server sends with it (mode openai/form) reaches the phone and its answer the server.
    model.queue({"kind": "call", "namespace": "mcp__tickets", "name": "ask_priority"}, {"kind": "echo_output"})
    assert (await request(ws, "sendMessage", threadId=started["threadId"], text="how urgent?"))["kind"] == "accepted"
    allow = await next_kind(ws, "inputRequest", timeout=60)
    assert "ask_priority" in allow["message"], allow
    assert (await request(ws, "answerInput", requestId=allow["requestId"], action="accept", content={}))["kind"] == "accepted"
    asked = await next_kind(ws, "inputRequest", timeout=60)
    assert asked["message"] == "How urgent is it?" and asked["schema"]["properties"]["priority"]["enum"] == ["low", "high"], asked
    answer = await request(ws, "answerInput", requestId=asked["requestId"], action="accept", content={"priority": "high"})
    assert answer["kind"] == "accepted", answer
    events, _ = await until_turn_completed(ws, started["threadId"])
    assert '\\"priority\\": \\"high\\"' in agent_text(events), agent_text(events)
