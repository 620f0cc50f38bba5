"""Issue 33, "add a machine found on the network" on the Machines screen: B is advertised over mDNS through the real
avahi-daemon confined to loopback (Tests/integration/avahi_fixture.py: needs root, fails without it) and started
with --confirm-pairing. The admin phone (Chromium, 390×844, paired with A) finds B, picks it, types a wrong code
(refused, said), then the code B's `pair` shows: the screen says it waits, B's owner allows the link there, and B
is listed online. axe, screenshots light and dark. Cost: ~15 s."""
import json
import time
import uuid

import pytest
from playwright.sync_api import expect

import conftest
from avahi_fixture import avahi_daemon  # noqa: F401 (fixture)
from test_fleet_web import serious
from test_machines_web import keep_for_docs
from webutil import pair

pytestmark = pytest.mark.usefixtures("avahi_daemon")


def pending_on(bridge, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        waiting = json.loads(conftest.run_cli("devices", "pending", "--json", state_dir=bridge.state_dir,
                                              check=True).stdout)
        if waiting:
            return waiting[0]
        time.sleep(0.2)
    raise AssertionError("no pairing waits on B")


def test_a_workstation_found_on_this_network_is_linked_with_its_code(web_bridge, bridge_factory, phone_factory):
    name = f"nearby-{uuid.uuid4().hex[:8]}"
    b = bridge_factory("b-state", args=["--mdns-name", name, "--confirm-pairing"], mdns=True)
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    for phone in (light, dark):
        pair(phone, web_bridge, scopes="all")
        phone.button("Machines").click()
        phone.button("Find on this network").click()
    page = light.page
    found = page.locator(".nearby-pick", has_text=name)  # other bridges on this loopback avahi may show too
    expect(found).to_contain_text(f"127.0.0.1:{b.port}", timeout=30_000)
    expect(dark.page.locator(".nearby-pick", has_text=name)).to_be_visible(timeout=30_000)
    assert serious(page) == []
    light.shot("machines-nearby-light")
    dark.shot("machines-nearby-dark")

    found.click()
    code = page.get_by_label("Pairing code")
    expect(code).to_be_focused()
    code.fill("AAAAA-AAAAA")
    light.button("Add this workstation").click()
    expect(page.get_by_role("alert").filter(has_text="Not added: cannot pair with the other bridge")).to_be_visible(timeout=30_000)
    assert json.loads(conftest.run_cli("machines", "list", "--json", state_dir=web_bridge.state_dir, check=True).stdout) == []

    # The code B's `pair` shows: the link waits for B's owner, and the screen says so until it is allowed.
    real = json.loads(conftest.run_cli("pair", "--json", state_dir=b.state_dir, check=True).stdout)["code"]
    code.fill(f"{real[:5]}-{real[5:].lower()}")  # as a person types it
    page.get_by_label("Name for it (optional)").fill("Found box")
    light.button("Add this workstation").click()
    progress = page.get_by_role("status").filter(has_text="this waits until its owner allows it there")
    expect(progress).to_be_visible()
    expect(light.button("Find on this network")).to_be_disabled()
    waiting = pending_on(b)
    assert serious(page) == []
    light.shot("machines-linking-light")
    conftest.run_cli("devices", "allow", waiting["id"], "--check", waiting["check"], state_dir=b.state_dir, check=True)
    card = page.locator(".machine-card")
    expect(card.locator(".machine-name")).to_have_text("Found box", timeout=30_000)
    expect(card.locator(".machine-state-chip")).to_have_text("Online")
    expect(progress).to_be_hidden()
    expect(page.locator(".nearby-pick")).to_have_count(0)
    linked = json.loads(conftest.run_cli("machines", "list", "--json", state_dir=web_bridge.state_dir, check=True).stdout)
    assert [(m["name"], m["state"]) for m in linked] == [("Found box", "online")]
    for p in (light, dark):
        assert not p.errors and not p.csp_violations() and not p.dialogs, (p.errors, p.dialogs)
    keep_for_docs("machines-nearby-light", "machines-nearby-dark")
