"""Issue 16: desk and phone on one session. `serve --shared` and the real Codex TUI (`codex --remote unix://…`)
in a tmux pane share one `codex app-server --listen unix://…`, all against the scripted model on 127.0.0.1."""
import asyncio
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid

import pytest
import websockets

from codex_fixture import bridge_codex_args, codex_bin, codex_home, workspace  # noqa: F401 (fixtures)
from conftest import run_cli
from mock_model import MockModel, codex_args, codex_env
from wsutil import hello, recv, send

_ids = itertools.count(1)


@contextlib.asynccontextmanager
async def desk_client(socket_path):
    """Another client of the shared app-server (what the terminal's Codex is), speaking its JSON-RPC over the
    socket's WebSocket; yields `rpc(method, params)`, which returns the result."""
    async with websockets.unix_connect(socket_path, uri="ws://localhost/", max_size=None) as desk:
        calls = itertools.count(1)

        async def rpc(method, params):
            rid = next(calls)
            await desk.send(json.dumps({"id": rid, "method": method, "params": params}))
            while True:
                msg = json.loads(await asyncio.wait_for(desk.recv(), 30))
                if msg.get("id") == rid and "method" not in msg:
                    assert "result" in msg, msg
                    return msg["result"]

        await rpc("initialize", {"clientInfo": {"name": "desk-test", "version": "1"}})
        await desk.send(json.dumps({"method": "initialized"}))
        yield rpc


class TitleAwareModel(MockModel):
    """The scripted model, except that the TUI's task-title requests (its ephemeral helper thread asks for one
    after the first turn) get a fixed title and do not consume the script."""

    def _next(self, body):
        if "task title" in json.dumps(body.get("input", "")):
            with self._lock:
                self._counter += 1
                return self._counter, {"kind": "message", "text": "Shared session"}
        return super()._next(body)


@pytest.fixture
def model():
    m = TitleAwareModel().start()
    yield m
    m.stop()


# ---------------------------------------------------------------------------------------------------- helpers


async def request(ws, kind, timeout=60, **fields):
    """Sends a request and returns its answer, keeping other frames in ws.pending."""
    rid = f"r{next(_ids)}"
    await send(ws, {"kind": kind, "id": rid, **fields})
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await recv(ws, max(0.01, deadline - loop.time()))
        if msg.get("id") == rid and msg["kind"] != "event":
            return msg
        pending(ws).append(msg)


def pending(ws):
    if not hasattr(ws, "pending"):
        ws.pending = []
    return ws.pending


async def next_frame(ws, pred, timeout=60, keep=None):
    """The first frame (pending ones first) for which pred(frame) holds; skipped frames go to `keep`."""
    while pending(ws):
        msg = ws.pending.pop(0)
        if pred(msg):
            return msg
        if keep is not None:
            keep.append(msg)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await recv(ws, max(0.01, deadline - loop.time()))
        if pred(msg):
            return msg
        if keep is not None:
            keep.append(msg)


async def until_turn_completed(ws, thread_id, timeout=60, seen=None):
    """Frames of `thread_id` up to and including its turn/completed (in arrival order)."""
    frames = [] if seen is None else seen

    def done(msg):
        if msg.get("threadId") == thread_id and msg["kind"] in ("event", "approvalRequest", "approvalResolved"):
            frames.append(msg)
            return msg["kind"] == "event" and msg["type"] == "turn/completed"
        return False

    await next_frame(ws, done, timeout)
    return frames


def agent_texts(frames):
    return [f["data"]["item"]["text"] for f in frames
            if f["kind"] == "event" and f["type"] == "item/completed" and f["data"]["item"].get("type") == "agentMessage"]


def short_socket_dir():
    """A short directory for the socket (a unix socket path has at most 107 bytes)."""
    return tempfile.mkdtemp(prefix="cbsh-", dir="/tmp")


