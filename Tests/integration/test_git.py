"""Issue 24, git from the phone: status, commit, branch, switch and push through the real binary, with the real
codex against the scripted model, a real git and a bare remote on disk (file://). Also the hostile repository
end to end: planted hooks, fsmonitor, credential helper and receive-pack program never run. Cost: two bridges,
~10 s in all."""
import json
import os
import subprocess

import pytest

from codex_fixture import bridge_codex_args, codex_bin, codex_home, model, workspace  # noqa: F401 (fixtures)
from mock_model import codex_env
from test_codex import request, until_turn_completed
from wsutil import hello


def git(*args, cwd=None, env=None):
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def git_home(tmp_path):
    """A HOME for the bridge with the user's global git configuration (identity only)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Ana\n\temail = ana@example.com\n")
    return home


@pytest.fixture
def remote(tmp_path, workspace):
    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(bare))
    git("-C", str(workspace), "remote", "add", "origin", f"file://{bare}")
    return bare


@pytest.fixture
def git_bridge(bridge_factory, model, codex_home, workspace, git_home):
    env = codex_env(codex_home)
    env["HOME"] = str(git_home)
    env.pop("XDG_CONFIG_HOME", None)
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)]
    return bridge_factory(name="git-state", args=args, env=env)


async def started_thread(bridge, model, workspace):
    model.queue({"kind": "message", "text": "done"})
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="work")
    assert started["kind"] == "threadStarted", started
    await until_turn_completed(ws, started["threadId"])
    return ws, started["threadId"]


async def test_status_commit_branch_switch_and_push_from_the_phone(git_bridge, model, workspace, remote):
    ws, thread = await started_thread(git_bridge, model, workspace)
    (workspace / "tracked.txt").write_text("two\n")
    (workspace / "new.txt").write_text("new\n")
    status = await request(ws, "gitStatus", threadId=thread)
    assert status["kind"] == "gitStatus", status
    assert status["branch"] == "master" or status["branch"] == "main", status
    branch = status["branch"]
    files = {f["path"]: (f["index"], f["worktree"]) for f in status["files"]}
    assert files == {"tracked.txt": (".", "M"), "new.txt": ("?", "?")}, status
    assert status["ahead"] == 0 and status["behind"] == 0 and status["root"] == str(workspace)

    committed = await request(ws, "gitCommit", threadId=thread, message="Change tracked, add new")
    assert committed["kind"] == "gitCommitted" and committed["branch"] == branch, committed
    assert committed["sha"] == git("-C", str(workspace), "rev-parse", "HEAD")
    assert git("-C", str(workspace), "log", "-1", "--format=%an <%ae> %s") == "Ana <ana@example.com> Change tracked, add new"
    nothing = await request(ws, "gitCommit", threadId=thread, message="again")
    assert nothing["kind"] == "error" and nothing["code"] == "bad_request" and "nothing to commit" in nothing["message"]

    no_upstream = await request(ws, "gitPush", threadId=thread)
    assert no_upstream["kind"] == "error" and no_upstream["code"] == "conflict", no_upstream
    pushed = await request(ws, "gitPush", threadId=thread, setUpstream=True)
    assert pushed == {"kind": "gitPushed", "id": pushed["id"], "threadId": thread, "remote": "origin", "branch": branch}
    assert git("--git-dir", str(remote), "rev-parse", branch) == committed["sha"]
    status = await request(ws, "gitStatus", threadId=thread)
    assert status["upstream"] == f"origin/{branch}" and status["files"] == [], status

    branched = await request(ws, "gitBranch", threadId=thread, name="feature/phone")
    assert branched["kind"] == "gitBranched" and branched["branch"] == "feature/phone", branched
    again = await request(ws, "gitBranch", threadId=thread, name="feature/phone")
    assert again["kind"] == "error" and again["code"] == "conflict", again
    (workspace / "tracked.txt").write_text("on the branch\n")
    assert (await request(ws, "gitCommit", threadId=thread, message="On the branch"))["kind"] == "gitCommitted"
    switched = await request(ws, "gitSwitch", threadId=thread, branch=branch)
    assert switched["kind"] == "gitBranched" and switched["branch"] == branch, switched
    assert (workspace / "tracked.txt").read_text() == "two\n"
    bad = await request(ws, "gitSwitch", threadId=thread, branch="--orphan=x")
    assert bad["kind"] == "error" and bad["code"] == "bad_request", bad

    # Someone else pushed: a one-line conflict naming git's reason.
    other = workspace.parent / "other"
    git("clone", "-q", f"file://{remote}", str(other))
    (other / "theirs.txt").write_text("x\n")
    env = dict(os.environ, GIT_AUTHOR_NAME="o", GIT_AUTHOR_EMAIL="o@o", GIT_COMMITTER_NAME="o", GIT_COMMITTER_EMAIL="o@o")
    git("-C", str(other), "add", ".", env=env)
    git("-C", str(other), "commit", "-qm", "theirs", env=env)
    git("-C", str(other), "push", "-q", "origin", branch, env=env)
    (workspace / "mine.txt").write_text("mine\n")
    assert (await request(ws, "gitCommit", threadId=thread, message="Mine", paths=["mine.txt"]))["kind"] == "gitCommitted"
    rejected = await request(ws, "gitPush", threadId=thread)
    assert rejected["kind"] == "error" and rejected["code"] == "conflict", rejected
    assert "fetch first" in rejected["message"] and "\n" not in rejected["message"], rejected


async def test_a_hostile_repository_runs_nothing_through_the_bridge(git_bridge, model, workspace, remote, tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()

    def script(name):
        path = tmp_path / f"evil-{name}"
        path.write_text(f"#!/bin/sh\ntouch {markers}/{name}\nexit 0\n")
        path.chmod(0o755)
        return path

    hooks = tmp_path / "evil-hooks"
    hooks.mkdir()
    for hook in ("post-commit", "pre-push", "post-checkout", "reference-transaction", "post-index-change"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {markers}/hook-{hook}\n")
        (hooks / hook).chmod(0o755)
    for hook in ("pre-receive", "post-receive", "update"):
        (remote / "hooks" / hook).write_text(f"#!/bin/sh\ntouch {markers}/remote-{hook}\n")
        (remote / "hooks" / hook).chmod(0o755)
    with open(workspace / ".git" / "config", "a") as f:
        f.write(f"[core]\n\tfsmonitor = {script('fsmonitor')}\n\thooksPath = {hooks}\n\tsshCommand = {script('ssh')}\n"
                f"[credential]\n\thelper = {script('credential')}\n[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = {script('gpg')}\n"
                f"[remote \"origin\"]\n\treceivepack = {script('receivepack')}\n[diff]\n\texternal = {script('diff')}\n")
    ws, thread = await started_thread(git_bridge, model, workspace)
    (workspace / "tracked.txt").write_text("changed\n")
    assert (await request(ws, "gitStatus", threadId=thread))["kind"] == "gitStatus"
    assert (await request(ws, "getDiff", threadId=thread))["kind"] == "diff"
    assert (await request(ws, "gitCommit", threadId=thread, message="harmless"))["kind"] == "gitCommitted"
    assert (await request(ws, "gitBranch", threadId=thread, name="b"))["kind"] == "gitBranched"
    assert (await request(ws, "gitPush", threadId=thread, setUpstream=True))["kind"] == "gitPushed"
    assert sorted(os.listdir(markers)) == []

    # A pre-commit hook the user relies on: named, not run, and the way out is to let Codex commit.
    (hooks / "pre-commit").write_text(f"#!/bin/sh\ntouch {markers}/pre-commit\n")
    (hooks / "pre-commit").chmod(0o755)
    (workspace / "tracked.txt").write_text("again\n")
    refused = await request(ws, "gitCommit", threadId=thread, message="m")
    assert refused["kind"] == "error" and refused["code"] == "unsafe_repository", refused
    assert "pre-commit" in refused["message"] and "let Codex commit" in refused["message"]
    assert sorted(os.listdir(markers)) == []


@pytest.fixture
def wide_bridge(bridge_factory, model, codex_home, workspace, git_home):
    """A bridge whose root holds the workspace (so a worktree can go next to it)."""
    env = codex_env(codex_home)
    env["HOME"] = str(git_home)
    args = ["--codex", codex_bin(), "--root", str(workspace.parent), *bridge_codex_args(model.port)]
    return bridge_factory(name="wide-state", args=args, env=env)


async def test_a_worktree_per_task(wide_bridge, model, workspace):
    model.queue({"kind": "message", "text": "one"}, {"kind": "message", "text": "two"})
    ws, _ = await hello(wide_bridge)
    first = await request(ws, "startThread", cwd=str(workspace), prompt="task one", worktree={"branch": "task/one"})
    assert first["kind"] == "threadStarted", first
    container = workspace.parent / "workspace.worktrees"
    assert first["cwd"] == str(container / "task-one") and first["branch"] == "task/one", first
    assert first["worktreeOf"] == str(workspace)
    await until_turn_completed(ws, first["threadId"])
    second = await request(ws, "startThread", cwd=str(workspace), prompt="task two", worktree={"branch": "task/two"})
    assert second["kind"] == "threadStarted" and second["cwd"] == str(container / "task-two"), second
    await until_turn_completed(ws, second["threadId"])
    taken = await request(ws, "startThread", cwd=str(workspace), prompt="again", worktree={"branch": "task/one"})
    assert taken["kind"] == "error" and taken["code"] == "conflict", taken

    # Codex itself works in the worktree; the threads' work stays apart.
    (container / "task-one" / "one.txt").write_text("one\n")
    assert (await request(ws, "gitCommit", threadId=first["threadId"], message="One"))["kind"] == "gitCommitted"
    status = await request(ws, "gitStatus", threadId=second["threadId"])
    assert status["branch"] == "task/two" and status["files"] == [], status
    assert git("-C", str(workspace), "status", "--porcelain") == ""
    listed = await request(ws, "listThreads")
    by_id = {t["threadId"]: t for t in listed["threads"]}
    assert by_id[first["threadId"]]["branch"] == "task/one" and by_id[first["threadId"]]["worktreeOf"] == str(workspace)
    assert by_id[second["threadId"]]["cwd"] == str(container / "task-two")

    (container / "task-two" / "draft.txt").write_text("unsaved\n")
    kept = await request(ws, "removeWorktree", threadId=second["threadId"])
    assert kept["kind"] == "error" and kept["code"] == "conflict", kept
    assert (await request(ws, "archiveThread", threadId=second["threadId"]))["kind"] == "accepted"
    removed = await request(ws, "removeWorktree", threadId=second["threadId"], force=True)
    assert removed["kind"] == "accepted", removed
    assert not (container / "task-two").exists()
    assert git("-C", str(workspace), "branch", "--list", "task/two") == "task/two"


async def test_write_with_codex_asks_an_ephemeral_thread_not_the_users(git_bridge, model, workspace):
    ws, thread = await started_thread(git_bridge, model, workspace)
    await request(ws, "subscribe", threadId="*")
    ws.pending = []
    (workspace / "tracked.txt").write_text("parsed in UTC\n")
    model.queue({"kind": "message", "text": "Parse dates in UTC\n\nThe parser assumed local time."})
    answer = await request(ws, "gitCommitMessage", threadId=thread)
    assert answer["kind"] == "commitMessage", answer
    assert answer["message"] == "Parse dates in UTC\n\nThe parser assumed local time."
    prompt = json.dumps(model.requests[-1]["input"])
    assert "+parsed in UTC" in prompt and "commit message" in prompt
    # Not a turn of the user's thread, and nothing of the helper thread reached the phone or the list.
    assert not [m for m in ws.pending if m.get("threadId") not in (None, thread)], ws.pending
    assert not [m for m in ws.pending if m.get("type") == "turn/started"], ws.pending
    listed = await request(ws, "listThreads")
    assert [t["threadId"] for t in listed["threads"]] == [thread]


async def test_attach_status_commit_push_and_a_command(git_bridge, model, workspace, remote, tmp_path):
    from test_attach import attach

    model.queue({"kind": "message", "text": "made it"})
    term = attach(git_bridge, tmp_path / "client", scopes="all")  # /push needs publish, !cmd needs run (issue 25)
    try:
        term.expect(r"connected to ")
        term.send(f"/new {workspace} start")
        term.expect(r"-- turn completed")
        (workspace / "tracked.txt").write_text("changed\n")
        term.send("/status")
        term.expect(r"on (master|main), no upstream \(/push sets origin\)")
        term.expect(r"\.M tracked\.txt")
        term.send("/commit Change tracked")
        term.expect(r"committed [0-9a-f]{7} on (master|main)")
        term.send("/push")
        term.expect(r"pushed to origin/(master|main)")
        term.send("/status")
        term.expect(r"up to date with origin/(master|main)")
        term.expect(r"nothing to commit")
        term.send("!echo from the terminal; exit 4")
        term.expect(r"! echo from the terminal; exit 4")
        term.expect(r"from the terminal")
        term.expect(r"\[exit 4\]")
        term.send("/quit")
        assert term.wait() == 0
    finally:
        term.close()
    assert git("-C", str(workspace), "log", "-1", "--format=%an: %s") == "Ana: Change tracked"


IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


async def test_a_filter_named_with_equals_and_a_local_remote_with_a_colon_run_nothing(git_bridge, model, workspace, tmp_path):
    """Issue 31, findings 3 and 4, seen failing before the fixes: a filter driver `a=b` escaped the overrides (git
    splits `-c` at the first `=`), so gitStatus and getDiff ran its clean program; a push to `rem/r:1` (a local
    path to git) ran the receiving repository's hooks."""
    markers = tmp_path / "markers"
    markers.mkdir()

    def script(name):
        path = tmp_path / f"evil-{name}"
        path.write_text(f"#!/bin/sh\ntouch {markers}/{name}\ncat\n")
        path.chmod(0o755)
        return str(path)

    env = dict(os.environ, **IDENTITY)
    (workspace / ".gitattributes").write_text("*.dat filter=a=b\n")
    (workspace / "data.dat").write_text("one\n")
    git("-C", str(workspace), "add", ".", env=env)
    git("-C", str(workspace), "commit", "-qm", "data", env=env)
    target = workspace / "rem" / "r:1"
    git("init", "-q", "--bare", str(target))
    for hook in ("pre-receive", "update", "post-receive", "post-update"):
        (target / "hooks" / hook).write_text(f"#!/bin/sh\ntouch {markers}/remote-{hook}\n")
        (target / "hooks" / hook).chmod(0o755)
    git("-C", str(workspace), "remote", "add", "colon", "rem/r:1")

    ws, thread = await started_thread(git_bridge, model, workspace)
    # Configured after the turn: Codex itself (0.163) runs a repository's clean filter when it snapshots a turn,
    # outside its sandbox; what is tested here is the bridge's own git.
    git("-C", str(workspace), "config", "filter.a=b.clean", script("clean"))
    git("-C", str(workspace), "config", "filter.a=b.smudge", script("smudge"))
    (workspace / "data.dat").write_text("two\n")
    status = await request(ws, "gitStatus", threadId=thread)
    assert status["kind"] == "gitStatus" and "data.dat" in [f["path"] for f in status["files"]], status
    diff = await request(ws, "getDiff", threadId=thread)
    assert diff["kind"] == "diff" and "+two" in diff["diff"], diff
    pushed = await request(ws, "gitPush", threadId=thread, remote="colon", setUpstream=True)
    assert pushed["kind"] == "gitPushed" and pushed["remote"] == "colon", pushed
    assert git("--git-dir", str(target), "for-each-ref", "--format=%(refname)") == f"refs/heads/{status['branch']}"
    assert sorted(os.listdir(markers)) == []


