"""Issue 28, a real LAN: Chromium on the "phone" side of a veth pair (Tests/integration/netns.py), the bridge,
codex and the scripted model on the workstation's side, nothing on loopback between them.

The phone opens the QR's web URL (made by `pair --json` on the workstation: the LAN address), pairs, and a turn
streams; the phone's link goes down for 4 s in the middle of the answer (`ip link set lan1 down`, then up) while
the model keeps streaming. Twice: once the socket survives (TCP retransmits), once the workstation drops its end
meanwhile. Each time the page is up to date within seconds of the link coming back, every word shown once (issue 28
item 6: it used to stay "Offline" for minutes).
"""
import json
import re
import time

import pytest
from playwright.sync_api import expect

from codex_fixture import bridge_codex_args, codex_bin
from conftest import BIN, Bridge
from netns import Lan
from webutil import CHROMIUM, LOOPBACK_ONLY, Phone, WebModel, bridge_env, start_thread

import conftest as _conftest

pytestmark = pytest.mark.timeout(120)  # a hang is a failure with a traceback (fixtures still clean up)

WORDS = [f"w{i:02d} " for i in range(50)]
OUTAGE_SECONDS = 4


@pytest.fixture
def lan(tmp_path):
    with Lan(tmp_path / "lan") as lan:
        yield lan


@pytest.fixture
def lan_model(lan):
    """The scripted model, listening on the workstation namespace's loopback (where codex runs)."""
    with lan.inside(lan.workstation):
        model = WebModel().start()
    yield model
    model.stop()


@pytest.fixture
def lan_bridge(lan, lan_model, codex_home, workspace, tmp_path):
    binary = lan.wrapper(lan.workstation, BIN, "serve-in-workstation")
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(lan_model.port)]
    bridge = Bridge(tmp_path / "lan-state", args=args, env=bridge_env(codex_home), listen="0.0.0.0:0", binary=binary)
    bridge.start()
    yield bridge
    try:
        bridge.stop(timeout=5)
    except Exception:
        pass


@pytest.fixture
def lan_browser(lan, browser):
    """Debian's Chromium started inside the phone's namespace (Playwright talks to it over a pipe)."""
    executable = lan.wrapper(lan.phone, CHROMIUM, "chromium-in-phone")
    b = browser.browser_type.launch(executable_path=str(executable),
                                    args=["--no-sandbox", "--disable-background-networking", "--disable-component-update"])
    yield b
    b.close()


VISIBILITY = """() => { for (const [name, value] of [['visibilityState', '%s'], ['hidden', '%s' === 'hidden']])
    Object.defineProperty(document, name, { configurable: true, get: () => value });
  document.dispatchEvent(new Event('visibilitychange')); }"""


def lan_phone(browser, lan, bridge) -> Phone:
    """A phone context whose requests may go to the bridge's LAN origin and nowhere else."""
    phone = Phone(browser)
    phone.context.unroute(LOOPBACK_ONLY)
    origin = f"http://{lan.workstation_address}:{bridge.port}/"
    phone.context.route(re.compile(rf"^(?!(https?|wss?)://{re.escape(lan.workstation_address)}:{bridge.port}/).*"),
                        lambda route: route.abort())
    phone.origin = origin
    return phone


def outage(lan, model, hold, forget=False):
    """The phone's link down for OUTAGE_SECONDS while the model streams on to its next hold point; with `forget`,
    the workstation also drops its end of every connection to the phone meanwhile (`ss -K`: what a NAT, an access
    point or a heartbeat timeout does), so the page's socket is dead when the link returns."""
    lan.link(lan.phone, up=False)
    down_at = time.monotonic()
    if forget:
        lan.run(lan.workstation, "ss", "-K", "dst", lan.phone_address)
    model.open_gate(hold - 1)
    model.wait_held(hold)
    time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - down_at)))  # the outage itself: 4 s
    lan.link(lan.phone, up=True)
    return time.monotonic()