def wait_for(predicate, timeout, what, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def answers(path):
    import socket
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def socket_owner_pids(path):
    """Pids listening on the unix socket `path` (from `ss -xlp`), to clean up what a killed test left."""
    out = subprocess.run(["ss", "-xlpn"], capture_output=True, text=True).stdout
    real = os.path.realpath(path)  # codex makes PATH a link to its socket in /tmp/codex-daemon-UID/
    pids = set()
    for line in out.splitlines():
        if real in line.split():
            pids.update(int(p) for p in re.findall(r"pid=(\d+)", line))
    return pids


class SharedAppServer:
    """A `codex app-server --listen unix://…` the test starts and stops itself (as a user would the daemon)."""

    def __init__(self, socket_path, model_port, env, cwd):
        self.socket_path, self.model_port, self.env, self.cwd = socket_path, model_port, env, cwd
        self.proc = None

    def start(self):
        if os.path.exists(self.socket_path):
            os.unlink(self.socket_path)
        self.proc = subprocess.Popen(
            [codex_bin(), "app-server", "--listen", f"unix://{self.socket_path}", *codex_args(self.model_port)],
            env=self.env, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for(lambda: answers(self.socket_path), 30, "the shared app-server's socket")
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


class Tui:
    """The real Codex TUI attached with `--remote unix://…`, in a detached tmux pane of its own tmux server."""

    def __init__(self, socket_path, model_port, env, cwd, extra=()):
        self.name = f"cb-{uuid.uuid4().hex[:8]}"
        self.tmux_socket = f"cbtmux-{uuid.uuid4().hex[:8]}"
        self.env = env
        args = [codex_bin(), *extra, "--remote", f"unix://{socket_path}", "-C", str(cwd), *codex_args(model_port)]
        command = " ".join(shlex_quote(a) for a in args) + "; sleep 600"
        subprocess.run(["tmux", "-L", self.tmux_socket, "new-session", "-d", "-s", self.name, "-x", "160", "-y", "50",
                        "-c", str(cwd), "env", f"CODEX_HOME={env['CODEX_HOME']}", "OPENAI_API_KEY=sk-test",
                        "TERM=xterm-256color", "bash", "-c", command], check=True, env=env)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.tmux_socket, *args], capture_output=True, text=True, env=self.env)

    def pane(self):
        return self.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", self.name).stdout

    def wait_pane(self, needle, timeout=60):
        """Polls the pane until `needle` shows (a regex); accepts the "Trust this folder?" screen on the way."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.pane()
            if re.search(needle, text):
                return text
            if TRUST.search(text):
                self.tmux("send-keys", "-t", self.name, "Enter")
                time.sleep(1)
            time.sleep(0.2)
        raise AssertionError(f"{needle!r} not on the TUI pane within {timeout}s:\n{text}")

    def ready(self, timeout=60):
        """Waits for the composer (and accepts the trust screen); the TUI takes keys a little after drawing it."""
        deadline = time.monotonic() + timeout
        calm_since = None
        while True:
            text = self.wait_pane(r"Ask Codex to do anything", max(1, deadline - time.monotonic()))
            if TRUST.search(text):
                self.keys("Enter")  # "1. Trust and continue"
                calm_since = None
            elif calm_since is None:
                calm_since = time.monotonic()
            elif time.monotonic() - calm_since >= 1.5:
                return text
            assert time.monotonic() < deadline, f"the TUI's composer did not settle:\n{text}"
            time.sleep(0.3)

    def composer(self):
        """The composer's line (the last line starting with ›)."""
        lines = [line for line in self.pane().splitlines() if line.lstrip().startswith("›")]
        return lines[-1] if lines else ""

    def type_line(self, text, timeout=30):
        """Types `text` until it shows in the composer, pauses (an Enter right after fast typing counts as
        pasted), then presses Enter until the composer is empty again (the message was submitted)."""
        deadline = time.monotonic() + timeout
        while text not in self.composer():
            assert time.monotonic() < deadline, f"the composer never showed {text!r}:\n{self.pane()}"
            if "Ask Codex to do anything" in self.composer():  # still empty: the keys were not taken yet
                self.tmux("send-keys", "-t", self.name, "-l", text)
            time.sleep(1.2)
        while text in self.composer():
            assert time.monotonic() < deadline, f"{text!r} was never submitted:\n{self.pane()}"
            self.keys("Enter")
            time.sleep(1.5)

    def keys(self, *keys):
        self.tmux("send-keys", "-t", self.name, *keys)

    def close(self):
        self.tmux("kill-server")


TRUST = re.compile(r"(?i)trust (this|the) (folder|directory)|do you trust")


def shlex_quote(arg):
    import shlex
    return shlex.quote(arg)