async def test_a_gitfile_or_a_linked_worktree_container_leads_nowhere_outside_the_roots(git_bridge, model, workspace, tmp_path):
    """Issue 31, findings 5 and 1, seen failing before the fixes: a `.git` gitfile the agent can write below its
    directory pointed the bridge's commit at a repository outside the roots; a `.codex-worktrees` link took a
    worktree (and the new thread's writable root) to wherever it pointed."""
    outside = tmp_path / "outside"
    git("init", "-q", str(outside))
    (outside / "secret.txt").write_text("OUTSIDE\n")
    env = dict(os.environ, **IDENTITY)
    git("-C", str(outside), "add", ".", env=env)
    git("-C", str(outside), "commit", "-qm", "outside", env=env)
    before = git("-C", str(outside), "rev-parse", "HEAD")
    sub = workspace / "sub"
    sub.mkdir()
    (sub / ".git").write_text(f"gitdir: {outside}/.git\n")
    (sub / "mine.txt").write_text("mine\n")

    model.queue({"kind": "message", "text": "in sub"}, {"kind": "message", "text": "in the workspace"})
    ws, _ = await hello(git_bridge)
    started = await request(ws, "startThread", cwd=str(sub), prompt="work")
    assert started["kind"] == "threadStarted", started
    await until_turn_completed(ws, started["threadId"])
    for kind, extra in (("gitStatus", {}), ("gitCommit", {"message": "escape"}), ("gitBranch", {"name": "escape"}),
                        ("gitPush", {"setUpstream": True})):
        refused = await request(ws, kind, threadId=started["threadId"], **extra)
        assert refused["kind"] == "error" and refused["code"] == "unsafe_repository", (kind, refused)
    assert git("-C", str(outside), "rev-parse", "HEAD") == before
    assert git("-C", str(outside), "branch", "--list", "escape") == ""

    # The workspace's own thread: the git panel's status names the repository the commits go to.
    main = await request(ws, "startThread", cwd=str(workspace), prompt="work")
    assert main["kind"] == "threadStarted", main
    await until_turn_completed(ws, main["threadId"])
    status = await request(ws, "gitStatus", threadId=main["threadId"])
    assert status["root"] == str(workspace) and status["repository"] == str(workspace), status

    plugin = tmp_path / "home" / ".vim" / "plugin"
    plugin.mkdir(parents=True)
    (workspace / ".codex-worktrees").symlink_to(plugin)
    linked = await request(ws, "startThread", cwd=str(workspace), prompt="task", worktree={"branch": "task"})
    assert linked["kind"] == "error" and linked["code"] == "unsafe_repository", linked
    assert list(plugin.iterdir()) == []
    assert git("-C", str(workspace), "branch", "--list", "task") == ""
