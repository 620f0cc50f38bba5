"""Issue 37 item 3: a restart of the bridge does not kill the running turn. On SIGTERM the bridge tells the
turn's subscribers (`bridge/shuttingDown`), refuses new turns, lets the turn finish for up to `--shutdown-grace`,
then closes the clients and exits 0; a turn still running when the grace ends fails as "bridge stopped"."""
import asyncio
import signal
import time

from codex_fixture import bridge_codex_args, codex_bin, codex_home, model, workspace  # noqa: F401 (fixtures)
from mock_model import codex_env
from test_codex import agent_text, completed_status, frames, request, until_turn_completed
from wsutil import expect_close, hello


def start(bridge_factory, model, codex_home, workspace, grace):
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port), "--shutdown-grace", grace]
    return bridge_factory(name="grace-state", args=args, env=codex_env(codex_home))


async def until_event(ws, type_, timeout=60):
    async for msg in frames(ws, timeout):
        if msg["kind"] == "event" and msg["type"] == type_:
            return msg


async def test_sigterm_lets_the_running_turn_finish(bridge_factory, model, codex_home, workspace):
    """Seen failing before: the turn ended as bridge/turnFailed "terminated (codex exited with status 0)"."""
    model.queue({"kind": "stall", "text": "finished after the signal"})
    bridge = start(bridge_factory, model, codex_home, workspace, "20s")
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="take your time")
    assert started["kind"] == "threadStarted", started
    await until_event(ws, "turn/started")
    bridge.proc.send_signal(signal.SIGTERM)
    notice = await until_event(ws, "bridge/shuttingDown", timeout=10)
    assert notice["threadId"] == started["threadId"] and notice["data"]["turnId"] == started["turnId"], notice
    assert notice["data"]["graceSeconds"] == 20
    # No new turn while it shuts down (nothing done: a retry after the restart acts).
    other, _ = await hello(bridge)
    refused = await request(other, "startThread", cwd=str(workspace), prompt="another")
    assert refused["kind"] == "error" and refused["code"] == "codex_unavailable", refused
    model.release()
    events, _ = await until_turn_completed(ws, started["threadId"])
    assert completed_status(events) == "completed"
    assert agent_text(events) == "finished after the signal"
    await expect_close(ws, timeout=15)
    assert bridge.proc.wait(timeout=30) == 0


async def test_a_turn_that_outlasts_the_grace_fails_as_bridge_stopped(bridge_factory, model, codex_home, workspace):
    model.queue({"kind": "stall", "text": "never"})
    bridge = start(bridge_factory, model, codex_home, workspace, "1s")
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="take forever")
    await until_event(ws, "turn/started")
    signalled = time.monotonic()
    bridge.proc.send_signal(signal.SIGTERM)
    await until_event(ws, "bridge/shuttingDown", timeout=10)
    assert bridge.proc.wait(timeout=30) == 0
    assert time.monotonic() - signalled < 20
    # Back up: the journal says why the turn ended, in the bridge's words.
    bridge.start()
    ws, _ = await hello(bridge)
    read = await request(ws, "subscribe", threadId=started["threadId"], afterSeq=0)
    assert read["kind"] == "subscribed", read
    failed = await until_event(ws, "bridge/turnFailed", timeout=20)
    assert failed["data"]["reason"] == "bridge stopped", failed
    model.release()
