"""Issue 37 item 5: a paired device is renamed from the workstation (`devices rename ID NAME`) or by an admin
device (`renameDevice`), audited either way; a bad name (empty, over 64 characters, control characters) is a
clear error, and a revoked or unknown device cannot be renamed. Cost: ~3 s."""
from conftest import run_cli
from test_codex import request
from test_pairing import PHONE, TABLET
from test_trust import audit, cli_json, pair
from wsutil import hello


def names(bridge):
    return {d["id"]: d["name"] for d in cli_json(bridge, "devices", "list")}


async def test_devices_are_renamed_from_the_workstation_and_by_an_admin_phone(bridge):
    admin_id, admin_token, _ = await pair(bridge, PHONE, "--scope", "observe,admin")
    other_id, other_token, _ = await pair(bridge, TABLET)

    # The workstation: trimmed, audited as the workstation's.
    done = run_cli("devices", "rename", other_id.upper(), "  Kitchen tablet ", state_dir=bridge.state_dir)
    assert done.returncode == 0 and f"Renamed device {other_id}: Test Tablet is now Kitchen tablet." in done.stdout, done
    assert names(bridge)[other_id] == "Kitchen tablet"
    for bad, why in (("   ", "1 to 64 characters"), ("x" * 65, "1 to 64 characters"), ("tab\tname", "control characters"),
                     ("line\u2028two", "control characters"), ("\u202egnp.exe", "control characters")):
        refused = run_cli("devices", "rename", other_id, bad, state_dir=bridge.state_dir)
        assert refused.returncode != 0 and why in refused.stderr, (bad, refused)
    refused = run_cli("devices", "rename", "0123456789ab", "Ghost", state_dir=bridge.state_dir)
    assert refused.returncode != 0 and "no device with id 0123456789ab" in refused.stderr, refused
    assert names(bridge)[other_id] == "Kitchen tablet"

    # An admin phone: `renameDevice`; a phone without admin may not.
    admin, _ = await hello(bridge, token=admin_token)
    other, _ = await hello(bridge, token=other_token)
    forbidden = await request(other, "renameDevice", deviceId=admin_id, name="Mine now")
    assert forbidden["kind"] == "error" and forbidden["code"] == "forbidden" and forbidden["scope"] == "admin", forbidden
    renamed = await request(admin, "renameDevice", deviceId=other_id, name="Ana's iPad \U0001F4F1")
    assert renamed["kind"] == "device" and renamed["device"]["name"] == "Ana's iPad \U0001F4F1", renamed
    assert names(bridge)[other_id] == "Ana's iPad \U0001F4F1"
    bad = await request(admin, "renameDevice", deviceId=other_id, name="bell\u0007")
    assert bad["kind"] == "error" and bad["code"] == "bad_request" and "control characters" in bad["message"], bad
    unknown = await request(admin, "renameDevice", deviceId="0123456789ab", name="Ghost")
    assert unknown["kind"] == "error" and unknown["code"] == "not_found", unknown
    await other.close()
    run_cli("devices", "revoke", other_id, state_dir=bridge.state_dir, check=True)
    revoked = await request(admin, "renameDevice", deviceId=other_id, name="Back again")
    assert revoked["kind"] == "error" and revoked["code"] == "conflict" and "revoked" in revoked["message"], revoked
    refused = run_cli("devices", "rename", other_id, "Back again", state_dir=bridge.state_dir)
    assert refused.returncode != 0 and "already revoked" in refused.stderr, refused
    await admin.close()

    entries = [(e["actor"], e["kind"], e["outcome"], e.get("detail")) for e in audit(bridge) if e["kind"] == "renameDevice"]
    assert ("workstation", "renameDevice", "ok", f"{other_id}: Kitchen tablet") in entries, entries
    assert ("device", "renameDevice", "ok", f"{other_id}: Ana's iPad \U0001F4F1") in entries, entries
    assert any(e[1:3] == ("renameDevice", "bad_request") for e in entries), entries
