"""Issue 7, config.toml: every `serve` flag has a key; flags win over the file; a bad file is one clear error
naming the key and line, and a non-zero exit."""
import asyncio
import json
import os

import pytest
import websockets

from conftest import run_cli
from wsutil import connect, expect_close, hello


def write_config(state_dir, text):
    state_dir.mkdir(parents=True, exist_ok=True)
    (state_dir / "config.toml").write_text(text)


async def test_hello_timeout_from_the_file_takes_effect(bridge_factory, tmp_path):
    write_config(tmp_path / "state", "# the bridge's config\nhello_timeout = 1\nmax_message_bytes = 4096\n")
    bridge = bridge_factory()
    ws = await connect(bridge)
    code, _ = await asyncio.wait_for(expect_close(ws), 5)
    assert code == 1008

    # max_message_bytes = 4096 from the file: a larger message closes with 1009.
    ws, ack = await hello(bridge)
    assert ack["ok"] is True
    await ws.send(json.dumps({"kind": "ping", "nonce": "x" * 8000}))
    code, _ = await expect_close(ws)
    assert code == 1009


async def test_a_flag_overrides_the_file(bridge_factory, tmp_path):
    write_config(tmp_path / "state", "hello_timeout = 1\ntls = true\n")
    bridge = bridge_factory(args=["--hello-timeout", "30", "--no-tls"])
    record = json.loads((bridge.state_dir / "server.json").read_text())
    assert record["tls"] is False
    ws = await connect(bridge)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(expect_close(ws), 2.5)
    await ws.close()


def test_tls_from_the_file(bridge_factory, tmp_path):
    write_config(tmp_path / "state", "tls = true\nqr = false\nmdns = false\nroots = [\".\"]\ncodex_config = [\"model=x\"]\n")
    bridge = bridge_factory()
    record = json.loads((bridge.state_dir / "server.json").read_text())
    assert record["tls"] is True and len(record["fingerprint"]) == 64


@pytest.mark.parametrize("text, line, needle", [
    ("listen = \"127.0.0.1:0\"\nhello_timeout = = 3\n", 2, "invalid TOML"),
    ("# comment\n\nhello_timeout = \"soon\"\n", 3, "hello_timeout must be a number of seconds, not a string"),
    ("tls = 1\n", 1, "tls must be true or false"),
    ("roots = \"/tmp\"\n", 1, "roots must be an array of strings"),
    ("log_level = \"loud\"\n", 1, "log_level must be one of"),
    ("listen = \"nowhere:port\"\n", 1, "listen must be HOST:PORT"),
    ("\nhelo_timeout = 3\n", 2, "helo_timeout is not a config key"),
])
def test_an_invalid_file_is_one_clear_error(tmp_path, text, line, needle):
    state = tmp_path / "state"
    write_config(state, text)
    result = run_cli("serve", "--no-qr", "--no-mdns", "--listen", "127.0.0.1:0", state_dir=state, timeout=30)
    assert result.returncode != 0
    lines = [l for l in result.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, result.stderr
    assert f"config.toml:{line}: " in lines[0] and needle in lines[0], lines[0]
    assert not (state / "server.json").exists()


@pytest.mark.parametrize("flag,value", [
    ("--hello-timeout", "inf"), ("--hello-timeout", "nan"), ("--hello-timeout", "0"), ("--ping-interval", "1e20"),
    ("--ping-interval", "-1"), ("--max-message-bytes", "5000000000"), ("--max-message-bytes", "10"),
    ("--request-head-timeout", "0"), ("--max-unauthenticated", "1"), ("--max-unauthenticated-per-address", "0"),
    ("--journal-max-bytes", "-5"),
])
def test_numbers_out_of_range_are_usage_errors(tmp_path, flag, value):
    """Regression (issue 11, finding 8): `--hello-timeout inf`, `--ping-interval 1e20` and
    `--max-message-bytes 5000000000` were accepted, then the server crashed (SIGILL)."""
    result = run_cli("serve", f"{flag}={value}", "--listen", "127.0.0.1:0", "--no-qr", "--no-mdns", state_dir=tmp_path / "s", timeout=10)
    assert result.returncode == 2, (result.returncode, result.stderr)
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"error: {flag} must be between "), first


@pytest.mark.parametrize("line", ["hello_timeout = inf", "ping_interval = 1e20", "max_message_bytes = 5000000000",
                                  "request_head_timeout = -1", "max_unauthenticated = 0", 'journal_max_age = "99999d"'])
def test_config_numbers_out_of_range_name_file_line_and_key(tmp_path, line):
    state = tmp_path / "s"
    state.mkdir()
    (state / "config.toml").write_text(f"# comment\n{line}\n")
    result = run_cli("serve", "--listen", "127.0.0.1:0", "--no-qr", "--no-mdns", state_dir=state, timeout=10)
    assert result.returncode == 1, (result.returncode, result.stderr)
    key = line.split(" ")[0]
    assert result.stderr.splitlines()[0].startswith(f"error: {state / 'config.toml'}:2: {key} must be between "), result.stderr


def test_a_bad_root_in_the_config_names_file_line_and_key(tmp_path):
    """Issue 17, item 6: it was reported as `--root … is not an existing directory`."""
    state = tmp_path / "s"
    state.mkdir()
    (state / "config.toml").write_text('listen = "127.0.0.1:0"\nroots = ["/nonexistent/src"]\n')
    result = run_cli("serve", "--no-qr", "--no-mdns", state_dir=state, timeout=10)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        f'error: {state / "config.toml"}:2: roots entry "/nonexistent/src" is not an existing directory')


def test_pair_doctor_and_status_read_the_config_file(tmp_path):
    """Issue 17, item 2: pair minted codes for port 9099 and doctor said codex was missing although config.toml
    named both."""
    from codex_fixture import codex_bin
    state = tmp_path / "s"
    state.mkdir()
    (state / "config.toml").write_text(f'listen = "127.0.0.1:9123"\ncodex = "{codex_bin()}"\n')
    env = dict(os.environ, PATH="/usr/bin:/bin")
    pair = run_cli("pair", "--json", "--advertise", "127.0.0.1", state_dir=state, env=env, check=True)
    assert json.loads(pair.stdout)["port"] == 9123 and "from " in pair.stderr
    doctor = json.loads(run_cli("doctor", "--json", state_dir=state, env=env, timeout=60).stdout)
    codex = next(f for f in doctor if f["check"] == "codex")
    assert codex["severity"] != "problem" and codex_bin() in json.dumps(codex), codex
    assert any("9123" in json.dumps(f) for f in doctor if f["check"] == "port"), doctor
    status = json.loads(run_cli("status", "--json", state_dir=state, env=env, timeout=60).stdout)
    assert status["codex"]["path"] == codex_bin()