def test_a_phone_on_the_lan_pairs_streams_and_comes_back_after_its_link_drops(lan, lan_model, lan_bridge, lan_browser):
    lan_model.queue({"kind": "slow", "deltas": WORDS, "delay": 0.02, "hold_after": [10, 20, 30, 40]})
    info = json.loads(lan.run(lan.workstation, BIN, "pair", "--json", "--state-dir", lan_bridge.state_dir).stdout)
    url = info["webUrl"]
    assert url.startswith(f"http://{lan.workstation_address}:{lan_bridge.port}/#pair=v1&"), url

    phone = lan_phone(lan_browser, lan, lan_bridge)
    page = phone.page
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(url)
    expect(phone.status()).to_have_text("Connected")
    assert page.url.startswith(phone.origin) and "#pair" not in page.url
    assert sockets and all(s.startswith(f"ws://{lan.workstation_address}:{lan_bridge.port}/") for s in sockets), sockets
    # Plain http on a LAN address is no secure context: the app works without a service worker and says so.
    assert page.evaluate("window.isSecureContext") is False
    expect(page.get_by_text("not encrypted")).to_be_visible()
    start_thread(phone, "count on the LAN")
    lan_model.wait_held(0)
    agent = page.locator(".msg.agent")
    expect(agent).to_have_text("".join(WORDS[:10]).strip())

    # 1. The link drops for 4 s and comes back; TCP carries the same socket on. The page must not stay "Offline".
    up_at = outage(lan, lan_model, hold=1)
    expect(agent).to_have_text("".join(WORDS[:20]).strip(), timeout=30_000)
    expect(phone.status()).to_have_text("Connected", timeout=30_000)
    first_back = time.monotonic() - up_at
    opened = len(sockets)

    # 2. Again, and the workstation forgets the connection meanwhile: the page must notice and reconnect, resuming
    #    from its last seq.
    up_at = outage(lan, lan_model, hold=2, forget=True)
    expect(agent).to_have_text("".join(WORDS[:30]).strip(), timeout=30_000)
    expect(phone.status()).to_have_text("Connected", timeout=30_000)
    second_back = time.monotonic() - up_at
    assert len(sockets) > opened, sockets

    # 3. The phone sleeps (issue 36 item 3): the page hidden and frozen (no timer runs) while the link drops, the
    #    workstation forgets the connection and the turn streams on; the link is back while it still sleeps; then it
    #    is shown. Measured from being shown.
    cdp = phone.context.new_cdp_session(page)
    page.evaluate(VISIBILITY % ("hidden", "hidden"))
    cdp.send("Page.setWebLifecycleState", {"state": "frozen"})
    outage(lan, lan_model, hold=3, forget=True)
    time.sleep(1)
    cdp.send("Page.setWebLifecycleState", {"state": "active"})
    shown_at = time.monotonic()
    page.evaluate(VISIBILITY % ("visible", "visible"))
    expect(agent).to_have_text("".join(WORDS[:40]).strip(), timeout=30_000)
    expect(phone.status()).to_have_text("Connected", timeout=30_000)
    woke_back = time.monotonic() - shown_at

    lan_model.open_gate(3)
    expect(agent).to_have_text("".join(WORDS).strip())
    expect(agent).to_have_count(1)
    expect(page.locator(".msg.user")).to_have_text(["count on the LAN"])
    print(f"LAN: up to date {first_back:.1f} s after the first outage ({opened} WebSocket(s) so far), "
          f"{second_back:.1f} s after the second, {woke_back:.1f} s after waking ({len(sockets)} in all)")
    # Issue 36 item 3: back within 3 s of the network's return (of being shown, for the phone that slept); seen
    # 0.5-0.9 s here with the machine's 2 cores busy. Every event once: the text above is exact and whole.
    assert first_back < 3 and second_back < 3 and woke_back < 3, (first_back, second_back, woke_back)
    phone.shot("lan-after-link-drops")
    assert not phone.errors and not phone.csp_violations()
