"""Issue 14: while a turn runs the bridge holds a logind sleep inhibitor (systemd-inhibit), and releases it when
the last turn ends. A fake `systemd-inhibit` first on PATH records its life in a file."""
import os
import stat
import time

from codex_fixture import bridge_codex_args, codex_bin, codex_home, model, workspace  # noqa: F401 (fixtures)
from mock_model import codex_env
from test_codex import request, until_turn_completed
from wsutil import hello

FAKE = """#!/bin/sh
echo "start $$ $*" >> "{log}"
trap 'echo "stop $$" >> "{log}"; exit 0' TERM INT
while :; do sleep 0.1; done
"""


def fake_inhibit(tmp_path):
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    log = tmp_path / "inhibit.log"
    script = bin_dir / "systemd-inhibit"
    script.write_text(FAKE.format(log=log))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return bin_dir, log


def lines(log):
    return log.read_text().splitlines() if log.exists() else []


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def start(bridge_factory, model, codex_home, workspace, bin_dir, *extra):
    env = codex_env(codex_home)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port), "--no-push", *extra]
    return bridge_factory(name="inhibit-state", args=args, env=env)


async def test_inhibitor_held_for_the_life_of_a_turn(bridge_factory, model, codex_home, workspace, tmp_path):
    bin_dir, log = fake_inhibit(tmp_path)
    bridge = start(bridge_factory, model, codex_home, workspace, bin_dir, "--log-level", "debug")
    ws, _ = await hello(bridge)
    time.sleep(0.5)
    assert lines(log) == [], "held before any turn"
    model.queue({"kind": "stall", "text": "late"})
    started = await request(ws, "startThread", cwd=str(workspace), prompt="think long")
    assert wait_for(lambda: any(line.startswith("start") for line in lines(log))), bridge.log()
    [first] = lines(log)
    assert "--what=sleep:idle" in first and "Codex turn running" in first
    assert first.endswith(f"tail --pid={bridge.proc.pid} -f /dev/null"), first
    time.sleep(0.5)
    assert not any(line.startswith("stop") for line in lines(log)), "released while the turn runs"
    model.release()
    await until_turn_completed(ws, started["threadId"])
    assert wait_for(lambda: any(line.startswith("stop") for line in lines(log))), lines(log)
    pid = first.split()[1]
    assert lines(log)[-1] == f"stop {pid}"
    # A second turn takes it again, once.
    model.queue({"kind": "message", "text": "again"})
    await request(ws, "sendMessage", threadId=started["threadId"], text="again")
    await until_turn_completed(ws, started["threadId"])
    assert wait_for(lambda: sum(line.startswith("stop") for line in lines(log)) == 2), lines(log)
    assert sum(line.startswith("start") for line in lines(log)) == 2
    await ws.close()


async def test_no_inhibit_and_no_logind(bridge_factory, model, codex_home, workspace, tmp_path):
    bin_dir, log = fake_inhibit(tmp_path)
    bridge = start(bridge_factory, model, codex_home, workspace, bin_dir, "--no-inhibit")
    ws, _ = await hello(bridge)
    model.queue({"kind": "message", "text": "quick"})
    started = await request(ws, "startThread", cwd=str(workspace), prompt="go")
    await until_turn_completed(ws, started["threadId"])
    time.sleep(0.5)
    assert lines(log) == []
    await ws.close()
    bridge.stop()
    # A systemd-inhibit that fails at once (no logind): one debug line, turns still run, no retry loop.
    failing = tmp_path / "failbin"
    failing.mkdir()
    (failing / "systemd-inhibit").write_text(f"#!/bin/sh\necho \"tried\" >> \"{tmp_path / 'fail.log'}\"\nexit 1\n")
    (failing / "systemd-inhibit").chmod(0o755)
    bridge = start(bridge_factory, model, codex_home, workspace, failing, "--log-level", "debug")
    ws, _ = await hello(bridge)
    for text in ["one", "two"]:
        model.queue({"kind": "message", "text": text})
        started = await request(ws, "startThread", cwd=str(workspace), prompt=text)
        events, _ = await until_turn_completed(ws, started["threadId"])
        assert events[-1]["data"]["turn"]["status"] == "completed"
    bridge.wait_log("Cannot hold a sleep inhibitor")
    assert bridge.log().count("Cannot hold a sleep inhibitor") == 1
    assert (tmp_path / "fail.log").read_text().count("tried") == 1
    await ws.close()
