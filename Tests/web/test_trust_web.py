"""Issue 25 in the browser: a pairing confirmed (or denied) on the workstation, a device that shows only what it may
do, and the Devices screen of an admin device. The real bridge and codex, the CLI in its own processes."""
import json
import os
import re
import shutil

from playwright.sync_api import expect

import conftest
from webutil import base_url, pair, run_async

from test_trust import pair as pair_device_ws  # noqa: E402 (Tests/integration is on sys.path)
from test_codex import frames, request
from wsutil import hello

TABLET = {"name": "Test Tablet", "platform": "android"}


def cli(bridge, *args):
    return conftest.run_cli(*args, state_dir=bridge.state_dir, check=True).stdout


def cli_json(bridge, *args):
    return json.loads(cli(bridge, *args, "--json"))


def pairing_link(bridge, *scope_args):
    return cli_json(bridge, "pair", *scope_args)["webUrl"]


def docs_copy(shots):
    """With WEB_UPDATE_DOCS=1 the screenshots become the documentation's pictures."""
    if os.environ.get("WEB_UPDATE_DOCS"):
        for name, path in shots.items():
            shutil.copyfile(path, conftest.ROOT / "docs" / f"web-{name}.png")


def test_a_pairing_waits_for_the_workstation_in_the_browser(web_bridge_factory, phone_factory):
    bridge = web_bridge_factory(extra=["--confirm-pairing"])
    shots = {}
    for scheme in ("light", "dark"):
        phone = phone_factory(color_scheme=scheme)
        phone.page.goto(pairing_link(bridge))
        expect(phone.page.get_by_role("heading", name="Confirm on your workstation")).to_be_visible()
        [waiting] = [p for p in cli_json(bridge, "devices", "pending")]
        digits = " ".join(waiting["check"])
        expect(phone.page.get_by_label(f"Check code {digits}")).to_be_visible()
        command = f"codex-bridge devices allow {waiting['id']} --check {waiting['check']}"
        expect(phone.page.locator(".wait-command")).to_have_text(command)
        expect(phone.status()).to_have_text("Waiting for approval")
        shots[f"pairing-confirm-{scheme}"] = phone.shot(f"pairing-confirm-{scheme}")
        if scheme == "light":
            assert "Allowed" in cli(bridge, *command.split()[1:])  # what the phone says to type
            expect(phone.status()).to_have_text("Connected")
            expect(phone.button("New thread")).to_be_visible()
            assert [d["id"] for d in cli_json(bridge, "devices", "list")] == [waiting["id"]]
        else:
            assert "Denied" in cli(bridge, "devices", "deny", waiting["id"])
            expect(phone.page.get_by_role("alert").filter(has_text="The workstation denied this pairing")).to_be_visible()
            expect(phone.page.get_by_label("Pairing code")).to_be_visible()
        assert not phone.errors and not phone.csp_violations()
    assert len(cli_json(bridge, "devices", "list")) == 1
    docs_copy(shots)


