"""Issue 36 item 1 in Chromium on a phone (390x844): a long thread opens on its newest turns, the person scrolls up
to its first turn while earlier pages load, the page stays small (far turns collapse to one line each), an answer
arriving while the person reads far up does not move the view, going back down expands what comes near, and axe-core finds nothing serious on the long
paged thread (light and dark). The thread: 30 short scripted turns of 10 items with the real codex
(long_thread.py). Cost: ~100 s with the debug binary on a loaded machine (most of it making the thread)."""
from playwright.sync_api import expect

from long_thread import make_long_thread
from test_accessibility import Audit
from test_codex import request, until_turn_completed
from webutil import base_url, pair, run_async
from wsutil import hello

TURNS, ITEMS = 30, 10
# What the page may hold at most however long the thread: the turns near the screen in full (turn-window.js's
# bound, 240 items, plus what is on screen) and one line per collapsed turn.
MAX_MESSAGES = 260


async def send_from_elsewhere(bridge, thread_id, text):
    ws, _ = await hello(bridge)
    assert (await request(ws, "subscribe", threadId=thread_id))["kind"] == "subscribed"
    assert (await request(ws, "sendMessage", threadId=thread_id, text=text))["kind"] == "accepted"
    await until_turn_completed(ws, thread_id)
    await ws.close()


def top_of(page, selector):
    return page.locator(selector).first.evaluate("e => e.getBoundingClientRect().top")


def test_a_long_thread_opens_on_its_last_turns_and_scrolls_back_to_its_first(web_bridge, model, workspace, phone):
    thread_id = run_async(make_long_thread(web_bridge, model, workspace, TURNS, items=ITEMS, chars=160), timeout=300)
    page = phone.page
    pair(phone, web_bridge)
    page.goto(f"{base_url(web_bridge)}#/t/{thread_id}")
    last = page.locator(".msg.agent").filter(has_text=f"Answer {TURNS - 1}.{ITEMS - 2}:")
    expect(last).to_be_in_viewport()
    # Only the newest page was read: six turns, and the way to the earlier ones.
    expect(page.locator(".turn")).to_have_count(6)
    expect(phone.button("Show earlier turns")).to_be_attached()
    # Drawn from the end: the last turns holding 40 items whole, the two above them as lines until scrolled near.
    expect(page.locator(".turn.collapsed")).to_have_count(2)
    expect(page.locator(".msg")).to_have_count(40)
    phone.shot("paging-open-light")

    # Up to the first turn: each time the top is reached, the page before loads above it.
    first = page.locator(".msg.user").filter(has_text="Question 0")
    for _ in range(40):
        if first.count() and first.is_visible():
            break
        page.mouse.wheel(0, -5000)
        page.wait_for_timeout(250)
    expect(first).to_be_in_viewport()
    expect(page.locator(".turn")).to_have_count(TURNS)
    expect(page.locator(".older-turns")).to_be_hidden()
    # The DOM stays bounded: the turns far below are one line each.
    assert page.locator(".msg").count() <= MAX_MESSAGES, page.locator(".msg").count()
    collapsed = page.locator(".turn.collapsed")
    assert collapsed.count() >= 5, collapsed.count()
    expect(collapsed.last.get_by_role("button")).to_have_text(f"Question {TURNS - 1} · {ITEMS} items")
    phone.shot("paging-first-turn-light")

    # An answer arrives while the person reads the first turn: the view stays where it is.
    before = top_of(page, ".msg.user >> text=Question 0")
    model.queue({"kind": "message", "text": "Live answer while you read."})
    run_async(send_from_elsewhere(web_bridge, thread_id, "Live question"))
    expect(page.locator(".msg.agent").filter(has_text="Live answer while you read.")).to_have_count(1)
    page.wait_for_timeout(300)
    assert abs(top_of(page, ".msg.user >> text=Question 0") - before) < 2
    expect(first).to_be_in_viewport()
    jump = page.get_by_role("button", name="Jump to latest")
    expect(jump).to_be_visible()

    # axe on the long paged thread, scrolled back to its first turn (collapsed lines below), light and dark.
    audit = Audit(phone)
    audit("long-thread-first-turn")
    # Back down: the lines expand as they come near (the last turns whole again), the top turns collapse.
    jump.click()
    expect(page.locator(".msg.agent").filter(has_text="Live answer while you read.")).to_be_in_viewport()
    expect(last).to_be_attached()
    expect(page.locator(".turn").nth(TURNS - 1).locator(".msg")).to_have_count(ITEMS)
    expect(page.locator(".turn.collapsed").first).to_have_attribute("data-turn-id", page.locator(".turn").first.get_attribute("data-turn-id"))
    audit("long-thread-end")
    assert not audit.found, "\n".join(map(str, audit.found))
    assert page.locator(".msg").count() <= MAX_MESSAGES
    assert not phone.errors, phone.errors

