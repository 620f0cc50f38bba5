"""Issue 33, the admin's Machines screen: two real bridges on 127.0.0.1 (A, the phone's home, and B with a thread
of its own), the phone (Chromium, 390×844) paired with A with every scope. A bad pairing link says why; "Find on
this network" finds nothing here (no avahi: the empty state says so); B's pairing link (`pair --json` on B) is
pasted with a name holding markup (shown as text) and B comes online; renamed, the thread list shows B's thread
under the new name; revoked on B, the card says what that means; removed after asking, B's thread leaves the list
and A's `machines list` is empty. A phone without `admin` sees no entry. axe, screenshots light and dark.
Cost: ~20 s."""
import json
import os
import shutil

from playwright.sync_api import expect

import conftest
from test_fleet_web import B_NAME, machine_b, seed_thread, serious  # noqa: F401 (fixture)
from webutil import pair, run_async


def keep_for_docs(*names):
    """WEB_UPDATE_DOCS=1 pytest test_machines_web.py: the screenshots become docs/web-*.png (docs/web-app.md)."""
    if os.environ.get("WEB_UPDATE_DOCS"):
        for name in names:
            shutil.copyfile(conftest.ARTIFACTS / f"{name}.png", conftest.ROOT / "docs" / f"web-{name}.png")


def without_toasts(phone):
    """The toasts (4 s each) put away before a screenshot for the docs."""
    phone.page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.remove())")


def machines(bridge):
    return json.loads(conftest.run_cli("machines", "list", "--json", state_dir=bridge.state_dir, check=True).stdout)


def test_an_admin_links_renames_and_removes_a_workstation(web_bridge, model, machine_b, phone_factory):
    b, b_model, b_ws = machine_b
    b_model.queue({"kind": "message", "text": "done on b"})
    run_async(seed_thread(b, "a thread on b", b_ws))
    light, dark, observer = phone_factory(), phone_factory(color_scheme="dark"), phone_factory()
    pair(light, web_bridge, scopes="all")
    pair(dark, web_bridge, scopes="all")
    pair(observer, web_bridge)  # the standard scopes: no admin

    # Without admin: no entry, and the screen itself says why.
    expect(observer.button("Devices")).to_be_hidden()
    expect(observer.button("Machines")).to_be_hidden()
    observer.page.goto(observer.page.url.split("#")[0] + "#/machines")
    expect(observer.page.get_by_text("This device may not manage machines (it needs the admin scope).")).to_be_visible()
    expect(observer.page.get_by_role("heading", name="Add a workstation")).to_be_hidden()

    page = light.page
    light.button("Machines").click()
    expect(page.get_by_role("heading", name="Machines")).to_be_visible()
    expect(page.get_by_text("No other workstation is linked yet.")).to_be_visible()
    # A bad link: refused by A, said plainly.
    page.get_by_label("Pairing link").fill("https://example.invalid/hello")
    light.button("Add workstation").click()
    expect(page.get_by_role("alert").filter(has_text="Not added: not a pairing URL")).to_be_visible()
    assert machines(web_bridge) == []
    # Nearby: nothing on this network (no avahi in this test).
    light.button("Find on this network").click()
    expect(page.get_by_text("No other workstation found on this network.", exact=False)).to_be_visible()
    light.shot("machines-nearby-empty-light", full_page=True)
    assert serious(page) == []

    # B's pairing link, pasted: B is linked and comes online, under the name given (markup shown as text).
    url = json.loads(conftest.run_cli("pair", "--json", "--advertise", "127.0.0.1", state_dir=b.state_dir,
                                      check=True).stdout)["url"]
    page.get_by_label("Pairing link").fill(url)
    page.get_by_label("Name (optional)").fill(B_NAME)
    light.button("Add workstation").click()
    card = page.locator(".machine-card")
    expect(card).to_have_count(1)
    expect(card.locator(".machine-name")).to_have_text(B_NAME)
    expect(card.locator(".machine-state-chip")).to_have_text("Online")
    expect(card.locator(".machine-address")).to_contain_text(f"127.0.0.1:{b.port}")
    expect(page.locator(".machines-main b")).to_have_count(0)
    expect(page.get_by_label("Pairing link")).to_have_value("")
    assert [m["name"] for m in machines(web_bridge)] == [B_NAME]
    dark.button("Machines").click()
    expect(dark.page.locator(".machine-card .machine-state-chip")).to_have_text("Online")  # seen by another phone
    assert serious(page) == []
    without_toasts(light)
    light.shot("machines-light", full_page=True)
    dark.shot("machines-dark", full_page=True)

    # Rename, in place: the thread list shows B's thread under the new name.
    card.get_by_role("button", name=f"Rename {B_NAME}").click()
    page.get_by_label("Name", exact=True).fill("x" * 65)
    expect(page.get_by_label("Name", exact=True)).to_have_value("x" * 64)  # at most 64 characters
    page.get_by_label("Name", exact=True).fill("Build server")
    light.shot("machines-rename-light")
    light.button("Save").click()
    expect(card.locator(".machine-name")).to_have_text("Build server")
    light.button("Back").click()
    on_b = page.locator(".thread-row", has_text="a thread on b")
    expect(on_b.locator(".chip.machine")).to_have_text("Build server")
    light.shot("machines-thread-list-light")

    # Revoked on B: the card says what it means and how to fix it.
    light.button("Machines").click()
    link_device = next(d for d in json.loads(conftest.run_cli("devices", "list", "--json", state_dir=b.state_dir,
                                                              check=True).stdout) if d["platform"] == "bridge")
    conftest.run_cli("devices", "revoke", link_device["id"], state_dir=b.state_dir, check=True)
    expect(card.locator(".machine-state-chip")).to_have_text("Revoked")
    expect(card.locator(".machine-state-note")).to_contain_text("link it again")
    expect(dark.page.locator(".machine-card .machine-state-chip")).to_have_text("Revoked")
    assert serious(page) == []
    without_toasts(light)
    light.shot("machines-revoked-light")
    dark.shot("machines-revoked-dark")

    # Remove asks first and says the other workstation still lists this bridge until it is revoked there.
    card.get_by_role("button", name="Remove Build server").click()
    confirm = card.get_by_role("group", name="Remove Build server?")
    expect(confirm).to_contain_text("still lists this bridge as a device until it is revoked there")
    light.shot("machines-remove-light")
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_be_hidden()
    assert len(machines(web_bridge)) == 1
    card.get_by_role("button", name="Remove Build server").click()
    confirm.get_by_role("button", name="Remove", exact=True).click()
    expect(page.get_by_text("No other workstation is linked yet.")).to_be_visible()
    expect(dark.page.get_by_text("No other workstation is linked yet.")).to_be_visible()
    assert machines(web_bridge) == []
    light.button("Back").click()
    expect(on_b).to_have_count(0)
    for p in (light, dark, observer):
        assert not p.errors and not p.csp_violations() and not p.dialogs, (p.errors, p.dialogs)
    keep_for_docs("machines-light", "machines-dark", "machines-revoked-light", "machines-revoked-dark")
