"""Issue 37 item 3 (the rest): while the workstation cannot be reached the page says "Workstation unreachable"
(not a red "Offline" that reads as the phone's own network), shows no spinner and no Stop for the turn it can no
longer follow, and a message typed meanwhile waits on screen, marked, until it is sent — exactly once. Cost: ~8 s."""
import re
import time

from playwright.sync_api import expect

from test_resilience import Proxy
from webutil import metric, pairing_url, start_thread, wait_until

WORDS = [f"w{i:02d} " for i in range(20)]


def test_unreachable_workstation_stops_the_spinner_and_keeps_a_message_waiting(web_bridge, model, phone_factory):
    model.queue({"kind": "slow", "deltas": WORDS, "delay": 0.01, "hold_after": [10]},
                {"kind": "message", "text": "got the second one"})
    proxy = Proxy(web_bridge.port)
    try:
        phone = phone_factory()
        page = phone.page
        page.goto(re.sub(r"^http://127\.0\.0\.1:\d+/", f"http://127.0.0.1:{proxy.port}/", pairing_url(web_bridge)))
        expect(phone.status()).to_have_text("Connected")
        start_thread(phone, "first")
        model.wait_held(0)
        expect(page.locator(".turn-footer .spinner")).to_have_count(1)
        expect(phone.button("Stop")).to_be_visible()
        proxy.blocked = True
        proxy.cut()
        expect(phone.status()).to_have_text("Workstation unreachable", timeout=30_000)
        # The indicator is not the red of a failure, and the turn shows no spinner nor Stop it cannot honour.
        dot = page.evaluate("getComputedStyle(document.querySelector('[role=status] .dot')).backgroundColor")
        danger = page.evaluate("""(() => { const e = document.createElement('span'); e.style.color = 'var(--danger)';
            document.body.append(e); const c = getComputedStyle(e).color; e.remove(); return c; })()""")
        assert dot != danger, (dot, danger)
        expect(page.locator(".turn-footer .spinner")).to_have_count(0)
        expect(page.locator(".turn-footer")).to_contain_text("Workstation unreachable")
        expect(phone.button("Stop")).to_have_count(0)
        # Meanwhile the turn ends on the workstation, and a message is typed and sent: it waits, marked.
        model.open_gate(0)
        wait_until(lambda: metric(web_bridge, "codex_bridge_threads_running") == 0, "the turn's end on the workstation")
        page.get_by_label("Message").fill("second")
        phone.button("Send").click()
        waiting = page.locator(".pending-msg")
        expect(waiting).to_have_count(1)
        expect(waiting).to_contain_text("second")
        expect(waiting).to_contain_text("Waiting for the workstation")
        expect(page.get_by_label("Message")).to_have_value("")
        phone.shot("unreachable-pending-light")
        page.emulate_media(color_scheme="dark")
        phone.shot("unreachable-pending-dark")
        page.emulate_media(color_scheme="light")
        proxy.blocked = False
        page.evaluate("dispatchEvent(new Event('online'))")
        expect(phone.status()).to_have_text("Connected", timeout=30_000)
        # Sent once: the first turn's whole answer, then the second message and its answer; nothing waits.
        expect(page.locator(".msg.agent")).to_have_text(["".join(WORDS).strip(), "got the second one"], timeout=30_000)
        expect(page.locator(".msg.user")).to_have_text(["first", "second"])
        expect(waiting).to_have_count(0)
        expect(page.locator(".turn-end")).to_have_count(0)
        page.wait_for_timeout(1500)  # a duplicate would have started a third turn by now
        expect(page.locator(".msg.user")).to_have_text(["first", "second"])
        assert not phone.errors
    finally:
        proxy.close()
