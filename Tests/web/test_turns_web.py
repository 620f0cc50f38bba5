"""Issue 15 in the browser: the agent's question as a card, and queued follow-ups (phone viewport, real codex)."""
import json
import re

from playwright.sync_api import expect

from webutil import pair, start_thread, thread_action

QUESTION = {"id": "colour", "header": "Colour", "question": "Which colour <b>should</b> it be?",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}


def test_a_question_card_answers_the_agent(web_bridge, model, phone_factory):
    model.queue({"kind": "ask", "questions": [QUESTION]}, {"kind": "echo_output"})
    phone, other = phone_factory(), phone_factory(color_scheme="dark")
    pair(phone, web_bridge)
    pair(other, web_bridge)
    start_thread(phone, "ask me something")
    page = phone.page
    card = page.locator(".question-card")
    # The agent's text is text: the markup in the question is shown, never rendered.
    expect(card).to_contain_text("Which colour <b>should</b> it be?")
    expect(card.locator("b")).to_have_count(0)
    expect(card.get_by_text("cool")).to_be_visible()
    phone.shot("question-card")
    # Sending nothing says what is missing and sends nothing.
    phone.button("Send answer").click()
    expect(card).to_contain_text("Pick or type an answer first.")
    # The other phone (dark) sees the same question in the thread.
    other.page.locator(".thread-row").first.click()
    expect(other.page.locator(".question-card")).to_contain_text("Which colour")
    other.shot("question-card-dark")
    card.get_by_text("Blue", exact=True).click()
    phone.button("Send answer").click()
    expect(card).to_contain_text("Answered by this phone")
    expect(card.get_by_role("button")).to_have_count(0)
    expect(other.page.locator(".question-card")).to_contain_text(re.compile(r"Answered by Safari on iPhone at \d"))
    answer = page.locator(".msg.agent").last
    expect(answer).to_contain_text("Blue", timeout=30_000)
    assert json.loads(answer.inner_text()) == {"answers": {"colour": {"answers": ["Blue"]}}}
    phone.shot("question-card-answered")
    assert not phone.errors and not phone.csp_violations() and not other.errors


def test_queue_holds_a_follow_up_until_the_turn_ends(web_bridge, model, phone_factory):
    words = [f"w{i} " for i in range(10)]
    model.queue({"kind": "slow", "deltas": words, "delay": 0.01, "hold_after": [5]},
                {"kind": "message", "text": "queued answer"})
    phone = phone_factory()
    pair(phone, web_bridge)
    start_thread(phone, "first instruction")
    page = phone.page
    model.wait_held(0)
    toggle = phone.button("Queue")
    expect(toggle).to_be_visible()
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.get_by_label("Message").fill("then run the tests")
    phone.button("Send").click()
    page.get_by_label("Message").fill("xyzzy never mind")
    phone.button("Send").click()
    queued = page.locator(".queued")
    expect(queued).to_have_count(2)
    expect(queued.first).to_contain_text("then run the tests")
    phone.shot("queued-messages")
    page.get_by_role("button", name=re.compile(r"Cancel queued: xyzzy")).click()
    expect(queued).to_have_count(1)
    model.open_gate(0)
    # The queued one becomes the next turn once the first ends.
    expect(page.locator(".turn")).to_have_count(2, timeout=30_000)
    expect(page.locator(".msg.user")).to_have_text(["first instruction", "then run the tests"], timeout=30_000)
    expect(page.locator(".msg.agent").last).to_have_text("queued answer", timeout=30_000)
    expect(queued).to_have_count(0)
    expect(toggle).to_be_hidden()
    assert "xyzzy" not in json.dumps(model.requests)
    assert not phone.errors and not phone.csp_violations()


