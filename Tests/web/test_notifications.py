"""Issue 14 in the real browser: "Notify me" subscribes and registers with the bridge, the service worker turns
a real push event (Chrome DevTools Protocol ServiceWorker.deliverPushMessage) into a notification with Approve
and Decline, and its Approve resolves the approval for every client. On an iPhone outside the Home Screen the
app explains what iOS needs instead."""
import json
import sys
import time

from playwright.sync_api import expect

import conftest as _conftest
from webutil import base_url, pair, pairing_url, run_async

sys.path.insert(0, str(_conftest.INTEGRATION))
from push_service import PushService, Subscriber  # noqa: E402
from test_codex import frames, request  # noqa: E402
from wsutil import hello  # noqa: E402

ANDROID_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/124.0.0.0 Mobile Safari/537.36")

# The browser's own push service (FCM) is not reachable from a test machine: subscribe() is replaced by one that
# returns a subscription at the test's push service, with keys the test holds. Everything else is real.
FAKE_SUBSCRIBE = """
(() => {
  const make = (sub) => ({ endpoint: sub.endpoint, options: {}, toJSON: () => sub,
                           unsubscribe: async () => { localStorage.removeItem('__testSubscription'); return true; } });
  PushManager.prototype.subscribe = async function () {
    localStorage.setItem('__testSubscription', JSON.stringify(window.__testSubscription));
    return make(window.__testSubscription);
  };
  PushManager.prototype.getSubscription = async function () {
    const saved = localStorage.getItem('__testSubscription');
    return saved ? make(JSON.parse(saved)) : null;
  };
})();
"""


def android_phone(browser, scheme="light"):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2, user_agent=ANDROID_UA,
        color_scheme=scheme, service_workers="allow", permissions=["notifications"])
    context.add_init_script(FAKE_SUBSCRIBE)
    return context, context.new_page()


