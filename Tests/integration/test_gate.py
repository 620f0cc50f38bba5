"""Issue 11: nothing escapes the roots and the sandbox (findings 1 and 2), with the real codex and the scripted model."""
import json
import os
import pathlib
import subprocess

from codex_fixture import bridge_codex_args, codex_bin, codex_bridge, codex_home, model, workspace  # noqa: F401
from mock_model import codex_env
from test_codex import completed_status, request, until_turn_completed
from wsutil import hello

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")


def hostile_repository(repo: pathlib.Path, markers: pathlib.Path, secret_dir: pathlib.Path):
    """Sets every repository-controlled key that makes git run a program to a command that touches a marker,
    and points core.worktree at a directory holding a secret (the diff must not show it)."""
    hooks = repo / ".git" / "evil-hooks"
    hooks.mkdir()
    for hook in ("pre-commit", "post-checkout", "post-index-change", "fsmonitor-watchman"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {markers}/hook-{hook}\n")
        (hooks / hook).chmod(0o755)

    def touch(name):
        return f"touch {markers}/{name}"

    config = f"""
[core]
    fsmonitor = {touch("fsmonitor")}
    pager = {touch("pager")}
    hooksPath = {hooks}
    worktree = {secret_dir}
    sshCommand = {touch("ssh")}
    askPass = {touch("askpass")}
[diff]
    external = {touch("diff-external")}
[diff "evil"]
    textconv = sh -c '{touch("textconv")}; cat "$1"' --
    command = {touch("diff-command")}
[filter "evil"]
    clean = sh -c '{touch("filter-clean")}; cat'
    smudge = sh -c '{touch("filter-smudge")}; cat'
    process = {touch("filter-process")}
    required = true
[filter "evil.dotted"]
    clean = sh -c '{touch("filter-dotted")}; cat'
[pager]
    diff = {touch("pager-diff")}
"""
    with open(repo / ".git" / "config", "a") as f:
        f.write(config)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("* filter=evil diff=evil\n*.md filter=evil.dotted\n")
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")


async def test_get_diff_runs_nothing_the_repository_configures(codex_bridge, model, workspace, tmp_path):
    model.queue({"kind": "message", "text": "edited"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="edit")
    events, _ = await until_turn_completed(ws, started["threadId"])
    assert completed_status(events) == "completed"

    markers = tmp_path / "markers"
    markers.mkdir()
    secret_dir = tmp_path / "secret"
    secret_dir.mkdir()
    (secret_dir / "tracked.txt").write_text("SECRET-CONTENT\n")
    # What an agent inside its sandbox could do to the workspace: change a tracked file, add new ones, and
    # make the repository's config run programs.
    (workspace / "tracked.txt").write_text("two\n")
    (workspace / "created.txt").write_text("made by a command\nsecond line")
    (workspace / "notes.md").write_text("# notes\n")
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
    (workspace / "leak").symlink_to("/etc/passwd")
    os.mkfifo(workspace / "pipe")
    hostile_repository(workspace, markers, secret_dir)

    diff = await request(ws, "getDiff", threadId=started["threadId"])
    assert diff["kind"] == "diff", diff
    text = diff["diff"]
    assert sorted(p.name for p in markers.iterdir()) == []
    assert "-one" in text and "+two" in text, text
    # Untracked files are in the diff a phone sees; links are shown as links, never followed.
    assert "diff --git a/created.txt b/created.txt" in text and "+made by a command" in text
    assert "\\ No newline at end of file" in text
    assert "Binary files /dev/null and b/blob.bin differ" in text
    assert "new file mode 120000" in text and "+/etc/passwd" in text and "root:" not in text
    assert "SECRET-CONTENT" not in text


async def wait_turn(ws, thread_id):
    events, _ = await until_turn_completed(ws, thread_id)
    return events


def sandbox_mode(body) -> str:
    """The sandbox Codex ran the turn behind this model request with (from its turn metadata)."""
    return json.loads(body["client_metadata"]["x-codex-turn-metadata"])["sandbox_mode"]


async def test_requests_for_threads_outside_the_roots_are_refused(bridge_factory, model, codex_home, tmp_path):
    """Two bridges on one Codex home: B (root b/) must not see or drive A's thread (in a/, danger-full-access);
    C (root: their parent, danger not allowed) may drive it, but never with A's stored danger-full-access."""
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        subprocess.run(["git", "init", "-q", str(d)], check=True)
    env = codex_env(codex_home)
    common = ["--codex", codex_bin(), *bridge_codex_args(model.port)]
    bridge_a = bridge_factory(name="state-a", args=[*common, "--root", str(a), "--allow-danger-full-access"], env=env)
    bridge_b = bridge_factory(name="state-b", args=[*common, "--root", str(b)], env=env)

    model.queue({"kind": "message", "text": "a done"})
    ws_a, ack_a = await hello(bridge_a)
    started = await request(ws_a, "startThread", cwd=str(a), prompt="work in a", sandbox="danger-full-access",
                            approvalPolicy="never")
    assert started["kind"] == "threadStarted", started
    thread = started["threadId"]
    assert completed_status(await wait_turn(ws_a, thread)) == "completed"
    await ws_a.close()

    ws_b, ack_b = await hello(bridge_b)
    listed = await request(ws_b, "listThreads", limit=50)
    assert listed["kind"] == "threads" and thread not in [t["threadId"] for t in listed["threads"]]
    requests_before = len(model.requests)
    for kind, fields in (("readThread", {}), ("getDiff", {}), ("sendMessage", {"text": "rm -rf ~"}),
                         ("interrupt", {}), ("subscribe", {})):
        answer = await request(ws_b, kind, threadId=thread, **fields)
        assert answer["kind"] == "error" and answer["code"] == "forbidden_path", (kind, answer)
    unknown = await request(ws_b, "subscribe", threadId="00000000-0000-0000-0000-000000000000")
    assert unknown["kind"] == "error" and unknown["code"] == "not_found", unknown
    listing = await request(ws_b, "listDirectory", path=str(a))
    assert listing["kind"] == "error" and listing["code"] == "forbidden_path"
    assert len(model.requests) == requests_before  # no turn reached the model
    assert "danger-full-access" in ack_a["policy"]["sandboxes"]
    assert ack_b["policy"]["roots"] == [os.path.realpath(b)]
    assert "danger-full-access" not in ack_b["policy"]["sandboxes"]
    await ws_b.close()
    bridge_a.stop()
    bridge_b.stop()

    # C's root holds a/, but C does not allow danger-full-access: a turn it starts on A's thread runs with
    # C's default sandbox, whatever Codex stored with the thread.
    bridge_c = bridge_factory(name="state-c", args=[*common, "--root", str(tmp_path)], env=env)
    model.queue({"kind": "message", "text": "c done"})
    ws_c, _ = await hello(bridge_c)
    sub = await request(ws_c, "subscribe", threadId=thread)
    assert sub["kind"] == "subscribed", sub
    sent = await request(ws_c, "sendMessage", threadId=thread, text="continue")
    assert sent["kind"] == "accepted", sent
    assert completed_status(await wait_turn(ws_c, thread)) == "completed"
    assert sandbox_mode(model.requests[requests_before - 1]) == "danger-full-access"  # A's own turn
    assert sandbox_mode(model.requests[-1]) == "workspace-write"
    await ws_c.close()


async def test_list_directory_inside_the_roots(codex_bridge, workspace):
    (workspace / "src").mkdir()
    (workspace / ".hidden").mkdir()
    (workspace / "sub-repo").mkdir()
    subprocess.run(["git", "init", "-q", str(workspace / "sub-repo")], check=True)
    ws, ack = await hello(codex_bridge)
    root = ack["policy"]["roots"][0]
    listing = await request(ws, "listDirectory", path=root)
    assert listing["kind"] == "directory" and listing["path"] == root
    entries = listing["entries"]
    dirs = [e["name"] for e in entries if e["kind"] == "dir"]
    assert dirs == [".git", ".hidden", "src", "sub-repo"]
    assert entries[len(dirs)]["kind"] == "file"  # directories first
    assert next(e for e in entries if e["name"] == "sub-repo")["git"] is True
    assert next(e for e in entries if e["name"] == "src")["git"] is False
    for path in ("/", "/etc", str(workspace / ".."), "relative", str(workspace / "nope")):
        answer = await request(ws, "listDirectory", path=path)
        assert answer["kind"] == "error" and answer["code"] == "forbidden_path", (path, answer)


async def test_models_rename_archive_and_files_with_the_real_codex(codex_bridge, model, workspace):
    """Issue 15 (part): listModels, a model/effort on startThread, renameThread, archiveThread, readFile."""
    ws, _ = await hello(codex_bridge)
    models = await request(ws, "listModels")
    assert models["kind"] == "models" and models["models"], models
    default = next((m for m in models["models"] if m["isDefault"]), models["models"][0])
    effort = default["efforts"][0] if default["efforts"] else None
    bad = await request(ws, "startThread", cwd=str(workspace), prompt="x", model="no-such-model")
    assert bad["kind"] == "error" and bad["code"] == "bad_request" and default["id"] in bad["message"]
    model.queue({"kind": "message", "text": "ok"})
    fields = {"effort": effort} if effort else {}
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hello", **fields)
    assert started["kind"] == "threadStarted", started
    thread = started["threadId"]
    await until_turn_completed(ws, thread)
    if effort:
        assert model.requests[-1]["reasoning"].get("effort") == effort
    renamed = await request(ws, "renameThread", threadId=thread, name="Fix the date test")
    assert renamed["kind"] == "accepted", renamed
    read = await request(ws, "readThread", threadId=thread)
    assert read["thread"].get("name") == "Fix the date test"
    # Issue 28 item 4 (seen failing before: listThreads left the name out, the list showed the first prompt).
    listed = await request(ws, "listThreads", limit=50)
    mine = next(t for t in listed["threads"] if t["threadId"] == thread)
    assert mine.get("name") == "Fix the date test" and mine.get("model") == "mock-model", mine
    # Issue 26: the branch Codex recorded for the thread's repository (its gitInfo).
    branch = subprocess.run(
        ["git", "-C", str(workspace), "branch", "--show-current"], capture_output=True, text=True, check=True).stdout.strip()
    assert branch and mine.get("branch") == branch, mine
    (workspace / "notes.md").write_text("# Notes\n")
    file = await request(ws, "readFile", threadId=thread, path="notes.md")
    assert file["kind"] == "file" and file["text"] == "# Notes\n" and file["path"] == os.path.realpath(workspace / "notes.md")
    outside = await request(ws, "readFile", threadId=thread, path="../../etc/passwd")
    assert outside["kind"] == "error" and outside["code"] == "forbidden_path"
    # Without a ChatGPT login Codex cannot read rate limits: its own reason reaches the client.
    usage = await request(ws, "usage")
    assert usage["kind"] == "error" and usage["code"] == "codex_error" and "authentication" in usage["message"], usage
    archived = await request(ws, "archiveThread", threadId=thread)
    assert archived["kind"] == "accepted", archived
    listed = await request(ws, "listThreads", limit=50)
    assert thread not in [t["threadId"] for t in listed["threads"]]
