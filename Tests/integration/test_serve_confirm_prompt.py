"""Issue 37 item 6 (the rest): with `--confirm-pairing` and serve on a terminal, serve itself asks y/N for each
pairing that waits, showing the check code to compare with the phone's; `y` pairs the phone, Enter denies it,
both audited as the workstation's; a line typed before the question answers nothing. A paired phone's request for
more scopes is asked there too, the same way (issue 37 item 1, issue 46 item 5). Cost: ~12 s (two serves)."""
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
        # The paired phone asks for a scope it lacks: serve's terminal asks about it the same way (issue 46 item 5;
        # test_a_scope_ask_is_answered_on_serves_terminal has the rest). Enter refuses it.
        await send(ws, {"kind": "requestScopes", "id": "r1", "scopes": ["run"]})
        asked = await recv(ws, timeout=5)
        assert asked["kind"] == "scopeRequest", asked
        term.expect(rf"Ana's Phone \(device {ack['deviceId']}, it may now: observe,operate,approve\) asks to also: run", timeout=10)
        term.expect(rf"Check code {asked['check']}: allow it only if the phone shows the same code.*\n.*\n.*Allow Ana's Phone to also: run\? \[y/N\]")
        term.send("")
        term.expect(r"Denied: Ana's Phone keeps its scopes")
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


async def paired_phone(url, code, device):
    ws = await connect(url)
    await send(ws, {"kind": "hello", "version": 1, "token": code, "device": device})
    ack = await recv(ws)
    assert ack["kind"] == "helloAck" and ack["ok"] is True, ack
    return ws, ack


async def test_a_scope_ask_is_answered_on_serves_terminal(tmp_path, model, codex_home, workspace):
    """Issue 46 item 5: a paired phone's request for more scopes is asked on serve's terminal with the same y/N as a
    pairing (no --confirm-pairing needed: stdin is a terminal); `y` grants it with the check code shown, Enter
    refuses it, both audited as the workstation's; a line typed before the question answers nothing."""
    state = tmp_path / "scope-state"
    term = Terminal(["serve", "--listen", "127.0.0.1:0", "--state-dir", str(state), "--no-mdns", "--no-qr",
                     "--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)],
                    env=codex_env(codex_home))
    try:
        term.expect(r"codex-bridge pair", timeout=60)
        port = json.loads((state / "server.json").read_text())["port"]
        url = f"ws://127.0.0.1:{port}/"
        code = json.loads(run_cli("pair", "--json", state_dir=state, check=True).stdout)["code"]
        ws, ack = await paired_phone(url, code, PHONE)
        device = ack["deviceId"]
        term.send("y")  # typed before any question: it must grant nothing
        await send(ws, {"kind": "requestScopes", "id": "r1", "scopes": ["run"]})
        asked = await recv(ws, timeout=5)
        assert asked["kind"] == "scopeRequest", asked
        term.expect(r"Allow Ana's Phone to also: run\? \[y/N\] ", timeout=10)
        question = term.seen.rsplit("asks to also", 1)[-1]
        assert "Allowed" not in term.seen and f"Check code {asked['check']}" in question, term.seen
        assert f"devices allow|deny {device}" in question, question
        term.send("y")
        term.expect(r"Allowed: Ana's Phone may now also: run\.")
        changed = await recv(ws, timeout=5)
        assert changed == {"kind": "scopesChanged", "scopes": ["observe", "operate", "approve", "run"]}, changed

        await send(ws, {"kind": "requestScopes", "id": "r2", "scopes": ["publish"]})
        asked = await recv(ws, timeout=5)
        term.expect(r"Allow Ana's Phone to also: publish\? \[y/N\] ", timeout=10)
        term.send("")  # Enter: no
        term.expect(r"Denied: Ana's Phone keeps its scopes\.")
        ended = await recv(ws, timeout=5)
        assert ended == {"kind": "scopeRequestEnded", "scopes": ["publish"], "check": asked["check"], "outcome": "denied"}, ended
        # Decided at another terminal while the question is open: the question is withdrawn, the next one asked.
        await send(ws, {"kind": "requestScopes", "id": "r3", "scopes": ["admin"]})
        asked = await recv(ws, timeout=5)
        term.expect(r"Allow Ana's Phone to also: admin\? \[y/N\] ", timeout=10)
        run_cli("devices", "deny", device, state_dir=state, check=True)
        term.expect(r"No longer waits: decided elsewhere, or expired", timeout=10)
        await recv(ws, timeout=5)  # scopeRequestEnded
        await send(ws, {"kind": "requestScopes", "id": "r4", "scopes": ["publish"]})
        await recv(ws, timeout=5)
        term.expect(r"Allow Ana's Phone to also: publish\? \[y/N\] ", timeout=10)
        term.send("n")
        term.expect(r"Denied: Ana's Phone keeps its scopes\.")
        [listed] = json.loads(run_cli("devices", "list", "--json", state_dir=state, check=True).stdout)
        assert listed["scopes"] == ["observe", "operate", "approve", "run"]
        lines = run_cli("audit", "--json", state_dir=state, check=True).stdout.splitlines()
        decided = [(e["actor"], e["kind"]) for e in map(json.loads, lines) if e["kind"] in ("allowScopes", "denyScopes")]
        assert decided == [("workstation", "allowScopes"), ("workstation", "denyScopes"), ("workstation", "denyScopes"),
                           ("workstation", "denyScopes")], decided
        await ws.close()
    finally:
        term.close()