def test_notify_me_push_notification_and_approve_from_it(web_bridge_factory, model, workspace, browser):
    service = PushService().start()
    subscriber = Subscriber()
    bridge = web_bridge_factory(extra=("--push-delay", "1s", "--allow-push-host", "127.0.0.1"))
    context, page = android_phone(browser)
    try:
        page.goto(pairing_url(bridge))
        expect(page.get_by_role("status")).to_have_text("Connected")
        page.evaluate("navigator.serviceWorker.ready")
        page.evaluate("(s) => { window.__testSubscription = s; }", subscriber.subscription(service.endpoint("browser")))
        notify = page.get_by_role("button", name="Notify me", exact=True)
        expect(notify).to_be_visible()
        page.screenshot(path=str(_screenshot("notify-me-light")))
        notify.click()
        expect(page.get_by_role("button", name="Turn off", exact=True)).to_be_visible()
        expect(page.get_by_text("Notifications are on")).to_be_visible()

        # The page goes away (the phone is in the pocket): the push comes at once.
        page.goto("about:blank")

        async def ask():
            ws, _ = await hello(bridge)
            model.queue({"kind": "exec", "cmd": "touch from-notification.txt"}, {"kind": "message", "text": "done"})
            started = await request(ws, "startThread", cwd=str(workspace), prompt="touch", approvalPolicy="untrusted")
            async for msg in frames(ws):
                if msg["kind"] == "approvalRequest":
                    await ws.close()
                    return started["threadId"], msg

        thread_id, approval = run_async(ask())
        [push] = service.wait(1, "/push/browser", timeout=30)
        payload = subscriber.decrypt(push["body"])
        assert payload["approvalId"] == approval["approvalId"]

        # A real push event into the real service worker. Opening the app again registers the same subscription
        # again (same id: one row per endpoint) and still shows notifications as on.
        page.goto(base_url(bridge))
        expect(page.get_by_role("status")).to_have_text("Connected")
        expect(page.get_by_role("button", name="Turn off", exact=True)).to_be_visible()
        deadline = time.monotonic() + 10
        while bridge.log().count("Push subscription saved") < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert bridge.log().count("Push subscription saved") == 2, bridge.log()
        import sqlite3
        with sqlite3.connect(bridge.state_dir / "bridge.sqlite") as db:
            assert db.execute("SELECT count(*) FROM pushSubscription").fetchone()[0] == 1
        cdp = context.new_cdp_session(page)
        registrations = []
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
        cdp.send("ServiceWorker.enable")
        deadline = time.monotonic() + 10
        while not registrations and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        origin = base_url(bridge).rstrip("/")
        registration_id = next(r["registrationId"] for r in registrations if r["scopeURL"].startswith(origin))
        cdp.send("ServiceWorker.deliverPushMessage",
                 {"origin": origin, "registrationId": registration_id, "data": json.dumps(payload)})
        notes = None
        for _ in range(50):
            notes = page.evaluate("""async () => (await (await navigator.serviceWorker.ready).getNotifications())
                .map(n => ({title: n.title, body: n.body, tag: n.tag, actions: n.actions.map(a => [a.action, a.title])}))""")
            if notes:
                break
            page.wait_for_timeout(100)
        assert notes and notes[0]["title"] == "Approval needed", notes
        assert notes[0]["tag"] == f"approval-{approval['approvalId']}"
        assert notes[0]["actions"] == [["accept", "Approve"], ["decline", "Decline"]]
        assert "touch from-notification.txt" in notes[0]["body"]

        # Approve, as the notification's button does it (the service worker's own handler).
        worker = next(w for w in context.service_workers if w.url.startswith(origin))
        worker.evaluate("""async (tag) => {
            const [n] = await self.registration.getNotifications({ tag });
            await handleNotificationClick(n, 'accept');
        }""", notes[0]["tag"])

        async def outcome():
            ws, _ = await hello(bridge)
            answer = await request(ws, "readThread", threadId=thread_id)
            await ws.close()
            return answer

        deadline = time.monotonic() + 30
        while not (workspace / "from-notification.txt").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (workspace / "from-notification.txt").exists()
        assert run_async(outcome())["kind"] == "thread"
        assert "resolved" in [subscriber.decrypt(p["body"])["type"] for p in service.wait(2, "/push/browser")]
        remaining = page.evaluate("async () => (await (await navigator.serviceWorker.ready).getNotifications()).length")
        assert remaining == 0

        # The same push again (a stale notification): its Approve is refused, and the notification says why.
        cdp.send("ServiceWorker.deliverPushMessage",
                 {"origin": origin, "registrationId": registration_id, "data": json.dumps(payload)})
        for _ in range(50):
            if page.evaluate("async () => (await (await navigator.serviceWorker.ready).getNotifications()).length"):
                break
            page.wait_for_timeout(100)
        worker.evaluate("""async (tag) => {
            const [n] = await self.registration.getNotifications({ tag });
            await handleNotificationClick(n, 'accept');
        }""", notes[0]["tag"])
        refused = page.evaluate("""async () => (await (await navigator.serviceWorker.ready).getNotifications())
            .map(n => ({title: n.title, body: n.body, actions: n.actions.length}))""")
        assert refused == [{"title": "Could not answer the approval", "body": refused[0]["body"], "actions": 0}], refused
        assert "used, expired" in refused[0]["body"]
    finally:
        context.close()
        service.stop()


def test_iphone_safari_is_told_to_add_to_home_screen(web_bridge, phone):
    pair(phone, web_bridge)
    expect(phone.page.get_by_text("add this app to the Home Screen")).to_be_visible()
    assert phone.page.get_by_role("button", name="Notify me", exact=True).count() == 0
    phone.shot("notify-iphone-light")
    # The hint can be put away, and stays away.
    phone.button("Hide").click()
    expect(phone.page.get_by_text("add this app to the Home Screen")).to_be_hidden()
    phone.page.reload()
    expect(phone.button("New thread")).to_be_visible()
    expect(phone.page.get_by_text("add this app to the Home Screen")).to_be_hidden()


def test_notify_me_dark(web_bridge, browser):
    context, page = android_phone(browser, scheme="dark")
    try:
        page.goto(pairing_url(web_bridge))
        expect(page.get_by_role("button", name="Notify me", exact=True)).to_be_visible()
        page.screenshot(path=str(_screenshot("notify-me-dark")))
    finally:
        context.close()


def _screenshot(name):
    _conftest.ARTIFACTS.mkdir(exist_ok=True)
    return _conftest.ARTIFACTS / f"{name}.png"
