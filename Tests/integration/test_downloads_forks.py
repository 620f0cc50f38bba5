"""Issue 15: `GET /files` (a file too large for readFile), archived threads and forks, with the real codex."""
import json
import os
import urllib.error
import urllib.parse
import urllib.request

from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from test_codex import request, until_turn_completed
from wsutil import hello


def get_file(bridge, thread_id, path, token=None):
    query = urllib.parse.urlencode({"threadId": thread_id, **({} if path is None else {"path": path})})
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    req = urllib.request.Request(f"http://127.0.0.1:{bridge.port}/files?{query}", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=20) as res:
            return res.status, dict(res.headers), res.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read() or b"{}")


async def test_a_large_file_downloads_whole_and_nothing_outside_the_thread(codex_bridge, model, workspace, tmp_path):
    big = os.urandom(3 * 1024 * 1024 + 17)
    (workspace / "dump.bin").write_bytes(big)
    (workspace / "notes.md").write_text("# hi\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (workspace / "leak.txt").symlink_to(outside / "secret.txt")
    model.queue({"kind": "message", "text": "ok"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hi")
    assert started["kind"] == "threadStarted", started
    thread = started["threadId"]
    await until_turn_completed(ws, thread)
    too_large = await request(ws, "readFile", threadId=thread, path="dump.bin")
    assert too_large["kind"] == "error" and too_large["code"] == "too_large", too_large

    status, headers, body = get_file(codex_bridge, thread, "dump.bin")
    assert status == 401 and body["code"] == "unauthorized", body
    status, headers, body = get_file(codex_bridge, thread, "dump.bin", token="wrong")
    assert status == 401
    status, headers, body = get_file(codex_bridge, thread, "dump.bin", token=codex_bridge.token)
    assert status == 200 and body == big
    assert headers["Content-Type"] == "application/octet-stream"
    assert headers["Content-Disposition"].startswith('attachment; filename="dump.bin"'), headers
    assert headers["Content-Length"] == str(len(big))
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Content-Security-Policy"].startswith("sandbox"), headers
    status, headers, body = get_file(codex_bridge, thread, str(workspace / "notes.md"), token=codex_bridge.token)
    assert status == 200 and body == b"# hi\n" and headers["Content-Type"].startswith("text/markdown")

    for path in ["leak.txt", "../outside/secret.txt", str(outside / "secret.txt"), "missing.txt", "."]:
        status, _, body = get_file(codex_bridge, thread, path, token=codex_bridge.token)
        assert status == 403 and body["code"] == "forbidden_path", (path, body)
    (workspace / ".git").mkdir(exist_ok=True)
    (workspace / ".git" / "config").write_text("[core]\n")
    status, _, body = get_file(codex_bridge, thread, ".git/config", token=codex_bridge.token)
    assert status == 403 and body["code"] == "forbidden_path", body
    status, _, body = get_file(codex_bridge, "00000000-0000-0000-0000-000000000000", "dump.bin", token=codex_bridge.token)
    assert status == 404 and body["code"] == "not_found", body
    status, _, body = get_file(codex_bridge, thread, None, token=codex_bridge.token)
    assert status == 400 and body["code"] == "bad_request", body
    # The WebSocket session is untouched by all this.
    assert (await request(ws, "readFile", threadId=thread, path="notes.md"))["kind"] == "file"


async def test_a_fork_carries_the_history_and_archived_threads_are_listed_apart(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "first answer"}, {"kind": "message", "text": "second answer"},
                {"kind": "message", "text": "fork answer"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="first question")
    source = started["threadId"]
    await until_turn_completed(ws, source)
    first_turn = started["turnId"]
    sent = await request(ws, "sendMessage", threadId=source, text="second question")
    assert sent["kind"] == "accepted", sent
    await until_turn_completed(ws, source)

    forked = await request(ws, "forkThread", threadId=source, turnId=first_turn)
    assert forked["kind"] == "threadForked", forked
    fork = forked["threadId"]
    assert fork != source and forked["forkedFrom"] == source and forked["cwd"] == str(workspace.resolve())
    snapshot = await request(ws, "readThread", threadId=fork)
    assert snapshot["kind"] == "thread", snapshot
    history = json.dumps(snapshot["thread"])
    assert "first question" in history and "second question" not in history
    # The fork takes messages and runs like any thread; its events reach the forking client.
    sent = await request(ws, "sendMessage", threadId=fork, text="on the fork")
    assert sent["kind"] == "accepted", sent
    events, _ = await until_turn_completed(ws, fork)
    assert "fork answer" in json.dumps(events)
    assert "first question" in json.dumps(model.requests[-1]) and "second question" not in json.dumps(model.requests[-1])

    bad = await request(ws, "forkThread", threadId=source, turnId="no-such-turn")
    assert bad["kind"] == "error" and bad["code"] in ("bad_request", "not_found"), bad
    unknown = await request(ws, "forkThread", threadId="00000000-0000-0000-0000-000000000000")
    assert unknown["kind"] == "error" and unknown["code"] == "not_found", unknown
    wrong = await request(ws, "listThreads", archived="yes")
    assert wrong["kind"] == "error" and wrong["code"] == "bad_request", wrong

    assert (await request(ws, "archiveThread", threadId=source))["kind"] == "accepted"
    current = await request(ws, "listThreads")
    archived = await request(ws, "listThreads", archived=True)
    assert source not in [t["threadId"] for t in current["threads"]], current
    assert fork in [t["threadId"] for t in current["threads"]], current
    assert [t["threadId"] for t in archived["threads"]] == [source], archived


async def test_skills_of_the_threads_directory(bridge_factory, model, codex_home, workspace):
    from codex_fixture import bridge_codex_args, codex_bin
    from mock_model import codex_env
    skill = codex_home / "skills" / "deploy-staging"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy-staging\ndescription: Ship the app to staging\n---\n\nRun make deploy.\n")
    bridge = bridge_factory(name="skills", env=codex_env(codex_home), args=[
        "--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)])
    model.queue({"kind": "message", "text": "ok"})
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hi")
    await until_turn_completed(ws, started["threadId"])
    skills = await request(ws, "listSkills", threadId=started["threadId"])
    assert skills["kind"] == "skills", skills
    assert {"name": "deploy-staging", "description": "Ship the app to staging"} in skills["skills"], skills
    unknown = await request(ws, "listSkills", threadId="00000000-0000-0000-0000-000000000000")
    assert unknown["kind"] == "error" and unknown["code"] == "not_found", unknown
