"""Issue 28: what a new user trips over. A pairing link opened in a tab that already shows the app, the
indicator before pairing, the empty thread list right after pairing, a header that keeps its title, and the
last line of the agent's answer on each card."""
import json
import re

from playwright.sync_api import expect

from webutil import base_url, pair, pairing_url, start_thread, thread_action

import conftest


def test_a_pairing_link_opened_in_a_tab_that_shows_the_app_pairs(web_bridge, phone):
    """Only the fragment changes (no reload): the page pairs as it does on a load (issue 28 item 1)."""
    page = phone.page
    page.goto(base_url(web_bridge))
    expect(page.get_by_label("Pairing code")).to_be_visible()
    page.evaluate("window.__sameDocument = true")
    url = pairing_url(web_bridge)
    code = re.search(r"code=([^&]+)", url).group(1)
    page.goto(url)  # the same document: a hashchange
    expect(phone.status()).to_have_text("Connected")
    expect(phone.button("New thread")).to_be_visible()
    assert page.evaluate("window.__sameDocument") is True  # paired without a reload
    assert "#pair" not in page.url and code not in page.url
    devices = json.loads(conftest.run_cli("devices", "list", "--json", state_dir=web_bridge.state_dir, check=True).stdout)
    assert len(devices) == 1
    # A second link in the same tab (another code for the same bridge) pairs again and stays on the list.
    page.goto(pairing_url(web_bridge))
    expect(phone.status()).to_have_text("Connected")
    expect(phone.button("New thread")).to_be_visible()
    assert "#pair" not in page.url
    assert not phone.errors


def test_the_pairing_page_never_says_offline(web_bridge, phone):
    """The bridge served the page and answers: before pairing the indicator says "Not paired" (item 2)."""
    page = phone.page
    page.goto(base_url(web_bridge))
    expect(page.get_by_label("Pairing code")).to_be_visible()
    expect(phone.status()).to_have_text("Not paired")
    page.wait_for_timeout(1500)
    expect(phone.status()).to_have_text("Not paired")
    expect(page.locator(".status.offline, .status.rejected")).to_have_count(0)
    expect(page.get_by_text("Workstation unreachable")).to_be_hidden()
    # A wrong code is the code's fault, not the network's.
    page.get_by_label("Pairing code").fill("0000000000")
    phone.button("Pair").click()
    expect(page.get_by_text("That code did not work")).to_be_visible()
    expect(phone.status()).to_have_text("Not paired")
    phone.shot("pairing-not-paired")


def test_an_empty_list_after_pairing_says_there_are_no_threads_yet(web_bridge, phone):
    """Connected with no threads: "No threads yet" and New thread, never "Waiting for the workstation…" while
    the header says Connected, also while the list is still on its way (item 3)."""
    page = phone.page
    held = []

    def relay(ws):
        server = ws.connect_to_server()

        def from_page(message):
            if '"listThreads"' in message and not held:
                held.append(message)  # the first list is late: the workstation is slow to answer
                return
            server.send(message)

        ws.on_message(from_page)
        server.on_message(lambda m: ws.send(m))
        relay.server = server

    page.route_web_socket(re.compile(r"^ws://127\.0\.0\.1:\d+/$"), relay)
    page.goto(pairing_url(web_bridge))
    expect(phone.status()).to_have_text("Connected")
    expect(phone.button("New thread")).to_be_visible()
    expect(page.get_by_text("Waiting for the workstation")).to_have_count(0)
    expect(page.get_by_text("Loading threads…")).to_be_visible()
    assert held, "the list was never asked for"
    relay.server.send(held[0])
    expect(page.get_by_text("No threads yet")).to_be_visible()
    expect(page.get_by_text("Loading threads…")).to_have_count(0)
    expect(page.locator(".empty-state")).to_contain_text("New thread")
    phone.shot("thread-list-empty")


def test_the_thread_header_keeps_a_readable_title(web_bridge, model, phone):
    """Diff and Review sit in a menu: the title keeps its room (item 8); the menu works with the keyboard."""
    model.queue({"kind": "message", "text": "Counted."})
    pair(phone, web_bridge)
    title = "count the words in every file of the repository"
    start_thread(phone, title)
    page = phone.page
    expect(page.locator(".msg.agent")).to_have_text("Counted.")
    expect(page.locator(".turn-footer .working")).to_have_count(0)  # idle: every header action is there
    heading = page.locator(".bar .title")
    expect(heading).to_have_text(title)
    phone.shot("thread-header")
    # The first 30 characters ("count the words in every file ") are on screen, not clipped by an ellipsis.
    clipped = page.evaluate("""() => { const t = document.querySelector('.bar .title'); const box = t.getBoundingClientRect();
        const range = document.createRange(); range.setStart(t.firstChild, 0); range.setEnd(t.firstChild, 30);
        return [...range.getClientRects()].filter((r) => r.width > 0 && (r.right > box.right + 1 || r.bottom > box.bottom + 1))
            .map((r) => [Math.round(r.left), Math.round(r.right), Math.round(r.bottom), Math.round(box.right), Math.round(box.bottom)]); }""")
    assert not clipped, clipped
    # Keyboard: the menu opens on Enter with focus on its first item, arrows move, Escape closes it.
    more = phone.button("More")
    more.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("menuitem", name="Diff")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("menuitem", name="Review", exact=True)).to_be_focused()
    phone.shot("thread-menu")
    page.keyboard.press("Escape")
    expect(page.get_by_role("menu")).to_be_hidden()
    expect(more).to_be_focused()
    thread_action(phone, "Diff")
    expect(page.locator(".bar .title")).to_have_text("Changes")


