"""Issue 37 item 6 (the rest): with `--confirm-pairing` and serve on a terminal, serve itself asks y/N for each
pairing that waits, showing the check code to compare with the phone's; `y` pairs the phone, Enter denies it,
both audited as the workstation's; a line typed before the question answers nothing. A paired phone's request for
more scopes is shown there too (issue 37 item 1). Cost: ~3 s."""
import json
import re

from codex_fixture import bridge_codex_args, codex_bin, codex_home, model, workspace  # noqa: F401 (fixtures)
from conftest import run_cli
from mock_model import codex_env
from test_attach import Terminal
from test_pairing import PHONE, TABLET
from wsutil import connect, expect_close, recv, send


async def waiting_phone(url, code, device):
    ws = await connect(url)
    await send(ws, {"kind": "hello", "version": 1, "token": code, "device": device})
    pending = await recv(ws)
    assert pending["kind"] == "pairingPending", pending
    return ws, pending


async def test_serve_asks_on_its_terminal_with_the_check_code(tmp_path, model, codex_home, workspace):
    state = tmp_path / "prompt-state"
    term = Terminal(["serve", "--listen", "127.0.0.1:0", "--state-dir", str(state), "--no-mdns", "--no-qr",
                     "--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port), "--confirm-pairing"],
                    env=codex_env(codex_home))
    try:
        term.expect(r"codex-bridge pair", timeout=60)  # listening, Codex running (the hint that replaces the QR)
        port = json.loads((state / "server.json").read_text())["port"]
        url = f"ws://127.0.0.1:{port}/"
        code = json.loads(run_cli("pair", "--json", state_dir=state, check=True).stdout)["code"]
        term.send("y")  # typed before any question: it must allow nothing
        ws, pending = await waiting_phone(url, code, PHONE)
        term.expect(r"Allow this phone\? \[y/N\]", timeout=10)
        question = term.seen.rsplit("A phone asks to pair", 1)[-1]
        assert "Allowed" not in term.seen  # the early "y" allowed nothing
        assert "Ana's Phone" in question and f"Check code {pending['check']}" in question, term.seen
        assert pending["deviceId"] in question and "127.0.0.1" in question
        term.send("y")
        term.expect(r"Allowed: Ana's Phone is paired")
        ack = await recv(ws, timeout=5)
        assert ack["kind"] == "helloAck" and ack["ok"] is True and ack["deviceToken"], ack
        # The paired phone asks for a scope it lacks: serve's terminal shows the request and how to grant it.
        await send(ws, {"kind": "requestScopes", "id": "r1", "scopes": ["run"]})
        asked = await recv(ws, timeout=5)
        assert asked["kind"] == "scopeRequest", asked
        term.expect(rf"Ana's Phone \(device {ack['deviceId']}\) asks to also: run", timeout=10)
        term.expect(rf"Check code {asked['check']}: if the phone shows the same, run\s+codex-bridge devices allow {ack['deviceId']}")
        await ws.close()

        code = json.loads(run_cli("pair", "--json", state_dir=state, check=True).stdout)["code"]
        ws, pending = await waiting_phone(url, code, TABLET)
        term.expect(rf"Check code {pending['check']}.*\n.*\n.*Allow this phone\? \[y/N\]", timeout=10)
        term.send("")  # Enter: no
        term.expect(r"Denied: Test Tablet will not be paired")
        ack = await recv(ws, timeout=5)
        assert ack["ok"] is False and ack["error"]["code"] == "pairing_denied", ack
        assert await expect_close(ws) == (1008, "pairing denied")
        devices = json.loads(run_cli("devices", "list", "--json", state_dir=state, check=True).stdout)
        assert [d["name"] for d in devices] == ["Ana's Phone"]
        lines = run_cli("audit", "--json", state_dir=state, check=True).stdout.splitlines()
        decided = [(e["actor"], e["kind"]) for e in map(json.loads, lines) if e["kind"] in ("allowPairing", "denyPairing")]
        assert decided == [("workstation", "allowPairing"), ("workstation", "denyPairing")], decided
        assert not re.search(r"Allowed: Test Tablet", term.seen)
    finally:
        term.close()
