"""`codex-bridge attach` driven in a pseudo-terminal against a real bridge running the real codex (scripted model)."""
import fcntl
import json
import os
import pty
import re
import select
import signal
import stat
import subprocess
import termios
import time

from conftest import BIN, run_cli
from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)


def _controlling_terminal():
    """In the child: a new session whose controlling terminal is the pty, so Ctrl-C becomes SIGINT."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """A process on a pty; `expect` waits for a regex in everything it printed since the last match."""

    def __init__(self, args, env=None):
        self.master, slave = pty.openpty()
        full_env = dict(os.environ if env is None else env)
        full_env.pop("CODEX_BRIDGE_HOME", None)
        self.proc = subprocess.Popen([str(BIN), *args], stdin=slave, stdout=slave, stderr=slave, env=full_env,
                                     preexec_fn=_controlling_terminal)
        os.close(slave)
        self.buffer = ""
        self.seen = ""

    def _read(self, timeout):
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        if not data:
            return False
        text = data.decode(errors="replace")
        self.buffer += text
        self.seen += text
        return True

    def expect(self, pattern, timeout=30.0):
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            match = regex.search(self.buffer)
            if match:
                self.buffer = self.buffer[match.end():]
                return match
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{pattern!r} not seen within {timeout}s; output:\n{self.seen}")
            self._read(min(remaining, 0.2))
            if self.proc.poll() is not None and not self._read(0.1) and not regex.search(self.buffer):
                raise AssertionError(f"attach exited {self.proc.returncode} before {pattern!r}; output:\n{self.seen}")

    def send(self, line):
        os.write(self.master, (line + "\r").encode())

    def interrupt(self):
        os.write(self.master, b"\x03")  # the terminal turns Ctrl-C into SIGINT

    def wait(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._read(0.1)
        return self.proc.poll()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


def pairing_url(bridge, scopes=None):
    """`pair --json`'s app URL; `scopes` (e.g. "all") is passed as `--scope` (default: the standard scopes)."""
    extra = ("--scope", scopes) if scopes else ()
    result = run_cli("pair", "--json", *extra, state_dir=bridge.state_dir, check=True)
    return json.loads(result.stdout)["url"]


def attach(bridge, client_dir, *extra, scopes=None):
    return Terminal(["attach", pairing_url(bridge, scopes), "--state-dir", str(client_dir), "--device-name", "pty test",
                     "--approval-policy", "untrusted", *extra])


def test_attach_pairs_starts_a_thread_and_approves(codex_bridge, model, workspace, tmp_path):
    model.queue({"kind": "exec", "cmd": "touch approved.txt"}, {"kind": "message", "text": "done"})
    client_dir = tmp_path / "client"
    term = attach(codex_bridge, client_dir)
    try:
        term.expect(r"connected to .* as device (\S+)")
        term.expect(r"paired")
        tokens = client_dir / "client-tokens.json"
        assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
        stored = json.loads(tokens.read_text())
        assert len(stored) == 1 and list(stored.values())[0]["token"]
        devices = json.loads(run_cli("devices", "list", "--json", state_dir=codex_bridge.state_dir, check=True).stdout)
        assert [d["name"] for d in devices] == ["pty test"]

        term.send(f"/new {workspace} create a file")
        term.expect(r"thread \S+ started")
        term.expect(r"approve: run `.*touch approved.txt.*` in .*\[y/n/a\]")
        term.send("y")
        term.expect(r"accept")
        term.expect(r"\[exit 0\]")
        term.expect(r"done")
        term.expect(r"-- turn completed")
        assert (workspace / "approved.txt").exists()

        # The stored device token is used by a later attach by address (no pairing code).
        term.send("/quit")
        assert term.wait() == 0
    finally:
        term.close()
    again = Terminal(["attach", f"127.0.0.1:{codex_bridge.port}", "--state-dir", str(client_dir)])
    try:
        again.expect(r"connected to .* as device")
        again.send("/list")
        again.expect(r"1\. \S+ ")
        again.send("/quit")
        assert again.wait() == 0
    finally:
        again.close()


def test_attach_used_code_is_refused_without_retry(codex_bridge, tmp_path):
    url = pairing_url(codex_bridge)
    first = run_cli("attach", url, "--state-dir", str(tmp_path / "a"), input="/quit\n", timeout=30)
    assert first.returncode == 0, first.stdout + first.stderr
    second = run_cli("attach", url, "--state-dir", str(tmp_path / "b"), input="/quit\n", timeout=30)
    assert second.returncode != 0
    assert "unauthorized" in second.stderr


