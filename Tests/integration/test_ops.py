"""Operations: `status`, `doctor`, `/metrics`, `serve --log-format json`, `service install`."""
import asyncio
import json
import os
import pathlib
import re
import shutil
import stat
import urllib.error
import urllib.request

import pytest

from conftest import BIN, isolated_binary, run_cli
from codex_fixture import codex_bin, codex_home  # noqa: F401 (fixture)
from mock_model import codex_env
import wsutil


def http_get(port, path, token=None, timeout=5):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def sample(text, name, labels=None):
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        series, _, value = line.rpartition(" ")
        if series.split("{", 1)[0] == name and (labels is None or labels in series):
            return float(value)
    return None


# status

def test_status_json_with_a_running_bridge(bridge_factory):
    bridge = bridge_factory()
    result = run_cli("status", "--json", state_dir=bridge.state_dir)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["running"] is True
    assert report["server"]["port"] == bridge.port
    assert report["server"]["pid"] == bridge.proc.pid
    assert report["server"]["healthy"] is True
    assert report["tls"] is False and report["fingerprint"] is None
    assert report["devices"] == 0
    assert report["connections"] == 0
    assert "mdns" in report and "version" in report
    assert set(report["codex"]) == {"path", "version", "loggedIn"}
    assert bridge.token not in result.stdout


def test_status_without_a_bridge_exits_3(tmp_path):
    result = run_cli("status", "--json", state_dir=tmp_path / "none")
    assert result.returncode == 3, result.stderr
    report = json.loads(result.stdout)
    assert report["running"] is False
    assert report["server"] is None
    text = run_cli("status", state_dir=tmp_path / "none")
    assert text.returncode == 3
    assert "not running" in text.stdout


# doctor