def test_queued_messages_are_reordered_and_edited_from_the_phone(web_bridge, model, phone_factory):
    """Issue 34 item 1: Earlier/Later and Edit on the queued messages under the composer; another phone (dark)
    shows the same line; the turns start in the new order with the new text. axe on both. Cost: ~20 s."""
    from axe_playwright_python.sync_playwright import Axe
    words = [f"w{i} " for i in range(10)]
    model.queue({"kind": "slow", "deltas": words, "delay": 0.01, "hold_after": [5]})
    phone, other = phone_factory(), phone_factory(color_scheme="dark")
    sent = []  # the phone's frames: its edit names the message in queuedId (issue 46 item 6)
    phone.page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    pair(phone, web_bridge)
    pair(other, web_bridge)
    start_thread(phone, "first instruction")
    page = phone.page
    model.wait_held(0)
    phone.button("Queue").click()
    for text in ("alpha step", "bravo step", "charlie step"):
        page.get_by_label("Message").fill(text)
        phone.button("Send").click()
        expect(page.locator(".queued").last).to_contain_text(text)
    queued = page.locator(".queued .queued-text")
    expect(queued).to_have_text(["alpha step", "bravo step", "charlie step"])
    # The first cannot go earlier nor the last later.
    expect(page.get_by_role("button", name="Send earlier: alpha step")).to_be_hidden()
    expect(page.get_by_role("button", name="Send later: charlie step")).to_be_hidden()
    page.get_by_role("button", name="Send earlier: charlie step").click()
    expect(queued).to_have_text(["alpha step", "charlie step", "bravo step"])
    page.get_by_role("button", name="Send earlier: charlie step").click()
    expect(queued).to_have_text(["charlie step", "alpha step", "bravo step"])
    page.get_by_role("button", name="Edit queued: alpha step").click()
    box = page.get_by_label("New text for: alpha step")
    expect(box).to_be_focused()
    box.fill("alpha step <b>edited</b>")
    phone.shot("queued-editing")
    phone.button("Save").click()
    expect(queued).to_have_text(["charlie step", "alpha step <b>edited</b>", "bravo step"])
    expect(page.locator(".queued b")).to_have_count(0)
    edits = [json.loads(frame) for frame in sent if isinstance(frame, str) and '"editQueued"' in frame]
    assert len(edits) == 1 and edits[0]["queuedId"].startswith("q-") and edits[0]["id"] != edits[0]["queuedId"], edits
    phone.shot("queued-reordered")
    # The other phone shows the same line.
    other.page.locator(".thread-row").first.click()
    expect(other.page.locator(".queued .queued-text")).to_have_text(["charlie step", "alpha step <b>edited</b>", "bravo step"])
    other.shot("queued-reordered-dark")
    axe = Axe()
    for who in (phone, other):
        bad = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in axe.run(who.page).response["violations"]
               if v["impact"] in ("serious", "critical")]
        assert not bad, bad
    model.open_gate(0)
    expect(page.locator(".msg.user")).to_have_text(
        ["first instruction", "charlie step", "alpha step <b>edited</b>", "bravo step"], timeout=60_000)
    expect(page.locator(".queued")).to_have_count(0)
    assert not phone.errors and not phone.csp_violations() and not other.errors


