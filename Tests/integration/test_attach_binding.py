"""More of issue 11, finding 6, from the attacker's side: `attach` sends a stored credential only to the bridge it
belongs to, proven by impostors that record every frame, including one that takes over the paired bridge's own
port (with another certificate, then over plaintext). And finding 9: a command's output reaches the terminal with
its control sequences neutralised, like the agent's text (test_attach.py).

Impostors are real sockets on 127.0.0.1 that record every text frame a client sends: a plaintext WebSocket
server, and a TLS one with a certificate of its own (made by `codex-bridge tls show` in another state directory).
"""
import asyncio
import json
import pathlib
import ssl
import stat
import threading

import websockets

from conftest import run_cli
from test_attach import Terminal, attach, pairing_url
from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)


class RecordingServer:
    """A WebSocket server that records every text frame and never answers a hello."""

    def __init__(self, port=0, certificate_dir=None):
        self.port = port
        self.frames = []
        self.connections = 0
        self._ssl = None
        if certificate_dir is not None:
            self._ssl = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self._ssl.load_cert_chain(certificate_dir / "tls" / "cert.pem", certificate_dir / "tls" / "key.pem")
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop = None

    async def _handler(self, ws):
        self.connections += 1
        try:
            async for message in ws:
                self.frames.append(message)
        except websockets.ConnectionClosed:
            pass

    async def _main(self):
        self._stop = asyncio.Event()
        async with websockets.serve(self._handler, "127.0.0.1", self.port, ssl=self._ssl) as server:
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            await self._stop.wait()

    def __enter__(self):
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._main(),), daemon=True)
        self._thread.start()
        assert self._ready.wait(10), "the recording server did not start"
        return self

    def __exit__(self, *exc):
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def saw(self, secret):
        return any(secret in frame for frame in self.frames)


def pair(bridge, client_dir):
    result = run_cli("attach", pairing_url(bridge), "--state-dir", str(client_dir), input="/quit\n", timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    tokens = client_dir / "client-tokens.json"
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    stored = json.loads(tokens.read_text())
    assert len(stored) == 1
    return stored


def server_id(bridge):
    return (bridge.state_dir / "server-id").read_text().strip()


def attach_and_quit(address, client_dir, *extra, timeout=40):
    return run_cli("attach", address, "--state-dir", str(client_dir), *extra, input="/quit\n", timeout=timeout)


def test_a_stored_plaintext_token_goes_only_to_the_address_it_was_paired_on(bridge_factory, tmp_path):
    bridge = bridge_factory()
    client_dir = tmp_path / "client"
    stored = pair(bridge, client_dir)
    (sid, entry), = stored.items()
    assert sid == server_id(bridge)
    assert f"127.0.0.1:{bridge.port}" in entry["endpoints"] and entry.get("fingerprint") is None

    with RecordingServer() as impostor:
        refused = attach_and_quit(f"127.0.0.1:{impostor.port}", client_dir)
        assert refused.returncode != 0
        assert "--token" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert not impostor.saw(entry["token"]), impostor.frames
        # Naming the token explicitly sends it where the user says.
        attach_and_quit(f"ws://127.0.0.1:{impostor.port}/", client_dir, "--token", "typed-by-the-user", timeout=30)
        assert impostor.saw("typed-by-the-user")
        assert not impostor.saw(entry["token"])

    again = attach_and_quit(f"127.0.0.1:{bridge.port}", client_dir)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "as device" in again.stdout


def test_a_tls_pairing_binds_the_token_to_the_certificate(bridge_factory, tmp_path):
    bridge = bridge_factory(args=["--tls"])
    fingerprint = run_cli("tls", "show", state_dir=bridge.state_dir, check=True).stdout.strip()
    client_dir = tmp_path / "client"
    stored = pair(bridge, client_dir)
    (sid, entry), = stored.items()
    assert sid == server_id(bridge)
    assert entry["fingerprint"] == fingerprint

    # host:port, wss:// and even ws:// reach the bridge over TLS with the stored pin (never plaintext).
    for address in (f"127.0.0.1:{bridge.port}", f"wss://127.0.0.1:{bridge.port}/", f"ws://127.0.0.1:{bridge.port}/"):
        result = attach_and_quit(address, client_dir, timeout=40)
        assert result.returncode == 0, address + ": " + result.stdout + result.stderr
        assert "as device" in result.stdout, address + ": " + result.stdout
        assert f"wss://127.0.0.1:{bridge.port}" in result.stdout or "connected" in result.stdout

    # The bridge is gone; something else holds its port: another certificate, then plaintext.
    port = bridge.port
    bridge.stop()
    other = tmp_path / "other"
    run_cli("tls", "show", state_dir=other, check=True)
    with RecordingServer(port=port, certificate_dir=other) as impostor:
        for address in (f"127.0.0.1:{port}", f"wss://127.0.0.1:{port}/"):
            refused = attach_and_quit(address, client_dir, timeout=40)
            assert refused.returncode != 0, refused.stdout
            assert "fingerprint" in refused.stderr.lower() or "certificate" in refused.stderr.lower(), refused.stderr
        assert impostor.frames == [] and not impostor.saw(entry["token"])
    with RecordingServer(port=port) as impostor:
        for address in (f"127.0.0.1:{port}", f"ws://127.0.0.1:{port}/"):
            refused = attach_and_quit(address, client_dir, timeout=40)
            assert refused.returncode != 0, refused.stdout
        assert not impostor.saw(entry["token"]), impostor.frames


def test_attach_neutralises_command_output(codex_bridge, model, workspace, tmp_path):
    hostile = "title\x1b]0;owned\x07 clear\x1b[2J bell\x07 c1\u009b31m end"
    model.queue({"kind": "exec", "cmd": "printf 'out\\033[31mred\\033]2;x\\007\\n'"},
                {"kind": "message", "text": hostile, "deltas": [hostile[:9], hostile[9:]]})
    term = attach(codex_bridge, tmp_path / "client")
    try:
        term.expect(r"connected to")
        term.send(f"/new {workspace} print things")
        if "approve" in term.expect(r"approve: run|\[exit 0\]").group(0):
            term.send("y")
            term.expect(r"\[exit 0\]")
        term.expect(r"end")
        term.expect(r"-- turn completed")
        term.send("/quit")
        term.wait()
    finally:
        term.close()
    assert "\x1b" not in term.seen and "\x07" not in term.seen and "\u009b" not in term.seen, repr(term.seen)
    assert "owned" in term.seen and "red" in term.seen
