"""Issue 24, `!commands` from the phone: runCommand through the real codex's `command/exec` in the thread's
sandbox. Output streams, a write outside the workspace fails under workspace-write, stop works, and a phone that
comes later reads the run once from the journal; neither /tmp nor the bridge's $TMPDIR is writable (issue 31,
finding 8). Cost: one bridge, ~5 s."""
import pathlib
import shutil
import uuid

import pytest

from codex_fixture import CODEX_HOMES, bridge_codex_args, codex_bin, codex_home, model, workspace  # noqa: F401 (fixtures)
from mock_model import codex_env
from test_codex import frames, request, until_turn_completed
from wsutil import hello


@pytest.fixture
def outside():
    """A directory outside the workspace and outside /tmp (which workspace-write leaves writable)."""
    path = CODEX_HOMES / "outside" / uuid.uuid4().hex
    path.mkdir(parents=True)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def tmpdir_outside():
    """The bridge's (and so Codex's) $TMPDIR: outside /tmp, the workspace and `outside`."""
    path = CODEX_HOMES / "tmpdir" / uuid.uuid4().hex
    path.mkdir(parents=True)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def codex_bridge(bridge_factory, model, codex_home, workspace, tmpdir_outside):
    """codex_fixture's bridge, with a $TMPDIR of its own (Codex's workspace-write makes $TMPDIR writable unless told)."""
    env = dict(codex_env(codex_home), TMPDIR=str(tmpdir_outside))
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)]
    return bridge_factory(name="codex-state", args=args, env=env)


async def run_to_exit(ws, thread, command, timeout=60):
    """Runs `command`; returns (runId, output text, commandExited frame, every command frame seen)."""
    accepted = await request(ws, "runCommand", threadId=thread, command=command)
    assert accepted["kind"] == "accepted" and accepted["runId"].startswith("run-"), accepted
    run_id = accepted["runId"]
    seen = []
    async for msg in frames(ws, timeout):
        if msg.get("runId") == run_id:
            seen.append(msg)
            if msg["kind"] == "commandExited":
                output = "".join(m["data"] for m in seen if m["kind"] == "commandOutput")
                return run_id, output, msg, seen


async def test_a_command_streams_in_the_threads_sandbox_and_stops(codex_bridge, model, workspace, outside, tmpdir_outside):
    model.queue({"kind": "message", "text": "ready"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hi")
    thread = started["threadId"]
    await until_turn_completed(ws, thread)

    run_id, output, exited, seen = await run_to_exit(ws, thread, "echo hello; echo oops >&2; pwd; exit 3")
    assert seen[0]["kind"] == "commandStarted" and seen[0]["command"] == "echo hello; echo oops >&2; pwd; exit 3"
    assert seen[0]["cwd"] == str(workspace) and isinstance(seen[0]["seq"], int)
    assert "hello\n" in output and "oops\n" in output and str(workspace) in output, output
    assert exited["exitCode"] == 3 and "reason" not in exited, exited
    assert [m["seq"] for m in seen] == sorted(m["seq"] for m in seen)

    # Inside the workspace a write works; outside it the sandbox refuses.
    _, _, inside, _ = await run_to_exit(ws, thread, "echo made > inside.txt")
    assert inside["exitCode"] == 0 and (workspace / "inside.txt").read_text() == "made\n"
    _, output, escape, _ = await run_to_exit(ws, thread, f"echo leaked > {outside}/escape.txt")
    assert escape["exitCode"] != 0, (escape, output)
    assert not (outside / "escape.txt").exists()
    # Regression (issue 31, finding 8): /tmp and $TMPDIR were writable roots too (Codex's workspace-write default).
    slash_tmp = pathlib.Path("/tmp") / f"codex-bridge-escape-{uuid.uuid4().hex}"
    try:
        _, output, escape, _ = await run_to_exit(ws, thread, f"touch {slash_tmp}")
        assert escape["exitCode"] != 0 and not slash_tmp.exists(), (escape, output)
    finally:
        slash_tmp.unlink(missing_ok=True)
    _, output, escape, _ = await run_to_exit(ws, thread, f'echo "$TMPDIR"; touch "$TMPDIR/escape.txt" {tmpdir_outside}/escape2.txt')
    assert escape["exitCode"] != 0, (escape, output)
    assert not (tmpdir_outside / "escape.txt").exists() and not (tmpdir_outside / "escape2.txt").exists(), output

    # Stop: the run ends at once, reported stopped.
    accepted = await request(ws, "runCommand", threadId=thread, command="echo begun; sleep 30")
    run_id = accepted["runId"]
    async for msg in frames(ws, 30):
        if msg.get("kind") == "commandOutput" and msg["runId"] == run_id:
            break
    stopped = await request(ws, "stopCommand", threadId=thread, runId=run_id)
    assert stopped["kind"] == "accepted" and stopped["runId"] == run_id, stopped
    async for msg in frames(ws, 15):
        if msg.get("kind") == "commandExited" and msg["runId"] == run_id:
            assert msg["exitCode"] is None and msg["reason"] == "stopped", msg
            break

    # A phone that comes later reads the runs from the journal, each message once.
    later, _ = await hello(codex_bridge)
    answer = await request(later, "subscribe", threadId=thread, afterSeq=0)
    assert answer["kind"] == "subscribed", answer
    replayed = [m for m in getattr(later, "pending", []) if m["kind"].startswith("command")]
    assert len([m for m in replayed if m["kind"] == "commandExited"]) == 6, replayed
    assert len({m["seq"] for m in replayed}) == len(replayed)
    assert "hello\n" in "".join(m["data"] for m in replayed if m["kind"] == "commandOutput")