def test_doctor_with_codex_and_avahi_missing(tmp_path):
    binary = isolated_binary(tmp_path)
    fake_bin = tmp_path / "fakebin"
    fake_bin.mkdir()
    daemon = fake_bin / "avahi-daemon"
    daemon.write_text("#!/bin/sh\necho 'Daemon not running' >&2\nexit 255\n")
    daemon.chmod(0o755)
    env = {"PATH": f"{fake_bin}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    state = tmp_path / "state"
    result = __import__("subprocess").run(
        [str(binary), "doctor", "--port", "0", "--state-dir", str(state)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert re.search(r"PROBLEM\s+codex\s+codex is not installed", out), out
    assert "pip install openai-codex-cli-bin" in out
    assert re.search(r"PROBLEM\s+avahi\s+avahi-daemon is not running", out), out
    assert "systemctl enable --now avahi-daemon" in out


def test_doctor_flags_loose_state_permissions(bridge_factory, tmp_path):
    bridge = bridge_factory()
    token = bridge.state_dir / "token"
    token.chmod(0o644)
    result = run_cli("doctor", "--json", "--port", str(bridge.port), state_dir=bridge.state_dir, timeout=60)
    findings = json.loads(result.stdout)
    assert result.returncode == 1
    state = [f for f in findings if f["check"] == "state-dir"]
    assert any(f["severity"] == "problem" and f["fix"] == f"chmod 600 {token}" for f in state), state
    port = next(f for f in findings if f["check"] == "port")
    assert port["severity"] == "ok" and "running bridge" in port["summary"]


# /metrics

def test_metrics_requires_a_token_and_counts(bridge_factory):
    bridge = bridge_factory()
    assert http_get(bridge.port, "/healthz")[0] == 200
    assert http_get(bridge.port, "/metrics")[0] == 401
    assert http_get(bridge.port, "/metrics", token="wrong")[0] == 401

    async def scenario():
        ws, ack = await wsutil.hello(bridge)
        assert ack["ok"] is True
        status, body = http_get(bridge.port, "/metrics", token=bridge.token)
        await ws.close()
        bad = await wsutil.connect(bridge)
        await wsutil.send(bad, {"kind": "hello", "version": 1, "token": "nope"})
        await wsutil.recv(bad)
        await wsutil.expect_close(bad)
        return status, body

    status, body = asyncio.run(scenario())
    assert status == 200
    assert "# TYPE codex_bridge_handshakes_total counter" in body
    assert sample(body, "codex_bridge_handshakes_total", 'result="ok"') >= 1
    assert sample(body, "codex_bridge_connections") >= 1
    _, after = http_get(bridge.port, "/metrics", token=bridge.token)
    assert sample(after, "codex_bridge_handshakes_total", 'result="unauthorized"') >= 1
    assert sample(after, "codex_bridge_journal_bytes") > 0
    assert bridge.token not in after


# logs

def test_serve_log_format_json(bridge_factory):
    bridge = bridge_factory(args=["--log-format", "json", "--log-level", "debug"])
    asyncio.run(_hello_and_close(bridge))
    bridge.wait_log('"Client authenticated"')
    # Every log line is one JSON object (nothing else writes to the log while serving).
    lines = [line for line in bridge.log().splitlines() if line.strip()]
    objects = [json.loads(line) for line in lines]
    assert len(objects) >= 2
    for obj in objects:
        assert {"ts", "level", "label", "message"} <= obj.keys()
    listening = next(o for o in objects if o["message"] == "Listening")
    assert listening["bridge.listen.port"] == str(bridge.port)
    authenticated = next(o for o in objects if o["message"] == "Client authenticated")
    assert "bridge.connection.id" in authenticated
    assert bridge.token not in bridge.log()


async def _hello_and_close(bridge):
    ws, _ = await wsutil.hello(bridge)
    await ws.close()


def test_serve_rejects_an_unknown_log_format(tmp_path):
    result = run_cli("serve", "--log-format", "xml", state_dir=tmp_path / "s")
    assert result.returncode != 0
    assert "--log-format" in result.stderr


# service

def test_service_install_dry_run_writes_nothing(tmp_path):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    result = run_cli("service", "install", "--dry-run", "--root", str(tmp_path), env=env, state_dir=tmp_path / "state")
    assert result.returncode == 0, result.stderr
    assert "Restart=on-failure" in result.stdout
    assert "loginctl enable-linger" in result.stdout
    assert not (tmp_path / "cfg").exists()


def test_service_install_without_systemctl(tmp_path):
    env = {"PATH": "/nonexistent", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "USER": "me"}
    state = tmp_path / "state"
    work = tmp_path / "work"
    work.mkdir()
    result = run_cli("service", "install", "--root", str(work), env=env, state_dir=state)
    assert result.returncode == 0, result.stderr
    unit = tmp_path / "cfg" / "systemd" / "user" / "codex-bridge.service"
    text = unit.read_text()
    assert "Restart=on-failure" in text
    assert f"ExecStart={BIN.resolve()} serve --no-qr --state-dir {state} --root {work}" in text
    assert "WantedBy=default.target" in text
    assert "systemctl --user enable codex-bridge.service" in result.stdout
    assert "loginctl enable-linger me" in result.stdout
    if shutil.which("systemd-analyze"):
        verify = __import__("subprocess").run(["systemd-analyze", "verify", "--user", str(unit)], capture_output=True, text=True)
        ours = [line for line in (verify.stdout + verify.stderr).splitlines() if "codex-bridge.service" in line]
        assert not ours, verify.stderr
    removed = run_cli("service", "uninstall", env=env, state_dir=state)
    assert removed.returncode == 0, removed.stderr
    assert not unit.exists()


def test_status_probes_the_recorded_address(bridge_factory):
    """Issue 17/11: a bridge on a specific address other than 127.0.0.1 was reported down."""
    bridge = bridge_factory(listen="127.0.0.2:0")
    result = run_cli("status", "--json", state_dir=bridge.state_dir, timeout=20)
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["running"] is True, result.stdout


def test_status_never_sends_the_secret_to_a_stranger_on_the_port(tmp_path):
    """Regression (issue 11, finding 9): with a stale server.json whose pid is alive (reused), `status` sent the
    shared secret to whatever now listens on the recorded port."""
    import http.server
    import threading
    seen = []

    class Stranger(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append((self.path, self.headers.get("Authorization")))
            body = b'{"status":"ok","id":"someone-else"}' if self.path == "/healthz" else b"# nothing\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stranger)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        state = tmp_path / "state"
        run_cli("token", "show", state_dir=state, check=True)  # makes the state directory and its secret
        run_cli("pair", "--json", "--advertise", "127.0.0.1", state_dir=state, check=True)  # and the server id
        (state / "server.json").write_text(json.dumps({
            "pid": os.getpid(), "port": server.server_address[1], "host": "127.0.0.1", "addresses": ["127.0.0.1"],
            "startedAt": "2026-01-01T00:00:00Z", "tls": False}))
        result = run_cli("status", "--json", state_dir=state, timeout=20)
        assert json.loads(result.stdout)["running"] is False and result.returncode == 3
        assert ("/healthz", None) in seen
        assert all(auth is None for _, auth in seen), seen
    finally:
        server.shutdown()


def test_service_install_chooses_roots_deliberately(tmp_path):
    """Regression (issue 11, finding 9): without --root the unit ran serve in $HOME, giving phones every file."""
    import subprocess
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(tmp_path / "cfg"), PATH="/nonexistent")
    def install(*args, cwd):
        return subprocess.run([str(BIN), "service", "install", "--dry-run", "--state-dir", str(tmp_path / "s"), *args],
                              capture_output=True, text=True, env=env, cwd=cwd, stdin=subprocess.DEVNULL, timeout=30)
    at_home = install(cwd=home)
    assert at_home.returncode == 1 and "whole home directory" in at_home.stderr.splitlines()[0]
    project = home / "project"
    project.mkdir()
    no_terminal = install(cwd=project)
    assert no_terminal.returncode == 1 and "needs --root" in no_terminal.stderr.splitlines()[0]
    explicit_home = install("--root", str(home), cwd=home)
    assert explicit_home.returncode == 0 and f"--root {home}" in explicit_home.stdout
    missing = install("--root", str(home / "nope"), cwd=home)
    assert missing.returncode == 1 and "is not an existing directory" in missing.stderr
    bad_listen = install("--root", str(project), "--listen", "http://127.0.0.1:9099", cwd=home)  # a URL is not an address
    assert bad_listen.returncode == 1 and "--listen" in bad_listen.stderr.splitlines()[0]



def test_service_install_takes_a_literal_tilde_as_home(tmp_path):
    """`--root=~` reaches the program unexpanded (bash expands `~` only at the start of a word), and the refusal
    above tells people to write `--root ~`: both `~` and `~/DIR` mean the home directory."""
    import subprocess
    home = tmp_path / "home"
    (home / "src").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(tmp_path / "cfg"), PATH="/nonexistent")
    for given, expected in (("--root=~", home), ("--root=~/src", home / "src")):
        result = subprocess.run([str(BIN), "service", "install", "--dry-run", "--state-dir", str(tmp_path / "s"), given],
                                capture_output=True, text=True, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=30)
        assert result.returncode == 0, (given, result.stderr)
        assert f"--root {expected}\n" in result.stdout or f"--root {expected} " in result.stdout, result.stdout


def test_service_install_knows_home_through_a_link(tmp_path):
    """$HOME may name the home directory through a link while the working directory is always the resolved path:
    running in it must still be refused, not offered."""
    import subprocess
    real = tmp_path / "real-home"
    real.mkdir()
    (tmp_path / "home").symlink_to(real)
    env = dict(os.environ, HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "cfg"), PATH="/nonexistent")
    result = subprocess.run([str(BIN), "service", "install", "--dry-run", "--state-dir", str(tmp_path / "s")],
                            capture_output=True, text=True, env=env, cwd=real, stdin=subprocess.DEVNULL, timeout=30)
    assert result.returncode == 1 and "whole home directory" in result.stderr.splitlines()[0], result.stderr


def test_doctor_port_has_a_range(tmp_path):
    """Issue 11, finding 8 (every numeric option has a range): `doctor --port 70000` reported 'port 70000 is free'."""
    for value in ("65536", "70000", "-1"):
        result = run_cli("doctor", f"--port={value}", state_dir=tmp_path / "s", timeout=30)
        assert result.returncode == 2, (value, result.returncode, result.stdout)
        assert result.stderr.splitlines()[0] == f"error: --port must be between 0 and 65535, not {value}", result.stderr


def test_a_codex_link_in_a_directory_others_can_write_is_not_run(tmp_path):
    """Issue 11, finding 7 ("and its directory likewise"): a `codex` on PATH that is a link to a safe file, in a
    directory anyone can write, was run: the link can be repointed between the check and the exec."""
    marker = tmp_path / "ran"
    safe = tmp_path / "safe"
    safe.mkdir()
    target = safe / "codex"
    target.write_text(f"#!/bin/sh\ntouch {marker}\necho codex-cli 0.0.1\n")
    target.chmod(0o755)
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    (open_dir / "codex").symlink_to(target)
    open_dir.chmod(0o777)
    env = {"PATH": f"{open_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    binary = isolated_binary(tmp_path)  # not the checkout's, whose .venv-codex it would find
    try:
        for command in (["status", "--json"], ["doctor", "--json"]):
            run_cli(*command, state_dir=tmp_path / "s", env=env, timeout=60, binary=binary)
        assert not marker.exists()
        status = run_cli("status", "--json", state_dir=tmp_path / "s", env=env, timeout=60, binary=binary)
        assert json.loads(status.stdout)["codex"]["path"] is None
        open_dir.chmod(0o755)
        report = json.loads(run_cli("status", "--json", state_dir=tmp_path / "s", env=env, timeout=60, binary=binary).stdout)
        assert report["codex"]["path"] == str(open_dir / "codex") and marker.exists()
    finally:
        open_dir.chmod(0o755)


def test_codex_config_values_are_logged_at_debug_only(bridge_factory, codex_home):
    """Issue 11, finding 9: `--codex-config` values may hold keys; the info log names codex, never the values."""
    secret = "sk-test-DO-NOT-LOG-4711"
    args = ["--codex", codex_bin(), "--codex-config", f'x_bridge_test_api_key="{secret}"']
    bridge = bridge_factory(args=args, env=codex_env(codex_home))
    bridge.wait_log("starting codex app-server", timeout=20)
    bridge.wait_log("codex app-server ready", timeout=30)
    assert secret not in bridge.log()
    debug = bridge_factory(name="debug", args=[*args, "--log-level", "debug"], env=codex_env(codex_home))
    debug.wait_log(secret, timeout=20)  # still there for whoever asks for debug logs

# Issue 17, items 8 and 9: the small things a new user hits.

def test_every_command_takes_state_dir_and_serve_help_names_the_config_file(tmp_path):
    assert run_cli("discover", "--state-dir", str(tmp_path), "--timeout", "0.2").returncode in (0, 1)
    assert "unexpected argument" not in run_cli("discover", "--state-dir", str(tmp_path), "--timeout", "0.2").stderr
    assert "config.toml" in run_cli("serve", "--help").stdout
    assert "fingerprint" in run_cli("pair", "--help").stdout


@pytest.mark.parametrize("shell,check", [("bash", ["bash", "-n"]), ("zsh", None), ("fish", None)])
def test_completion_scripts(tmp_path, shell, check):
    result = run_cli("completions", shell, check=True)
    assert "codex-bridge" in result.stdout and "serve" in result.stdout
    if check and shutil.which(check[0]):
        script = tmp_path / "completion"
        script.write_text(result.stdout)
        assert __import__("subprocess").run([*check, str(script)]).returncode == 0
    bad = run_cli("completions", "tcsh")
    assert bad.returncode == 2 and bad.stderr.startswith("error: shell must be bash, zsh or fish")


def test_codex_user_agent_is_logged_as_plain_text(bridge_factory, tmp_path):
    from test_codex_faults import fake_bridge
    bridge, _ = fake_bridge(bridge_factory, tmp_path, "normal")
    log = bridge.wait_log("codex app-server ready")
    line = next(line for line in log.splitlines() if "codex app-server ready" in line)
    assert "codex.userAgent=" in line and 'string("' not in line, line


def test_read_only_commands_change_nothing_in_the_state_directory(tmp_path):
    """Issue 17, item 5: `devices list` created the state directory and a database; `token show` and `tls show`
    re-created and re-moded a directory they only read from."""
    fresh = tmp_path / "fresh"
    listed = run_cli("devices", "list", "--json", state_dir=fresh)
    assert listed.returncode == 0 and json.loads(listed.stdout) == [], listed.stderr
    assert not fresh.exists()

    state = tmp_path / "state"
    token = run_cli("token", "show", state_dir=state, check=True).stdout.strip()
    shown = run_cli("tls", "show", "--json", state_dir=state, check=True)
    fingerprint = json.loads(shown.stdout)["fingerprint"]
    os.chmod(state, 0o750)  # looser than serve keeps it: a read must not be what changes that
    assert run_cli("token", "show", state_dir=state, check=True).stdout.strip() == token
    assert json.loads(run_cli("tls", "show", "--json", state_dir=state, check=True).stdout)["fingerprint"] == fingerprint
    assert stat.S_IMODE(state.stat().st_mode) == 0o750