def test_attach_reconnects_after_the_bridge_restarts(codex_bridge, model, workspace, tmp_path):
    model.queue({"kind": "message", "text": "first answer"}, {"kind": "message", "text": "second answer"})
    term = attach(codex_bridge, tmp_path / "client")
    try:
        term.expect(r"connected to")
        term.send(f"/new {workspace} say something")
        term.expect(r"first answer")
        term.expect(r"-- turn completed")
        port = codex_bridge.port
        assert codex_bridge.stop() is not None
        term.expect(r"connection lost .*reconnecting in")
        codex_bridge.listen = f"127.0.0.1:{port}"
        codex_bridge.start()
        term.expect(r"reconnected to ws://127\.0\.0\.1:%d/" % port, timeout=40)
        term.send("and again")
        term.expect(r"second answer", timeout=60)
        term.expect(r"-- turn completed")
    finally:
        term.close()


def test_ctrl_c_interrupts_the_turn_then_quits(codex_bridge, model, workspace, tmp_path):
    model.queue({"kind": "stall", "text": "late"})
    term = attach(codex_bridge, tmp_path / "client")
    try:
        term.expect(r"connected to")
        term.send(f"/new {workspace} take your time")
        term.expect(r"thread \S+ started")
        model.wait_requests(1)
        term.interrupt()
        term.expect(r"interrupting the turn")
        term.expect(r"-- turn interrupted", timeout=30)
        term.interrupt()
        assert term.wait() == 0
    finally:
        model.release()
        term.close()


def test_attach_over_tls_pins_the_fingerprint_from_the_pairing_url(bridge_factory, tmp_path):
    """wss:// end to end: the pairing URL carries `fp=`; attach pairs over TLS with that pin. A URL whose pin does
    not match the certificate is refused before hello (the one-time code is never sent)."""
    bridge = bridge_factory(args=["--tls"])
    url = pairing_url(bridge)
    fingerprint = run_cli("tls", "show", state_dir=bridge.state_dir, check=True).stdout.strip()
    assert f"fp={fingerprint}" in url

    wrong = re.sub(r"fp=[0-9a-f]{64}", "fp=" + "0" * 64, url)
    refused = run_cli("attach", wrong, "--state-dir", str(tmp_path / "wrong"), input="/quit\n", timeout=30)
    assert refused.returncode != 0
    assert "fingerprint" in (refused.stdout + refused.stderr).lower()
    devices = json.loads(run_cli("devices", "list", "--json", state_dir=bridge.state_dir, check=True).stdout)
    assert devices == []  # the code was never sent: the handshake stopped at TLS

    client_dir = tmp_path / "client"
    term = Terminal(["attach", url, "--state-dir", str(client_dir), "--device-name", "tls pty"])
    try:
        term.expect(r"connected to .* as device (\S+)")  # the port serves TLS only
        term.expect(r"paired")
        term.send("/quit")
        assert term.wait() == 0
    finally:
        term.close()
    devices = json.loads(run_cli("devices", "list", "--json", state_dir=bridge.state_dir, check=True).stdout)
    assert [d["name"] for d in devices] == ["tls pty"]

    # Later attaches by plain address (issue 11, finding 6): the stored pin makes it wss:// to that certificate,
    # for `host:port` as for `wss://` (which used to fail on the self-signed certificate).
    for address in (f"127.0.0.1:{bridge.port}", f"wss://127.0.0.1:{bridge.port}/"):
        term = Terminal(["attach", address, "--state-dir", str(client_dir)])
        try:
            term.expect(r"connected to .* as device")
            term.send("/quit")
            assert term.wait() == 0
        finally:
            term.close()