def test_each_card_shows_the_last_line_of_the_answer(web_bridge, model, phone):
    model.queue({"kind": "message", "text": "Looked at it.\n\n- first finding\n- **All 14 tests** pass."},
                {"kind": "message", "text": "Second thread's answer."})
    pair(phone, web_bridge)
    start_thread(phone, "check the tests")
    page = phone.page
    expect(page.locator(".msg.agent")).to_contain_text("All 14 tests")
    phone.button("Back").click()
    row = page.locator(".thread-row").first
    expect(row.locator(".row-title")).to_have_text("check the tests")
    expect(row.locator(".row-answer")).to_have_text("All 14 tests pass.")
    # After a reload the app reads an opened thread again and knows its answer once more.
    start_thread(phone, "another one")
    expect(page.locator(".msg.agent")).to_have_text("Second thread's answer.")
    page.reload()
    expect(page.locator(".msg.agent")).to_have_text("Second thread's answer.")
    phone.button("Back").click()
    expect(page.locator(".thread-row").first.locator(".row-answer")).to_have_text("Second thread's answer.")
    phone.shot("thread-list-answers")


def hold_first_request(page, marker, answer=None):
    """Relays the page's WebSocket to the bridge but holds back the first frame containing `marker` (send it
    with `relay.server.send(held[0])`); frames from the bridge containing `answer` are collected too."""
    held, answered = [], []

    def relay(ws):
        server = ws.connect_to_server()

        def from_page(message):
            if marker in message and not held:
                held.append(message)
                return
            server.send(message)

        def from_server(message):
            if answer and answer in message:
                answered.append(message)
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)
        relay.server = server

    page.route_web_socket(re.compile(r"^ws://127\.0\.0\.1:\d+/$"), relay)
    return held, answered, relay


def test_a_folder_chosen_while_its_listing_is_on_its_way_keeps_the_prompt(web_bridge, model, phone):
    """"Use this folder" is offered while the folder's listing is still on its way; the listing arriving later
    must not re-render the prompt form the person is already typing into (it emptied the message, so Start did
    nothing: the flake CI met in test_housekeeping_web.py)."""
    model.queue({"kind": "message", "text": "Started."})
    page = phone.page
    held, answered, relay = hold_first_request(page, '"listDirectory"', answer='"directory"')  # a slow listing
    page.goto(pairing_url(web_bridge))
    expect(phone.status()).to_have_text("Connected")
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("start while the listing is late")
    assert held, "the folder was never listed"
    relay.server.send(held[0])
    for _ in range(50):
        if answered:
            break
        page.wait_for_timeout(100)
    assert answered, "the listing never came back"
    page.wait_for_timeout(200)  # the answer handled by the page
    expect(page.get_by_label("Message")).to_have_value("start while the listing is late")
    phone.button("Start").click()
    page.wait_for_url(re.compile(r"#/t/"))
    expect(page.locator(".msg.agent")).to_have_text("Started.")
    assert not phone.errors


def test_an_approvals_choice_made_while_the_settings_load_is_kept(web_bridge, model, phone):
    """The Settings sheet shows its Approvals choice at once, then loads the models and the permission profiles;
    a choice made meanwhile must survive their arrival (it was reset to the thread's own, so Save sent nothing
    and said nothing: the flake met in test_housekeeping_web.py's automatic review)."""
    model.queue({"kind": "message", "text": "ok"})
    page = phone.page
    held, _, relay = hold_first_request(page, '"listPermissionProfiles"')  # the workstation is slow to list them
    page.goto(pairing_url(web_bridge))
    expect(phone.status()).to_have_text("Connected")
    start_thread(phone, "hello")
    expect(page.locator(".msg.agent")).to_have_text("ok")
    page.get_by_role("button", name="More").click()
    page.get_by_role("menuitem", name="Settings").click()
    page.get_by_label("Approvals", exact=True).select_option("auto_review")
    for _ in range(50):
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the profiles were never asked for"
    relay.server.send(held[0])
    phone.button("Save").click()
    expect(page.get_by_role("alert").filter(has_text="Settings saved")).to_be_visible()
    assert not phone.errors
