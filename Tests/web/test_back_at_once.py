"""Issue 46 item 1, back at once: after a workstation restart the phone is connected within a second of the bridge
answering again (P11), a linked machine's return shows on the phone within a second of that machine answering
again, every offline state has a Try now, and a message to an offline linked machine waits and goes, in order,
when it is back (as one to an offline home does).

"Answering again" is the first `/healthz` answer a poller in the test sees (every 20 ms); "connected" and "online"
are stamped by the page itself (a MutationObserver on the status and on the machine filter), on the same clock."""
import json
import threading
import time
import urllib.request

import pytest
from playwright.sync_api import expect

import conftest
from test_fleet_web import link, machine_b  # noqa: F401 (fixture)
from webutil import free_port, pair

# Away this long, twice: a backoff that grows would be waiting a while at one of them at least.
AWAY_SECONDS = (4, 9)


class Answering:
    """Polls http://127.0.0.1:PORT/healthz every 20 ms from start(); `at` is the wall-clock time of its first
    answer."""

    def __init__(self, port):
        self.url = f"http://127.0.0.1:{port}/healthz"
        self.at = None
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def _run(self):
        while not self.stopped.is_set():
            try:
                with urllib.request.urlopen(self.url, timeout=0.5) as answer:
                    if answer.status == 200:
                        self.at = time.time()
                        return
            except OSError:
                pass
            self.stopped.wait(0.02)

    def wait(self, timeout=30):
        self.thread.join(timeout)
        self.stopped.set()
        assert self.at, "the bridge never answered /healthz"
        return self.at


# The page stamps (Date.now(), seconds) when its status says Connected and when a machine's filter toggle stops saying
# offline.
STAMPS = """() => {
  window.__connectedAt = []; window.__onlineAt = {};
  const status = document.querySelector('[role=status]');
  new MutationObserver(() => { if (status.textContent.trim() === 'Connected') window.__connectedAt.push(Date.now() / 1000); })
    .observe(status, { subtree: true, characterData: true, childList: true });
  new MutationObserver(() => {
    for (const b of document.querySelectorAll('.machine-toggle')) {
      const name = b.firstChild && b.firstChild.textContent;
      if (name && !b.classList.contains('offline') && !(name in window.__onlineAt)) window.__onlineAt[name] = Date.now() / 1000;
      if (name && b.classList.contains('offline')) delete window.__onlineAt[name];
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
}"""


def test_back_within_a_second_of_a_bridge_restart(web_bridge_factory, phone):
    bridge = web_bridge_factory(listen=f"127.0.0.1:{free_port()}")
    page = phone.page
    pair(phone, bridge)
    page.evaluate(STAMPS)
    delays = []
    for away in AWAY_SECONDS:
        bridge.stop()
        expect(phone.status()).not_to_have_text("Connected")
        page.wait_for_timeout(away * 1000)
        answering = Answering(bridge.port).start()
        bridge.start()
        back = answering.wait()
        expect(phone.status()).to_have_text("Connected", timeout=30_000)
        delays.append(page.evaluate("window.__connectedAt.at(-1)") - back)
    print(f"P11 (bridge restart): connected {', '.join(f'{d:.2f}' for d in delays)} s after the bridge answered again")
    assert max(delays) <= 1.0, delays
    assert not phone.errors, phone.errors


def test_a_linked_machine_is_back_within_a_second(web_bridge, machine_b, phone):  # noqa: F811
    b, _, _ = machine_b
    b.stop()
    b.listen = f"127.0.0.1:{b.port}"  # the same address after its restart (the link knows that one)
    b.start()
    linked = link(web_bridge, b, "Build box")
    page = phone.page
    pair(phone, web_bridge)
    toggle = page.locator(".machine-toggle", has_text="Build box")
    expect(toggle).not_to_have_class("machine-toggle offline")
    page.evaluate(STAMPS)
    delays = []
    for away in AWAY_SECONDS:
        b.stop()
        expect(toggle).to_have_class("machine-toggle offline")
        page.wait_for_timeout(away * 1000)
        answering = Answering(b.port).start()
        b.start()
        back = answering.wait()
        expect(toggle).not_to_have_class("machine-toggle offline", timeout=30_000)
        delays.append(page.evaluate("window.__onlineAt['Build box']") - back)
    print(f"linked machine restart: online on the phone {', '.join(f'{d:.2f}' for d in delays)} s after it answered again")
    assert max(delays) <= 1.0, delays
    assert linked["id"]
    assert not phone.errors, phone.errors