@pytest.fixture
def shared(bridge_factory, model, codex_home, workspace):  # noqa: F811
    """A `serve --shared` bridge (its own app-server at a short socket path, confined to `workspace`), and a
    factory for TUIs attached to it. Everything is stopped (bridge by SIGTERM, so its app-server goes too)."""
    socket_dir = short_socket_dir()
    socket_path = os.path.join(socket_dir, "codex.sock")
    env = codex_env(codex_home)
    tuis = []
    state = {"bridge": None}

    def start_bridge(args=()):
        b = bridge_factory(
            name="shared-state", env=env,
            args=["--codex", codex_bin(), "--root", str(workspace), "--shared-socket", socket_path,
                  *bridge_codex_args(model.port), *args])
        state["bridge"] = b
        return b

    def tui(extra=(), cwd=None):
        t = Tui(socket_path, model.port, env, cwd or workspace, extra)
        tuis.append(t)
        return t

    yield type("Shared", (), {"start_bridge": staticmethod(start_bridge), "tui": staticmethod(tui),
                              "socket": socket_path, "env": env})
    for t in tuis:
        t.close()
    if state["bridge"]:
        state["bridge"].stop(timeout=20)
    for pid in socket_owner_pids(socket_path):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    shutil.rmtree(socket_dir, ignore_errors=True)


