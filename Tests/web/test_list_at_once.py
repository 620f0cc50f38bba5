"""Issue 36 item 2 (P10): a page load shows the thread list as this phone last saw it at once, marked as
refreshing, while the connection and the live list come; the live list then replaces it (a thread deleted
meanwhile leaves, the mark goes). The bridge's answers are held back in the page's WebSocket (Playwright's
routeWebSocket) so the moment between the two can be looked at. Cost: ~10 s."""
from playwright.sync_api import expect

from test_codex import request
from webutil import base_url, pair, run_async, start_thread, thread_id_of
from wsutil import hello


async def delete_thread(bridge, thread_id):
    ws, _ = await hello(bridge)
    assert (await request(ws, "deleteThread", threadId=thread_id))["kind"] != "error"
    await ws.close()


def test_the_list_as_last_seen_shows_at_once_and_the_live_one_replaces_it(web_bridge, model, phone):
    model.queue({"kind": "message", "text": "first answer"}, {"kind": "message", "text": "second answer"})
    page = phone.page
    pair(phone, web_bridge)
    start_thread(phone, "first thread")
    expect(page.locator(".msg.agent")).to_have_text("first answer")
    first_id = thread_id_of(page)
    page.goto(base_url(web_bridge))
    start_thread(phone, "second thread")
    expect(page.locator(".msg.agent")).to_have_text("second answer")
    page.goto(base_url(web_bridge))
    rows = page.locator(".thread-row")
    expect(rows).to_have_count(2)
    expect(page.locator(".list-refreshing")).to_be_hidden()

    # The next load: the bridge's frames are held in the page's socket until released.
    held, sockets, released = [], [], []

    def route(ws):
        server = ws.connect_to_server()
        server.on_message(lambda message: ws.send(message) if released else held.append(message))
        sockets.append(ws)

    page.route_web_socket(lambda url: True, route)
    run_async(delete_thread(web_bridge, first_id))
    page.reload()
    expect(rows).to_have_count(2)  # before any answer: the list as last seen
    expect(page.locator(".list-refreshing")).to_have_text("Last known list: refreshing…")
    expect(phone.status()).not_to_have_text("Connected")
    phone.shot("list-as-last-seen-light")
    for _ in range(50):  # the helloAck, held
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the bridge answered nothing"
    page.wait_for_timeout(300)
    expect(rows).to_have_count(2)
    # Released: the live list comes without the thread deleted meanwhile, and the mark goes.
    released.append(True)
    for message in held:
        sockets[-1].send(message)
    expect(phone.status()).to_have_text("Connected")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("second thread")
    expect(page.locator(".list-refreshing")).to_be_hidden()
    assert not phone.errors, phone.errors
