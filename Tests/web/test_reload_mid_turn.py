"""Issue 37 item 2: a reload in the middle of a streamed answer (or iOS bringing back a tab it discarded) shows
everything streamed so far at once, then the rest live, each word once, in Chromium and in WebKit. The text so
far comes from the bridge's journal (readThread folds the running turn's journaled deltas into the items Codex
has not recorded yet). Cost: ~5 s (Chromium) + ~8 s (WebKit)."""
import re

from playwright.sync_api import expect

from test_webkit import CATCH_ERRORS, display, shot, webkit_factory  # noqa: F401 (fixtures)
from webutil import pair, pairing_url, start_thread

WORDS = [f"w{i:02d} " for i in range(40)]


def so_far(n):
    return "".join(WORDS[:n]).strip()


def test_a_reload_mid_answer_shows_the_text_so_far_then_the_rest(web_bridge, model, phone_factory):
    model.queue({"kind": "slow", "deltas": WORDS, "delay": 0.01, "hold_after": [15, 30]})
    phone = phone_factory()
    page = phone.page
    pair(phone, web_bridge)
    start_thread(phone, "count slowly")
    model.wait_held(0)
    expect(page.locator(".msg.agent")).to_have_text(so_far(15))
    page.reload()
    expect(phone.status()).to_have_text("Connected")
    # Back at once with the fifteen words, still streaming (not the last word only, nor nothing until the end).
    expect(page.locator(".msg.agent")).to_have_text(so_far(15))
    expect(page.locator(".msg.agent.streaming")).to_have_count(1)
    expect(page.locator(".msg.user")).to_have_text(["count slowly"])
    expect(phone.button("Stop")).to_be_visible()
    model.open_gate(0)
    model.wait_held(1)
    expect(page.locator(".msg.agent")).to_have_text(so_far(30))
    # A second reload while the page already holds live words: still each word once.
    page.reload()
    expect(phone.status()).to_have_text("Connected")
    expect(page.locator(".msg.agent")).to_have_text(so_far(30))
    phone.shot("reload-mid-turn-light")
    model.open_gate(1)
    expect(page.locator(".msg.agent")).to_have_text(so_far(40))
    expect(page.locator(".msg.agent.streaming")).to_have_count(0)
    expect(page.locator(".msg.agent")).to_have_count(1)
    assert not phone.errors, phone.errors

    # The same thread in dark on a second phone, opened while nothing streams: the whole answer once.
    dark = phone_factory(color_scheme="dark")
    pair(dark, web_bridge)
    dark.page.goto(page.url)
    expect(dark.status()).to_have_text("Connected")
    expect(dark.page.locator(".msg.agent")).to_have_text(so_far(40))
    dark.shot("reload-mid-turn-dark")
    assert not dark.errors, dark.errors


def test_a_reload_mid_answer_in_webkit(web_bridge, model, webkit_factory):  # noqa: F811
    model.queue({"kind": "slow", "deltas": WORDS, "delay": 0.01, "hold_after": [15, 30]})
    phone = webkit_factory()
    driver = phone.driver
    driver.get(pairing_url(web_bridge))
    phone.wait_status("Connected")
    phone.click("New thread")
    phone.click("Use this folder")
    phone.labelled("Message").send_keys("count slowly")
    phone.click("Start")
    phone.wait(lambda: "#/t/" in driver.current_url, what="the thread screen")
    model.wait_held(0)
    phone.wait_text(".msg.agent", lambda t: t == [so_far(15)], what="fifteen words")
    driver.refresh()
    phone.js(CATCH_ERRORS)
    phone.wait_status("Connected")
    phone.wait_text(".msg.agent", lambda t: t == [so_far(15)], what="fifteen words after the reload")
    assert phone.visible(".msg.agent.streaming")
    model.open_gate(0)
    model.wait_held(1)
    phone.wait_text(".msg.agent", lambda t: t == [so_far(30)], what="thirty words, live")
    shot(phone, "reload-mid-turn")
    model.open_gate(1)
    phone.wait_text(".msg.agent", lambda t: t == [so_far(40)], what="every word once")
    phone.wait(lambda: not phone.visible(".msg.agent.streaming"), what="the answer no longer streaming")
    assert re.search(r"#/t/", driver.current_url)
    assert phone.js("return window.__errors || []") == []
