"""Issue 37 item 5 in the browser (phone viewport, the real bridge): devices are told apart. A phone pairs with a name
from what its browser tells (platform, model where known) or the one the person types on the pairing screen; the
Devices screen marks this phone, asks before revoking it, and prints nothing stray. Screenshots in light and dark go
to the artifacts. Cost: ~12 s."""
import json

from playwright.sync_api import expect

from webutil import pair

import conftest

UA = {
    "iphone": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    "ipad": "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    "crios": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1",
    "pixel": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
    "reduced": "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
    "samsung_tab": "Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Safari/537.36",
    "firefox_android": "Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0",
    "mac": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
    "edge": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
    "linux_firefox": "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
    "webkitgtk": "Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15",
}

EXPECTED = [
    ("iphone", {}, "Safari on iPhone"),
    ("ipad", {}, "Safari on iPad"),
    ("mac", {"touch": 5}, "Safari on iPad"),  # iPadOS asks for the desktop site: a Mac with a touch screen
    ("crios", {}, "Chrome on iPhone"),
    ("pixel", {}, "Chrome on Pixel 8"),
    ("reduced", {}, "Chrome on Android phone"),  # the reduced user agent hides the model ("K")...
    ("reduced", {"platform": "Android", "model": "SM-S918B", "mobile": True}, "Chrome on SM-S918B"),  # ...client hints tell it
    ("samsung_tab", {}, "Samsung Internet on SM-X710"),
    ("firefox_android", {}, "Firefox on Android phone"),
    ("mac", {}, "Safari on Mac"),
    ("edge", {"platform": "Windows", "brands": [{"brand": "Microsoft Edge"}]}, "Edge on Windows"),
    ("linux_firefox", {}, "Firefox on Linux"),
    ("webkitgtk", {}, "WebKit on Linux"),  # Safari exists only on Apple's systems
]


def devices(bridge):
    return json.loads(conftest.run_cli("devices", "list", "--json", state_dir=bridge.state_dir, check=True).stdout)


def clean(*phones):
    for phone in phones:
        assert not phone.errors and not phone.csp_violations() and not phone.dialogs, (phone.errors, phone.dialogs)


def test_a_device_is_named_from_what_the_browser_tells(web_bridge, phone):
    phone.page.goto(f"http://127.0.0.1:{web_bridge.port}/")
    names = phone.page.evaluate("""async ([uas, cases]) => { const { deviceName } = await import('./pairing.js');
        return cases.map(([ua, hints]) => deviceName(uas[ua], hints)); }""", [UA, [[c[0], c[1]] for c in EXPECTED]])
    assert list(zip([c[0] for c in EXPECTED], names)) == [(c[0], c[2]) for c in EXPECTED]
    # The phone paired from the QR is named so (an iPhone's user agent in this browser).
    pair(phone, web_bridge)
    assert [(d["name"], d["platform"]) for d in devices(web_bridge)] == [("Safari on iPhone", "web")]
    clean(phone)


def test_a_typed_code_pairs_with_the_name_the_person_gives(web_bridge, phone_factory):
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    for phone in (light, dark):
        phone.page.goto(f"http://127.0.0.1:{web_bridge.port}/")
        expect(phone.page.get_by_label("Name this phone")).to_have_value("Safari on iPhone")
    light.shot("pairing-name-light")
    dark.shot("pairing-name-dark")
    code = json.loads(conftest.run_cli("pair", "--json", state_dir=web_bridge.state_dir, check=True).stdout)["code"]
    page = light.page
    page.get_by_label("Pairing code").fill(code)
    page.get_by_label("Name this phone").fill("Ana's <i>phone</i>")
    light.button("Pair").click()
    expect(light.button("New thread")).to_be_visible()
    assert [d["name"] for d in devices(web_bridge)] == ["Ana's <i>phone</i>"]
    clean(light, dark)


