"""Issue 46 item 5, the first week: rough edges a new user met on a tour of the product, each in the real browser
(phone viewport) against the real codex and the scripted model."""
import re
import signal
import threading
import time

from playwright.sync_api import expect

from test_accessibility import Audit
from webutil import pair, start_thread


def start_untrusted(phone, prompt):
    """New thread → Use this folder → prompt, approval policy "untrusted" → Start."""
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill(prompt)
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    phone.button("Start").click()
    page.wait_for_url(re.compile(r"#/t/"))


def test_a_turn_waiting_on_an_approval_says_so_everywhere(web_bridge, model, phone):
    """The thread list said "Running" for a turn that waited on the person: it says "Waiting for your approval"
    there too, and nothing on the thread screen says Codex is working."""
    model.queue({"kind": "exec", "cmd": "printf 'hi\\n' > hello.txt"}, {"kind": "message", "text": "Wrote it."})
    page = phone.page
    pair(phone, web_bridge)
    start_untrusted(phone, "write hello")
    expect(page.locator(".approval")).to_contain_text("hello.txt")
    expect(page.locator(".turn-footer")).to_have_text("Waiting for your approval")
    expect(page.locator(".command .chip")).to_have_text("waiting for approval")
    shown = page.locator("body").inner_text().lower()  # what is on screen (hidden sheets left out)
    assert "working" not in shown and "running" not in shown, shown
    audit = Audit(phone)  # axe, and a screenshot light and dark
    audit("first-week-approval-thread")
    phone.button("Back").click()
    row = page.locator(".thread-row")
    expect(row.locator(".state")).to_have_text("Waiting for your approval")
    expect(row).not_to_contain_text("Running")
    audit("first-week-approval-list")
    assert not audit.found, audit.found
    row.click()
    phone.button("Approve").click()
    expect(page.locator(".msg.agent")).to_have_text("Wrote it.")
    phone.button("Back").click()
    expect(row.locator(".state")).to_have_text("Idle")
    assert not phone.errors


def test_the_restart_countdown_counts_down(web_bridge_factory, model, phone):
    """A turn running when the workstation stops shows the seconds Codex has left: the number goes down."""
    model.queue({"kind": "slow", "deltas": [f"w{i} " for i in range(8)], "delay": 0.01, "hold_after": [4]})
    bridge = web_bridge_factory(extra=("--shutdown-grace", "20s"))
    page = phone.page
    pair(phone, bridge)
    start_thread(phone, "count slowly")
    model.wait_held(0)
    stopper = threading.Thread(target=lambda: bridge.stop(sig=signal.SIGTERM, timeout=60), daemon=True)
    stopper.start()
    footer = page.locator(".turn-footer")
    expect(footer).to_contain_text("Codex has")
    first = int(re.search(r"(\d+) s", footer.inner_text()).group(1))
    assert 15 <= first <= 20, first
    time.sleep(3)
    later = int(re.search(r"(\d+) s", footer.inner_text()).group(1))
    assert first - 4 <= later <= first - 2, (first, later)
    phone.shot("first-week-countdown")
    model.open_gate(0)
    stopper.join(60)
    assert not phone.errors