def tiny_png() -> bytes:
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\x20\x80\xe0" * 16 for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_a_photo_is_attached_and_reaches_codex(web_bridge, model, phone):
    model.queue({"kind": "message", "text": "first"}, {"kind": "echo_images"})
    pair(phone, web_bridge)
    start_thread(phone, "hello")
    page = phone.page
    expect(page.locator(".msg.agent").last).to_have_text("first", timeout=30_000)
    picker = page.locator("input[type=file]")
    # A file that is not an image is refused by the bridge (its bytes, not its name or type, decide).
    picker.set_input_files(files=[{"name": "fake.png", "mimeType": "image/png", "buffer": b"<svg></svg>"}])
    expect(page.locator(".toast")).to_contain_text("Not attached")
    expect(page.locator(".attachment")).to_have_count(0)
    picker.set_input_files(files=[{"name": "photo.png", "mimeType": "image/png", "buffer": tiny_png()}])
    thumb = page.locator(".attachment-tray .attachment-thumb")
    expect(thumb).to_be_visible()
    expect(page.locator(".attachment.uploading")).to_have_count(0)
    remove = page.get_by_role("button", name="Remove photo.png").bounding_box()
    assert remove["width"] >= 44 and remove["height"] >= 44, remove
    page.get_by_label("Message").fill("what is in this photo?")
    phone.shot("attachment-in-composer")
    phone.button("Send").click()
    expect(page.locator(".attachment-tray")).to_be_hidden()
    sent = page.locator(".msg.user").last
    expect(sent.locator("img.attachment-thumb")).to_be_visible(timeout=30_000)
    answer = page.locator(".msg.agent").last
    expect(answer).to_contain_text("image/png", timeout=30_000)
    # The model's echo (its JSON shown as Markdown) names the image; what reached it is checked in its request.
    from mock_model import _input_images
    seen = _input_images(model.requests[-1])
    assert [i["mime"] for i in seen["images"]] == ["image/png"] and seen["images"][0]["bytes"] > 0
    assert any("up-" in note for note in seen["notes"])
    phone.shot("attachment-sent")
    assert not phone.errors and not phone.csp_violations()


def test_at_mentions_a_file_of_the_thread(web_bridge, model, phone, workspace):
    (workspace / "app").mkdir()
    (workspace / "app" / "dates.py").write_text("x = 1\n")
    model.queue({"kind": "message", "text": "first"}, {"kind": "message", "text": "second"})
    pair(phone, web_bridge)
    start_thread(phone, "hello")
    page = phone.page
    expect(page.locator(".msg.agent").last).to_have_text("first", timeout=30_000)
    box = page.get_by_label("Message")
    box.click()
    box.press_sequentially("look at @dat")
    option = page.get_by_role("option").filter(has_text="app/dates.py")
    expect(option).to_be_visible()
    phone.shot("mention-list")
    option.get_by_role("button").click()
    expect(box).to_have_value("look at app/dates.py ")
    expect(page.get_by_role("listbox")).to_be_hidden()
    phone.button("Send").click()
    expect(page.locator(".msg.agent").last).to_have_text("second", timeout=30_000)
    assert "look at app/dates.py" in json.dumps(model.requests[-1])
    assert not phone.errors and not phone.csp_violations()


def test_review_runs_as_a_turn_and_shows_its_findings(web_bridge, model, phone, workspace):
    review = {"findings": [{"title": "Off by one in the loop", "body": "The loop <i>stops</i> one early.",
                            "confidence_score": 0.9, "priority": 1,
                            "code_location": {"absolute_file_path": "tracked.txt", "line_range": {"start": 1, "end": 1}}}],
              "overall_correctness": "patch is incorrect", "overall_explanation": "One bug.", "overall_confidence_score": 0.8}
    model.queue({"kind": "message", "text": "first"}, {"kind": "message", "text": json.dumps(review)})
    pair(phone, web_bridge)
    start_thread(phone, "hello")
    page = phone.page
    expect(page.locator(".msg.agent").last).to_have_text("first", timeout=30_000)
    (workspace / "tracked.txt").write_text("changed\n")
    thread_action(phone, "Review")
    expect(page.locator(".turn")).to_have_count(2, timeout=30_000)
    expect(page.locator(".msg.agent").last).to_contain_text("Off by one in the loop", timeout=30_000)
    expect(page.locator(".chip", has_text="Review finished")).to_be_visible()
    expect(page.locator(".turn").last.locator(".working")).to_have_count(0)
    phone.button("More").click()
    expect(page.get_by_role("menuitem", name="Review", exact=True)).to_be_visible()
    page.keyboard.press("Escape")
    phone.shot("review-findings")
    assert "Review the current code changes" in json.dumps(model.requests[-1])
    assert not phone.errors and not phone.csp_violations()


