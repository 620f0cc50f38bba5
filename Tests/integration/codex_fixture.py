"""A bridge running the real codex against the scripted model (mock_model.py), all on 127.0.0.1."""
import atexit
import os
import pathlib
import shutil
import subprocess
import uuid

import pytest

from conftest import ROOT
from mock_model import MockModel, codex_args, codex_env

# Where tests' CODEX_HOMEs live: never under /tmp, where codex will not create its `codex-linux-sandbox` helper
# alias (sandboxed commands then fail with "bwrap: execvp codex-linux-sandbox"), even when the clone itself is
# in a temporary directory.
# One directory per test session, removed when the session's process ends: a codex shutting down after its
# test's teardown may still write there.
CODEX_HOMES = pathlib.Path.home() / ".cache" / "codex-bridge-tests" / uuid.uuid4().hex
atexit.register(shutil.rmtree, CODEX_HOMES, True)


def codex_bin() -> str:
    """The real codex binary: $CODEX_BIN, else the openai-codex-cli-bin package. Fails (never skips) if absent."""
    path = os.environ.get("CODEX_BIN")
    if not path:
        try:
            import codex_cli_bin  # type: ignore
            path = str(codex_cli_bin.bundled_codex_path())
        except ImportError:
            path = shutil.which("codex")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("codex not found: set CODEX_BIN or `pip install openai-codex-cli-bin` (Scripts/test does)")
    return path


def bridge_codex_args(port: int) -> list:
    """codex_args as repeated `--codex-config KEY=VALUE`."""
    args = codex_args(port)
    out = []
    for flag, value in zip(args[0::2], args[1::2]):
        assert flag == "-c"
        out += ["--codex-config", value]
    return out


@pytest.fixture
def codex_home():
    """A CODEX_HOME outside /tmp (codex will not create its sandbox helper under /tmp), wherever the clone is."""
    home = CODEX_HOMES / uuid.uuid4().hex
    home.mkdir(parents=True)
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def model():
    m = MockModel().start()
    yield m
    m.stop()


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "workspace"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / "tracked.txt").write_text("one\n")
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    subprocess.run(["git", "-C", str(ws), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(ws), "commit", "-qm", "init"], check=True, env=env)
    return ws


@pytest.fixture
def codex_bridge(bridge_factory, model, codex_home, workspace):
    """A bridge whose codex talks to `model`, confined to `workspace`."""
    env = codex_env(codex_home)
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)]
    return bridge_factory(name="codex-state", args=args, env=env)
