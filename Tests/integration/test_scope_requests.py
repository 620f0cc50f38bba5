"""Issue 37 item 1: a paired device asks the workstation for a scope it lacks (`requestScopes`); the request waits
with a check code, `devices pending` lists it, `devices allow ID --check CODE` grants it (a wrong code grants
nothing) and the device's open connection gets `scopesChanged`; `devices deny` drops one and the device is told
(`scopeRequestEnded`); serve's log says so.
Cost: ~3 s."""
import asyncio
import json

from conftest import run_cli
from test_codex import request
from test_pairing import PHONE
from test_trust import audit, cli_json, pair
from wsutil import hello, recv


async def test_a_device_asks_for_a_scope_and_the_workstation_grants_it(bridge):
    device_id, token, ack = await pair(bridge, PHONE)
    assert ack["scopes"] == ["observe", "operate", "approve"]
    ws, _ = await hello(bridge, token=token)
    held = await request(ws, "requestScopes", scopes=["approve"])
    assert held["kind"] == "error" and held["code"] == "conflict", held
    bad = await request(ws, "requestScopes", scopes=["root"])
    assert bad["kind"] == "error" and bad["code"] == "bad_request", bad
    asked = await request(ws, "requestScopes", scopes=["run", "observe"])
    assert asked["kind"] == "scopeRequest" and asked["deviceId"] == device_id and asked["scopes"] == ["run"], asked
    assert len(asked["check"]) == 4 and asked["check"].isdigit()
    [pending] = cli_json(bridge, "devices", "pending")
    assert (pending["kind"], pending["id"], pending["check"], pending["scopes"], pending["name"]) == (
        "scopes", device_id, asked["check"], ["run"], PHONE["name"])
    table = run_cli("devices", "pending", state_dir=bridge.state_dir, check=True).stdout
    assert "more scopes" in table and asked["check"] in table
    for _ in range(50):
        if "A device asks for more scopes" in bridge.log():
            break
        await asyncio.sleep(0.1)
    assert "A device asks for more scopes" in bridge.log()

    wrong = "0000" if asked["check"] != "0000" else "1111"
    refused = run_cli("devices", "allow", device_id, "--check", wrong, state_dir=bridge.state_dir)
    assert refused.returncode == 1 and "that is not the check code" in refused.stderr, refused
    assert cli_json(bridge, "devices", "pending") != []
    granted = run_cli("devices", "allow", device_id, "--check", asked["check"], state_dir=bridge.state_dir, check=True)
    assert f"Allowed: device {device_id}" in granted.stdout and "may now also: run" in granted.stdout, granted.stdout
    changed = await recv(ws, timeout=5)
    assert changed == {"kind": "scopesChanged", "scopes": ["observe", "operate", "approve", "run"]}, changed
    assert cli_json(bridge, "devices", "pending") == []

    # A denial drops the request and grants nothing.
    asked = await request(ws, "requestScopes", scopes=["publish"])
    denied = run_cli("devices", "deny", device_id, state_dir=bridge.state_dir, check=True)
    assert "keeps its scopes" in denied.stdout, denied.stdout
    ended = await recv(ws, timeout=5)  # told, within 2 s, though another process refused it
    assert ended == {"kind": "scopeRequestEnded", "scopes": ["publish"], "check": asked["check"], "outcome": "denied"}, ended
    assert cli_json(bridge, "devices", "pending") == []
    [device] = cli_json(bridge, "devices", "list")
    assert device["scopes"] == ["observe", "operate", "approve", "run"]
    again = run_cli("devices", "allow", device_id, "--check", asked["check"], state_dir=bridge.state_dir)
    assert again.returncode == 1 and "no pairing waits" in again.stderr, again
    await ws.close()

    secret, _ = await hello(bridge)
    refused = await request(secret, "requestScopes", scopes=["run"])
    assert refused["kind"] == "error" and refused["code"] == "bad_request", refused
    await secret.close()
    kinds = [(e["actor"], e["kind"], e["outcome"]) for e in audit(bridge)]
    for entry in (("device", "requestScopes", "ok"), ("workstation", "allowScopes", "ok"), ("workstation", "denyScopes", "ok")):
        assert entry in kinds, kinds