def test_a_watching_device_shows_only_what_it_may_and_follows_a_scope_change(web_bridge, model, phone_factory, workspace):
    phone = phone_factory()
    page = phone.page
    page.goto(pairing_link(web_bridge, "--scope", "observe"))
    expect(phone.status()).to_have_text("Connected")
    expect(phone.button("New thread")).to_be_hidden()
    expect(phone.button("Devices")).to_be_hidden()
    [device] = cli_json(web_bridge, "devices", "list")

    # The workstation (shared secret) starts a turn that needs approval.
    model.queue({"kind": "exec", "cmd": "touch approved.txt"}, {"kind": "message", "text": "done"})

    async def start():
        ws, _ = await hello(web_bridge)
        started = await request(ws, "startThread", cwd=str(workspace), prompt="make a file", approvalPolicy="untrusted")
        async for msg in frames(ws):
            if msg["kind"] == "approvalRequest":
                break
        await ws.close()
        return started["threadId"]

    thread_id = run_async(start())
    page.goto(base_url(web_bridge) + f"#/t/{thread_id}")
    expect(page.locator(".approval")).to_be_visible()
    expect(phone.button("Approve")).to_be_hidden()
    expect(page.locator(".approval")).to_contain_text("This device may look but not answer")
    expect(page.get_by_label("Message")).to_be_hidden()
    expect(page.get_by_text("This device can follow threads but not drive them")).to_be_visible()
    expect(phone.button("Review")).to_be_hidden()
    phone.shot("watch-only")

    # A refusal is explained: the bridge says which scope and the command that grants it.
    page.goto(base_url(web_bridge) + "#/new")
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("try anyway")
    phone.button("Start").click()
    expect(page.get_by_role("alert").filter(has_text="needs the scope 'operate'")).to_be_visible()
    expect(page.get_by_role("alert").filter(has_text=f"codex-bridge devices scope {device['id']} observe,operate")).to_be_visible()

    # The workstation grants more: the open page follows without a reload.
    page.goto(base_url(web_bridge) + f"#/t/{thread_id}")
    cli(web_bridge, "devices", "scope", device["id"], "observe,operate,approve")
    expect(phone.button("Approve")).to_be_visible(timeout=3000)
    expect(page.get_by_label("Message")).to_be_visible()
    phone.button("Approve").click()
    expect(page.locator(".approval")).to_contain_text("Approved by this phone")
    assert not phone.errors and not phone.csp_violations()


def test_the_devices_screen_of_an_admin_device(web_bridge, phone_factory):
    tablet_id, _, _ = run_async(pair_device_ws(web_bridge, TABLET))
    shots = {}
    light = phone_factory(color_scheme="light")
    light.page.goto(pairing_link(web_bridge, "--scope", "all"))
    expect(light.status()).to_have_text("Connected")
    dark = phone_factory(color_scheme="dark")
    dark.page.goto(pairing_link(web_bridge, "--scope", "observe,admin"))
    expect(dark.status()).to_have_text("Connected")
    for name, phone in (("light", light), ("dark", dark)):
        phone.button("Devices").click()
        expect(phone.page.get_by_role("heading", name="Devices", exact=True)).to_be_visible()
        expect(phone.page.locator(".device-card")).to_have_count(3)
        expect(phone.page.locator(".device-card").filter(has_text="This phone")).to_have_count(1)
        expect(phone.page.locator(".activity .action").first).to_be_visible()
        shots[f"devices-{name}"] = phone.shot(f"devices-{name}")
    page = light.page
    tablet = page.locator(f'[data-device-id="{tablet_id}"]')
    expect(tablet).to_contain_text(TABLET["name"])
    # Take `operate` away from the tablet.
    tablet.get_by_role("checkbox", name="May start and drive threads and upload photos").uncheck()
    expect(page.get_by_role("alert").filter(has_text=f"{TABLET['name']} may now see threads, their changes and files, "
                                                     "and answer approvals and questions.")).to_be_visible()
    listed = {d["id"]: d["scopes"] for d in cli_json(web_bridge, "devices", "list")}
    assert listed[tablet_id] == ["observe", "approve"]
    # A pairing link for another device.
    page.locator(".pair-card").get_by_role("checkbox", name="May start and drive threads and upload photos").uncheck()
    light.button("Make a pairing link").click()
    link = page.locator(".pair-link").inner_text()
    assert re.fullmatch(rf"http://127\.0\.0\.1:{web_bridge.port}/#pair=v1&code=[0-9A-Z]{{10}}", link), link
    # Revoke the tablet (twice: the first tap arms the button).
    tablet.get_by_role("button", name=f"Revoke {TABLET['name']}").click()
    tablet.get_by_role("button", name=f"Revoke {TABLET['name']}").click()
    expect(page.locator(".revoked-devices")).to_contain_text("Revoked (1)")
    assert {d["id"]: d["revoked"] for d in cli_json(web_bridge, "devices", "list")}[tablet_id] is True
    audit = [json.loads(line) for line in cli(web_bridge, "audit", "--json").splitlines()]
    assert [e["kind"] for e in audit if e["actor"] == "device"][-3:] == ["setDeviceScopes", "pairDevice", "revokeDevice"]
    for phone in (light, dark):
        assert not phone.errors and not phone.csp_violations()
    docs_copy(shots)