def test_a_stored_token_goes_only_to_its_bridge(bridge_factory, tmp_path):
    """Regression (issue 11, finding 6): with one stored device token, attach sent it to any address it was
    given. Now a token goes only to an address it was paired on."""
    mine = bridge_factory(name="mine")
    other = bridge_factory(name="other")
    client_dir = tmp_path / "client"
    term = Terminal(["attach", pairing_url(mine), "--state-dir", str(client_dir), "--device-name", "bound"])
    try:
        term.expect(r"paired")
        term.send("/quit")
        assert term.wait() == 0
    finally:
        term.close()
    stored = json.loads((client_dir / "client-tokens.json").read_text())
    (entry,) = stored.values()
    assert entry["endpoints"] == [f"127.0.0.1:{mine.port}"] and stat.S_IMODE((client_dir / "client-tokens.json").stat().st_mode) == 0o600
    refused = run_cli("attach", f"127.0.0.1:{other.port}", "--state-dir", str(client_dir), input="/quit\n", timeout=30)
    assert refused.returncode != 0 and "no token for this bridge" in refused.stderr, refused.stderr
    time.sleep(0.5)
    assert "Authentication failed" not in other.log() and "Client authenticated" not in other.log()


def test_attach_neutralises_terminal_control_sequences(codex_bridge, model, workspace, tmp_path):
    """Agent output is hostile: an OSC title change, a clipboard write and colours must not reach the terminal."""
    model.queue({"kind": "message", "text": "hi \x1b]0;pwned\x07 \x1b]52;c;ZXZpbA==\x07 \x1b[31mred\x1b[0m \x9b2J end"})
    term = attach(codex_bridge, tmp_path / "client")
    try:
        term.expect(r"connected to")
        term.send(f"/new {workspace} say hi")
        term.expect(r"end")
        term.expect(r"-- turn completed")
        assert "\x1b" not in term.seen and "\x07" not in term.seen and "\x9b" not in term.seen
        assert "\\u{1B}]0;pwned" in term.seen
        term.send("/quit")
        term.wait()
    finally:
        term.close()


def test_attach_models_files_and_rename(codex_bridge, model, workspace, tmp_path):
    model.queue({"kind": "message", "text": "hello"})
    (workspace / "notes.md").write_text("# Notes from the workspace\n")
    term = attach(codex_bridge, tmp_path / "client")
    try:
        term.expect(r"connected to")
        term.send("/models")
        term.expect(r"\* \S+  efforts: ")
        term.send(f"/new {workspace} say hello")
        term.expect(r"-- turn completed")
        term.send("/cat notes.md")
        term.expect(r"# Notes from the workspace")
        term.send("/cat ../../etc/passwd")
        term.expect(r"error: .*inside the thread's directory")
        term.send("/rename Fix the tests")
        term.expect(r"renamed")
        term.send("/quit")
        term.wait()
    finally:
        term.close()


def test_attach_answers_the_agents_question_and_queues(codex_bridge, model, workspace, tmp_path):
    question = {"id": "colour", "header": "Colour", "question": "Which colour?",
                "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}
    model.queue({"kind": "ask", "questions": [question]}, {"kind": "echo_output"},
                {"kind": "stall", "text": "stalled done"}, {"kind": "message", "text": "queued done"})
    term = attach(codex_bridge, tmp_path / "client")
    try:
        term.expect(r"connected to")
        term.send(f"/new {workspace} ask me")
        term.expect(r"question: \[Colour\] Which colour\?")
        term.expect(r"2\) Blue - cool")
        term.send("7")
        term.expect(r"pick 1 to 2")
        term.send("2")
        term.expect(r"answered")
        term.expect(r'\{"answers":\{"colour":\{"answers":\["Blue"\]\}\}\}')
        term.expect(r"-- turn completed")
        # A follow-up queued while a turn runs starts as the next turn.
        term.send("go on")
        model.wait_requests(3)
        term.send("/queue then this")
        term.expect(r"queued as (q-\S+)")
        model.release()
        term.expect(r"stalled done")
        term.expect(r"q-\S+ started")
        term.expect(r"queued done")
        term.send("/quit")
        term.wait()
    finally:
        term.close()
    assert "then this" in json.dumps(model.requests[-1])


def test_attach_review(codex_bridge, model, workspace, tmp_path):
    from test_turns import REVIEW
    model.queue({"kind": "message", "text": "hello"}, {"kind": "message", "text": json.dumps(REVIEW)})
    term = attach(codex_bridge, tmp_path / "client")
    try:
        term.expect(r"connected to")
        term.send(f"/new {workspace} say hello")
        term.expect(r"-- turn completed")
        (workspace / "tracked.txt").write_text("changed\n")
        term.send("/review commit nothex")
        term.expect(r"error: commit must be a hexadecimal sha")
        term.send("/review")
        term.expect(r"reviewing")
        term.expect(r"Off by one in the loop")
        term.expect(r"-- turn completed")
        term.send("/quit")
        term.wait()
    finally:
        term.close()