async def connected(ws, timeout=30):
    """Waits until the bridge is connected to the shared app-server (a Codex request succeeds)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await request(ws, "listThreads")
        if answer["kind"] == "threads":
            return
        assert time.monotonic() < deadline, answer
        await asyncio.sleep(0.2)


async def phone(bridge):
    ws, ack = await hello(bridge)
    sub = await request(ws, "subscribe", threadId="*")
    assert sub["kind"] == "subscribed", sub
    return ws


# ---------------------------------------------------------------------------------------------------- tests


async def test_tui_turn_reaches_the_phone_live_and_in_order(shared, model, workspace):
    model.queue({"kind": "message", "text": "Desk answer: forty-two.", "deltas": ["Desk answer: ", "forty-two."]})
    bridge = shared.start_bridge(["--log-level", "debug"])
    wait_for(lambda: answers(shared.socket), 30, "the app-server the bridge starts")
    ws = await phone(bridge)
    await connected(ws)
    tui = shared.tui()
    tui.ready()
    tui.type_line("what is the answer?")
    # The thread the TUI started reaches the "*" subscriber: its turn's events, in order, journaled (seq).
    started = await next_frame(ws, lambda m: m["kind"] == "event" and m["type"] == "turn/started", timeout=60)
    thread_id = started["threadId"]
    frames = await until_turn_completed(ws, thread_id)
    pane = tui.wait_pane(r"Desk answer: forty-two\.")
    assert agent_texts(frames) == ["Desk answer: forty-two."]
    assert "Desk answer: forty-two." in pane
    types = [f["type"] for f in frames]
    assert types[-1] == "turn/completed" and frames[-1]["data"]["turn"]["status"] == "completed"
    assert "item/completed" in types
    seqs = [started["seq"]] + [f["seq"] for f in frames]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    user = [f for f in frames if f["type"] == "item/completed" and f["data"]["item"].get("type") == "userMessage"]
    assert user and "what is the answer?" in json.dumps(user[0]["data"]["item"])
    # listThreads shows it, with its source.
    listed = await request(ws, "listThreads")
    mine = [t for t in listed["threads"] if t["threadId"] == thread_id]
    assert mine and mine[0]["cwd"] == os.path.realpath(workspace) and mine[0]["source"], listed
    # A later phone (resuming from seq 0) gets the same turn from the journal.
    late, _ = await hello(bridge, extra={"resume": {"lastSeq": 0}})
    sub = await request(late, "subscribe", threadId=thread_id, afterSeq=0)
    assert sub["kind"] == "subscribed", sub
    replayed = await until_turn_completed(late, thread_id, timeout=20)
    assert agent_texts(replayed) == ["Desk answer: forty-two."]
    # status names the socket and the attach command.
    status = json.loads(run_cli("status", "--json", state_dir=bridge.state_dir, env=shared.env).stdout)
    assert status["shared"] == {"socket": shared.socket, "attach": f"codex --remote unix://{shared.socket}",
                                "answering": True}


async def test_phone_turn_shows_in_the_tui(shared, model, workspace):
    model.queue({"kind": "message", "text": "Phone answer one."}, {"kind": "message", "text": "Phone answer two."})
    bridge = shared.start_bridge()
    ws = await phone(bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="first from the phone")
    assert started["kind"] == "threadStarted", started
    frames = await until_turn_completed(ws, started["threadId"])
    assert agent_texts(frames) == ["Phone answer one."]
    # The desk resumes the phone's thread...
    tui = shared.tui(extra=["resume", started["threadId"]])
    tui.wait_pane(r"Phone answer one\.")
    # ...and sees the phone's next turn live.
    sent = await request(ws, "sendMessage", threadId=started["threadId"], text="second from the phone")
    assert sent["kind"] == "accepted", sent
    frames = await until_turn_completed(ws, started["threadId"])
    assert agent_texts(frames) == ["Phone answer two."]
    pane = tui.wait_pane(r"Phone answer two\.", timeout=30)
    assert "second from the phone" in pane


async def test_tui_approval_answered_from_the_phone(shared, model, workspace):
    model.queue(
        {"kind": "exec", "cmd": "touch desk-approved.txt", "sandbox_permissions": "require_escalated",
         "justification": "create the marker file"},
        {"kind": "message", "text": "Marker created."})
    bridge = shared.start_bridge()
    ws = await phone(bridge)
    await connected(ws)
    tui = shared.tui(extra=["-a", "on-request"])
    tui.ready()
    tui.type_line("create the marker file")
    approval = await next_frame(ws, lambda m: m["kind"] == "approvalRequest", timeout=90)
    assert approval["type"] == "command" and "touch desk-approved.txt" in approval["command"], approval
    tui.wait_pane(r"desk-approved\.txt", timeout=30)  # the TUI shows the same approval
    answer = await request(ws, "approve", approvalId=approval["approvalId"], decision="accept")
    assert answer["kind"] == "accepted", answer
    frames = await until_turn_completed(ws, approval["threadId"])
    resolved = [f for f in frames if f["kind"] == "approvalResolved"] + [
        f for f in pending(ws) if f["kind"] == "approvalResolved"]
    assert (workspace / "desk-approved.txt").exists()
    assert agent_texts(frames) == ["Marker created."]
    pane = tui.wait_pane(r"Marker created\.", timeout=30)
    # The TUI's approval prompt is gone (answered elsewhere) and the turn went on.
    assert not re.search(r"(?i)would you like to run", pane.split("Marker created.")[-1])
    assert resolved == [] or resolved[0]["decision"] == "accept"


async def test_tui_answers_first_the_phone_sees_it_resolved(shared, model, workspace):
    model.queue(
        {"kind": "exec", "cmd": "touch desk-first.txt", "sandbox_permissions": "require_escalated",
         "justification": "create the marker file"},
        {"kind": "message", "text": "Desk approved it."})
    bridge = shared.start_bridge()
    ws = await phone(bridge)
    await connected(ws)
    tui = shared.tui(extra=["-a", "on-request"])
    tui.ready()
    tui.type_line("create the marker file")
    approval = await next_frame(ws, lambda m: m["kind"] == "approvalRequest", timeout=90)
    tui.wait_pane(r"desk-first\.txt", timeout=30)
    tui.keys("y")  # "Yes, proceed" in the TUI's approval prompt
    resolved = await next_frame(
        ws, lambda m: m["kind"] == "approvalResolved" and m["approvalId"] == approval["approvalId"], timeout=30)
    assert resolved["answeredElsewhere"] is True and resolved["decision"] == "accept", resolved
    late = await request(ws, "approve", approvalId=approval["approvalId"], decision="decline")
    assert late["kind"] == "error" and late["code"] == "approval_not_pending", late
    await until_turn_completed(ws, approval["threadId"])
    assert (workspace / "desk-first.txt").exists()


async def test_other_client_threads_follow_the_roots(shared, model, workspace, tmp_path):
    """Threads of another app-server client: inside the roots they are followed (events live, journaled);
    outside they are neither listed nor relayed, and cannot be driven."""
    model.queue({"kind": "message", "text": "inside answer"}, {"kind": "message", "text": "outside answer"})
    bridge = shared.start_bridge()
    ws = await phone(bridge)
    await connected(ws)
    outside = tmp_path / "outside"
    outside.mkdir()
    async with desk_client(shared.socket) as rpc:
        inside_id = (await rpc("thread/start", {"cwd": str(workspace)}))["thread"]["id"]
        await rpc("turn/start", {"threadId": inside_id, "input": [{"type": "text", "text": "in"}]})
        frames = await until_turn_completed(ws, inside_id)
        assert agent_texts(frames) == ["inside answer"]
        outside_id = (await rpc("thread/start", {"cwd": str(outside)}))["thread"]["id"]
        await rpc("turn/start", {"threadId": outside_id, "input": [{"type": "text", "text": "out"}]})
        model.wait_requests(2, timeout=30)
        await asyncio.sleep(2)
    leaked = [m for m in pending(ws) if m.get("threadId") == outside_id]
    while True:
        try:
            msg = await recv(ws, timeout=1)
        except asyncio.TimeoutError:
            break
        if msg.get("threadId") == outside_id:
            leaked.append(msg)
    assert leaked == []
    listed = await request(ws, "listThreads")
    ids = [t["threadId"] for t in listed["threads"]]
    assert inside_id in ids and outside_id not in ids
    refused = await request(ws, "sendMessage", threadId=outside_id, text="hi")
    assert refused["kind"] == "error" and refused["code"] == "forbidden_path", refused


async def test_shared_app_server_stops_and_comes_back(bridge_factory, model, codex_home, workspace):  # noqa: F811
    """The user stops the shared app-server: codex_unavailable (status, doctor), then back: the bridge
    reconnects, the thread goes on, and nothing journaled is lost."""
    model.queue({"kind": "message", "text": "before"}, {"kind": "message", "text": "after"})
    socket_dir = short_socket_dir()
    socket_path = os.path.join(socket_dir, "codex.sock")
    env = codex_env(codex_home)
    server = SharedAppServer(socket_path, model.port, env, str(workspace)).start()
    bridge = None
    try:
        bridge = bridge_factory(
            name="shared-restart", env=env,
            args=["--codex", codex_bin(), "--root", str(workspace), "--shared-socket", socket_path,
                  *bridge_codex_args(model.port)])
        ws = await phone(bridge)
        started = await request(ws, "startThread", cwd=str(workspace), prompt="one")
        assert started["kind"] == "threadStarted", started
        before = await until_turn_completed(ws, started["threadId"])
        assert agent_texts(before) == ["before"]

        server.stop()
        deadline = time.monotonic() + 20
        answer = None
        while time.monotonic() < deadline:
            answer = await request(ws, "listThreads", timeout=30)
            if answer["kind"] == "error":
                break
            await asyncio.sleep(0.3)
        assert answer["kind"] == "error" and answer["code"] == "codex_unavailable", answer
        status = json.loads(run_cli("status", "--json", state_dir=bridge.state_dir, env=env).stdout)
        assert status["shared"]["answering"] is False
        doctor = run_cli("doctor", "--json", state_dir=bridge.state_dir, env=env)
        findings = {f["check"]: f for f in json.loads(doctor.stdout)}
        assert findings["shared"]["severity"] == "problem", findings.get("shared")

        server.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            answer = await request(ws, "listThreads", timeout=30)
            if answer["kind"] == "threads":
                break
            await asyncio.sleep(0.3)
        assert answer["kind"] == "threads", answer
        assert started["threadId"] in [t["threadId"] for t in answer["threads"]]
        sent = await request(ws, "sendMessage", threadId=started["threadId"], text="two")
        assert sent["kind"] == "accepted", sent
        after = await until_turn_completed(ws, started["threadId"])
        assert agent_texts(after) == ["after"]
        # Nothing journaled is lost: a fresh client replays both turns.
        late, _ = await hello(bridge, extra={"resume": {"lastSeq": 0}})
        sub = await request(late, "subscribe", threadId=started["threadId"], afterSeq=0)
        assert sub["kind"] == "subscribed"
        first = await until_turn_completed(late, started["threadId"], timeout=20)
        second = await until_turn_completed(late, started["threadId"], timeout=20)
        assert agent_texts(first) == ["before"] and agent_texts(second) == ["after"]
    finally:
        if bridge:
            bridge.stop(timeout=20)
        server.stop()
        shutil.rmtree(socket_dir, ignore_errors=True)


async def test_bridge_restarts_the_app_server_it_started(shared, model, workspace):
    model.queue({"kind": "message", "text": "after the restart"})
    bridge = shared.start_bridge()
    pids = wait_for(lambda: socket_owner_pids(shared.socket), 30, "the app-server the bridge starts")
    out = bridge.wait_log("codex --remote unix://", timeout=20)
    assert shared.socket in out
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: socket_owner_pids(shared.socket) and socket_owner_pids(shared.socket) != pids, 30,
             "a new app-server")
    ws = await phone(bridge)
    deadline = time.monotonic() + 30
    while True:
        started = await request(ws, "startThread", cwd=str(workspace), prompt="again")
        if started["kind"] == "threadStarted" or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    assert started["kind"] == "threadStarted", started
    frames = await until_turn_completed(ws, started["threadId"])
    assert agent_texts(frames) == ["after the restart"]


def test_shared_settings_are_checked(tmp_path):
    long_path = "/tmp/" + "x" * 120 + ".sock"
    result = run_cli("serve", "--shared-socket", long_path, "--listen", "127.0.0.1:0", "--no-qr", "--no-mdns",
                     state_dir=tmp_path / "a", timeout=10)
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stderr.splitlines()[0].startswith("error: --shared-socket must be an absolute path of at most 107 bytes")
    for text, needle in [("shared = \"yes\"\n", "shared must be true or false"),
                         (f"shared_socket = \"{long_path}\"\n", "shared_socket must be an absolute path")]:
        state = tmp_path / f"s{len(needle)}"
        state.mkdir()
        (state / "config.toml").write_text("# comment\n" + text)
        result = run_cli("serve", "--listen", "127.0.0.1:0", "--no-qr", "--no-mdns", state_dir=state, timeout=10)
        assert result.returncode == 1, (result.returncode, result.stderr)
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"error: {state / 'config.toml'}:2: ") and needle in first, first


def test_status_and_doctor_of_a_configured_shared_bridge_not_running(tmp_path):
    state = tmp_path / "s"
    state.mkdir()
    socket_path = os.path.join(short_socket_dir(), "codex.sock")
    (state / "config.toml").write_text(f"shared = true\nshared_socket = \"{socket_path}\"\n")
    status = run_cli("status", "--json", state_dir=state)
    assert status.returncode == 3
    assert json.loads(status.stdout)["shared"] == {
        "socket": socket_path, "attach": f"codex --remote unix://{socket_path}", "answering": False}
    text = run_cli("status", state_dir=state).stdout
    assert f"desk:        codex --remote unix://{socket_path}" in text
    doctor = json.loads(run_cli("doctor", "--json", state_dir=state).stdout)
    shared = [f for f in doctor if f["check"] == "shared"]
    assert shared and shared[0]["severity"] == "info" and "serve --shared" in shared[0]["summary"], shared
    shutil.rmtree(os.path.dirname(socket_path), ignore_errors=True)


async def test_a_turn_running_before_the_bridge_connects_reaches_the_phone(bridge_factory, model, codex_home,  # noqa: F811
                                                                           workspace):  # noqa: F811
    """A desk client's turn is already running when the bridge joins the app-server: the bridge finds it
    (thread/list), resumes it, and the phone gets the rest of the turn, including what it missed."""
    model.queue({"kind": "stall", "text": "finished after the bridge joined"})
    socket_dir = short_socket_dir()
    socket_path = os.path.join(socket_dir, "codex.sock")
    env = codex_env(codex_home)
    server = SharedAppServer(socket_path, model.port, env, str(workspace)).start()
    bridge = None
    try:
        async with desk_client(socket_path) as rpc:
            thread_id = (await rpc("thread/start", {"cwd": str(workspace)}))["thread"]["id"]
            await rpc("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "long task"}]})
            model.wait_requests(1, timeout=30)  # the turn is running (the model stalls)

            bridge = bridge_factory(
                name="shared-late", env=env,
                args=["--codex", codex_bin(), "--root", str(workspace), "--shared-socket", socket_path,
                      *bridge_codex_args(model.port)])
            bridge.wait_log("Following a thread of the shared app-server", timeout=20)
            # The bridge may publish the turn's start before any phone is here: it is in the journal.
            ws, _ = await hello(bridge)
            sub = await request(ws, "subscribe", threadId="*", afterSeq=0)
            assert sub["kind"] == "subscribed", sub
            model.release()
            frames = await until_turn_completed(ws, thread_id)
            assert agent_texts(frames) == ["finished after the bridge joined"]
            types = [f["type"] for f in frames if f["kind"] == "event"]
            assert "turn/started" in types and types.index("turn/started") < types.index("turn/completed"), [(f["seq"], f.get("type"), f.get("data", {}).get("backfilled")) for f in frames]
            user = [f for f in frames if f["kind"] == "event" and f["type"] == "item/completed"
                    and f["data"]["item"].get("type") == "userMessage"]
            assert len(user) == 1 and "long task" in json.dumps(user[0]["data"]["item"]), user
    finally:
        if bridge:
            bridge.stop(timeout=20)
        server.stop()
        shutil.rmtree(socket_dir, ignore_errors=True)


async def test_desk_and_phone_queue_behind_one_turn(shared, model, workspace):
    """Issue 34 item 1 with the real TUI in tmux: while the desk's turn runs, the phone queues two follow-ups,
    reorders and edits them, and the desk queues one of its own (Tab). Nothing is lost: when the turn ends every
    queued message becomes a turn (the phone's in the order it set, with the edited text) and the desk shows the
    phone's. Codex 0.163's TUI keeps its queued follow-ups in the terminal (never in Codex's `thread/queue`), so
    the phone's line (`queueChanged`) holds only the phone's messages; the desk's arrives as its turn."""
    model.queue({"kind": "stall", "text": "Desk task done."})
    bridge = shared.start_bridge()
    ws = await phone(bridge)
    await connected(ws)
    tui = shared.tui()
    tui.ready()
    tui.type_line("long desk task")
    started = await next_frame(ws, lambda m: m["kind"] == "event" and m["type"] == "turn/started", timeout=60)
    thread_id = started["threadId"]
    model.wait_requests(1, timeout=30)
    ids = []
    for text in ("phone one", "phone two"):
        answer = await request(ws, "sendMessage", threadId=thread_id, text=text, mode="queue")
        assert answer["kind"] == "accepted" and answer.get("queuedId"), answer
        ids.append(answer["queuedId"])
    one, two = ids
    assert (await request(ws, "reorderQueued", threadId=thread_id, ids=[two, one]))["kind"] == "accepted"
    await send(ws, {"kind": "editQueued", "id": one, "threadId": thread_id, "text": "phone one, edited"})
    seen = []  # every frame taken off the socket meanwhile
    edited = await next_frame(ws, lambda m: m.get("id") == one and m["kind"] in ("accepted", "error"), timeout=30, keep=seen)
    assert edited["kind"] == "accepted", edited
    # The desk queues its own follow-up while the turn runs (Tab queues in the TUI).
    tui.tmux("send-keys", "-t", tui.name, "-l", "desk follow-up")
    time.sleep(1.5)
    tui.keys("Tab")
    tui.wait_pane(r"Queued follow-up inputs[\s\S]*desk follow-up", timeout=30)
    line = ["phone two", "phone one, edited"]
    if not any(m["kind"] == "queueChanged" and [i["text"] for i in m["items"]] == line for m in seen):
        await next_frame(ws, lambda m: m["kind"] == "queueChanged" and [i["text"] for i in m["items"]] == line,
                         timeout=30, keep=seen)

    model.release()
    said = set()
    deadline = time.monotonic() + 90
    wanted = {"phone two", "phone one, edited", "desk follow-up"}
    while not wanted <= said and time.monotonic() < deadline:
        said = {json.dumps(body.get("input", "")) for body in model.requests}
        said = {text for text in wanted if any(text in body for body in said)}
        await asyncio.sleep(0.3)
    assert wanted <= said, [json.dumps(b.get("input", ""))[-300:] for b in model.requests]
    bodies = [json.dumps(body.get("input", "")) for body in model.requests]
    first_two = next(i for i, b in enumerate(bodies) if "phone two" in b)
    first_one = next(i for i, b in enumerate(bodies) if "phone one, edited" in b)
    assert first_two <= first_one, "the phone's line started in the order it set"
    unqueued = [m for m in seen if m["kind"] == "messageUnqueued"]
    while len(unqueued) < 2:
        unqueued.append(await next_frame(ws, lambda m: m["kind"] == "messageUnqueued", timeout=60, keep=seen))
    assert all(m["reason"] == "started" for m in unqueued), unqueued
    # The desk shows the phone's follow-ups as they become turns.
    pane = tui.wait_pane(r"phone one, edited", timeout=60)
    assert "phone two" in pane and "desk follow-up" in pane
    # The phone never saw the desk's follow-up in its line (the TUI keeps it), only as a turn's message.
    every_line = [i["text"] for m in seen + pending(ws) if m["kind"] == "queueChanged" for i in m["items"]]
    assert "desk follow-up" not in every_line