def test_the_devices_screen_marks_this_phone_and_asks_before_revoking_it(web_bridge, phone_factory):
    light, dark, other = phone_factory(), phone_factory(color_scheme="dark"), phone_factory()
    pair(light, web_bridge, scopes="all")
    pair(other, web_bridge)
    pair(dark, web_bridge, scopes="all")
    page = light.page
    light.button("Devices").click()
    cards = page.locator(".device-card")
    expect(cards).to_have_count(3)
    expect(page.locator(".devices-main")).not_to_contain_text("null")
    mine = cards.filter(has=page.locator(".chip", has_text="This phone"))
    expect(mine).to_have_count(1)
    expect(cards.first).to_contain_text("This phone")  # first: this phone is the one a person looks for
    dark.button("Devices").click()
    expect(dark.page.locator(".device-card")).to_have_count(3)
    light.shot("devices-light", full_page=True)
    dark.shot("devices-dark", full_page=True)
    # Revoking this phone asks first, and says what it means.
    mine.get_by_role("button", name="Revoke").click()
    confirm = mine.get_by_role("group", name="Revoke this phone?")
    expect(confirm).to_contain_text("needs a new pairing code")
    light.shot("devices-revoke-self-light")
    dark_mine = dark.page.locator(".device-card").filter(has=dark.page.locator(".chip", has_text="This phone"))
    dark_mine.get_by_role("button", name="Revoke").click()
    expect(dark_mine.get_by_role("group", name="Revoke this phone?")).to_be_visible()
    dark.shot("devices-revoke-self-dark")
    dark_mine.get_by_role("button", name="Cancel").click()
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_be_hidden()
    assert not any(d["revoked"] for d in devices(web_bridge))
    # Another device's Revoke is the usual tap-twice.
    others = cards.filter(has_not=page.locator(".chip", has_text="This phone"))
    expect(others).to_have_count(2)
    mine.get_by_role("button", name="Revoke").click()
    mine.get_by_role("group", name="Revoke this phone?").get_by_role("button", name="Revoke this phone").click()
    expect(page.get_by_text("This phone was unpaired")).to_be_visible()
    assert [d["revoked"] for d in devices(web_bridge)].count(True) == 1
    clean(light, dark, other)


def test_a_device_is_renamed_on_the_devices_screen(web_bridge, phone_factory):
    """Rename on the Devices screen (admin): a bad name is refused with the bridge's reason under the field; a good
    one shows at once and in `devices list`; `devices rename` on the workstation shows after a reload. Cost: ~6 s."""
    light, other = phone_factory(), phone_factory()
    pair(light, web_bridge, scopes="all")
    pair(other, web_bridge)
    page = light.page
    light.button("Devices").click()
    cards = page.locator(".device-card")
    expect(cards).to_have_count(2)
    them = cards.nth(1)
    them_id = them.get_attribute("data-device-id")
    them.get_by_role("button", name="Rename Safari on iPhone").click()
    field = them.get_by_role("textbox", name="Name")
    expect(field).to_be_focused()
    field.fill("   ")
    them.get_by_role("button", name="Save").click()
    expect(them.get_by_role("alert")).to_contain_text("Not renamed: a device name must be 1 to 64 characters")
    light.shot("devices-rename-error-light")
    field.fill("Kitchen tablet")
    them.get_by_role("button", name="Save").click()
    expect(page.locator(f".device-card[data-device-id='{them_id}'] .device-name")).to_have_text("Kitchen tablet")
    assert {d["id"]: d["name"] for d in devices(web_bridge)}[them_id] == "Kitchen tablet"
    # From the workstation: this phone's own name.
    mine = json.loads(light.page.evaluate("localStorage.getItem('codex-bridge/v1')"))
    mine_id = mine["bridges"][mine["current"]]["deviceId"]
    conftest.run_cli("devices", "rename", mine_id, "Ana's phone", state_dir=web_bridge.state_dir, check=True)
    page.reload()
    expect(page.locator(f".device-card[data-device-id='{mine_id}'] .device-name")).to_have_text("Ana's phone")
    expect(page.locator(".activity")).to_contain_text("Renamed a device")
    page.emulate_media(color_scheme="dark")
    page.locator(f".device-card[data-device-id='{them_id}']").get_by_role("button", name="Rename Kitchen tablet").click()
    light.shot("devices-rename-dark")
    from test_accessibility import Audit
    audit = Audit(light)
    audit("devices-rename")
    assert not audit.found, audit.found
    clean(light, other)