def test_a_usage_limit_says_why_the_turn_failed(web_bridge, model, phone):
    model.queue({"kind": "error", "status": 429, "type": "usage_limit_reached", "text": "You've hit your usage limit."})
    pair(phone, web_bridge)
    start_thread(phone, "hello")
    page = phone.page
    footer = page.locator(".turn-end.failed")
    expect(footer).to_contain_text("Usage limit reached: ", timeout=30_000)
    expect(footer).to_contain_text("usage limit")
    phone.button("Show usage").click()
    # Without a ChatGPT login Codex cannot say what is left: its own reason is shown, not a silent nothing.
    expect(page.locator(".usage-text")).to_contain_text("Usage unknown: ")
    expect(page.locator(".usage-text")).to_contain_text("authentication required")
    phone.shot("usage-limit")
    assert not phone.errors and not phone.csp_violations()


def test_an_mcp_form_is_answered_from_the_card(web_bridge_factory, model, phone):
    import pathlib
    import sys

    from mcp_elicit import mcp_args
    script = str(pathlib.Path(__file__).parents[1] / "integration" / "mcp_elicit.py")
    bridge = web_bridge_factory(extra=[a for value in mcp_args(sys.executable, script) for a in ("--codex-config", value)])
    model.queue({"kind": "call", "namespace": "mcp__tickets", "name": "ask_ticket"}, {"kind": "echo_output"})
    pair(phone, bridge)
    start_thread(phone, "pick a ticket")
    page = phone.page
    allow = page.locator(".question-card").first
    expect(allow).to_contain_text("ask_ticket")
    allow.get_by_role("button", name="Allow").click()
    expect(allow).to_contain_text("Answered by this phone")
    form = page.locator(".question-card").nth(1)
    expect(form).to_contain_text("Which ticket should I work on?")
    expect(form).to_contain_text("tickets asks")
    form.get_by_label("Ticket number").fill("42")
    phone.shot("question-form")
    form.get_by_role("button", name="Send answer").click()
    expect(form).to_contain_text("Answered by this phone")
    expect(page.locator(".msg.agent").last).to_contain_text("42", timeout=30_000)
    assert '\\"ticket\\": 42' in json.dumps(model.requests[-1])
    assert not phone.errors and not phone.csp_violations()


def test_a_new_thread_starts_with_a_photo(web_bridge, model, phone):
    model.queue({"kind": "echo_images"})
    pair(phone, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("what is on this screenshot?")
    page.locator("input[type=file]").set_input_files(files=[{"name": "shot.png", "mimeType": "image/png", "buffer": tiny_png()}])
    expect(page.locator(".attachment-tray .attachment-thumb")).to_be_visible()
    expect(page.locator(".attachment.uploading")).to_have_count(0)
    phone.shot("new-thread-photo")
    phone.button("Start").click()
    page.wait_for_url(re.compile(r"#/t/"))
    expect(page.locator(".msg.agent").last).to_contain_text("image/png", timeout=30_000)
    from mock_model import _input_images
    assert [i["mime"] for i in _input_images(model.requests[-1])["images"]] == ["image/png"]
    assert not phone.errors and not phone.csp_violations()


def test_the_context_meter_shows_codexs_token_count(web_bridge, model, phone_factory):
    """Issue 34 item 3: Codex's `thread/tokenUsage/updated` becomes a line in the thread's header (how much context
    is left; issue 46 item 5: one number, in sight), kept after a reload (from the journal). Seen failing before: no
    such line."""
    model.queue({"kind": "message", "text": "counted"})
    phone = phone_factory(color_scheme="dark")
    pair(phone, web_bridge)
    start_thread(phone, "count my tokens")
    page = phone.page
    meter = page.locator(".context-meter")
    expect(meter).to_have_text(re.compile(r"^\d+% context left$"), timeout=30_000)
    phone.shot("context-meter-dark")
    page.reload()
    expect(meter).to_have_text(re.compile(r"^\d+% context left$"), timeout=30_000)
    assert not phone.errors
