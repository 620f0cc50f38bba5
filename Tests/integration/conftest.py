"""Shared fixtures for the integration tests: the real `codex-bridge` binary on real sockets (127.0.0.1 only)."""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("BRIDGE_BIN", ROOT / ".build" / "debug" / "codex-bridge"))


class Bridge:
    """One `codex-bridge serve` process with its own state directory."""

    def __init__(self, state_dir: pathlib.Path, args=(), env=None, listen="127.0.0.1:0", mdns=False, binary=None):
        self.binary = pathlib.Path(binary or BIN)
        self.state_dir = pathlib.Path(state_dir)
        self.args = list(args)
        self.env = dict(os.environ if env is None else env)
        self.env.pop("CODEX_BRIDGE_HOME", None)
        self.listen = listen
        self.mdns = mdns
        self.proc = None
        self.port = None
        self.log_path = self.state_dir.parent / f"{self.state_dir.name}-serve.log"

    def start(self, timeout=20.0):
        self.state_dir.mkdir(parents=True, exist_ok=True)
        server_file = self.state_dir / "server.json"
        if server_file.exists():
            server_file.unlink()
        cmd = [str(self.binary), "serve", "--listen", self.listen, "--state-dir", str(self.state_dir), "--no-qr"]
        if not self.mdns:
            cmd.append("--no-mdns")
        cmd += self.args
        if not self.listen.endswith(":0") and "--preview-port" not in self.args:
            # A fixed main port (a restart on the same address) would put the previews on the ports after it, which
            # another test's bridge may hold by then in a 2-worker run: they take any free ports instead.
            cmd += ["--preview-port", "0"]
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=self.env,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited with {self.proc.returncode}:\n{self.log()}")
            try:
                info = json.loads(server_file.read_text())
                if info.get("pid") == self.proc.pid:
                    self.port = info["port"]
                    return self
            except (FileNotFoundError, json.JSONDecodeError):
                pass
            time.sleep(0.05)
        raise RuntimeError(f"serve did not start within {timeout}s:\n{self.log()}")

    @property
    def token(self) -> str:
        return (self.state_dir / "token").read_text().strip()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def wait_log(self, needle: str, timeout=10.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log()
            if needle in text:
                return text
            time.sleep(0.05)
        raise AssertionError(f"{needle!r} not in log:\n{self.log()}")

    def stop(self, sig=signal.SIGTERM, timeout=45.0):  # a running turn may take --shutdown-grace (30 s)
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"serve did not exit within {timeout}s after {sig}:\n{self.log()}")
        finally:
            self._log.close()


def run_cli(*args, state_dir=None, env=None, timeout=30, check=False, input=None, binary=None):
    """Runs `codex-bridge ARGS` (`binary`: another copy, e.g. `isolated_binary`) and returns the CompletedProcess
    (text)."""
    cmd = [str(binary or BIN), *args]
    if state_dir is not None:
        cmd += ["--state-dir", str(state_dir)]
    full_env = dict(os.environ if env is None else env)
    full_env.pop("CODEX_BRIDGE_HOME", None)
    result = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout, input=input,
                            stdin=None if input is not None else subprocess.DEVNULL)
    if check and result.returncode != 0:
        raise AssertionError(f"{cmd} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture
def bridge_factory(tmp_path):
    """Makes bridges on 127.0.0.1 port 0; every one is stopped at teardown."""
    made = []

    def make(name="state", args=(), env=None, start=True, **kwargs):
        b = Bridge(tmp_path / name, args=args, env=env, **kwargs)
        made.append(b)
        return b.start() if start else b

    yield make
    for b in made:
        try:
            b.stop(signal.SIGKILL if b.proc and b.proc.poll() is None else signal.SIGTERM, timeout=5)
        except Exception:
            pass


def isolated_binary(tmp_path):
    """The binary outside the checkout, so that codex is not found next to it (the checkout's .venv-codex, which
    `Scripts/run` makes and the bridge looks in)."""
    target = tmp_path / "bin" / "codex-bridge"
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(BIN, target)
    except OSError:
        shutil.copy2(BIN, target)
    return target


@pytest.fixture
def bridge(bridge_factory):
    """A running bridge with default options."""
    return bridge_factory()


# Markers by file, so a developer can pick (`Scripts/test -m "not slow"`, `-m browser`): see pytest.ini.
_ROOT_FILES = {"test_lan.py", "test_lan_ca.py", "test_lan_web.py"}
_SLOW_FILES = _ROOT_FILES | {"test_package.py"}


def pytest_collection_modifyitems(config, items):
    import pytest as _pytest
    for item in items:
        name = item.path.name
        if name in _ROOT_FILES:
            item.add_marker(_pytest.mark.root)
        if name in _SLOW_FILES:
            item.add_marker(_pytest.mark.slow)
