"""Issue 37 item 10, reading on a phone (390×844, real codex against the scripted model): streamed text never breaks a
word at the boundary between the rendered Markdown and the live tail; command text wraps between words, never per
character; the message box keeps its width while a turn runs; a turn waiting for the person's approval says so
instead of "Working…". Screenshots in light and dark go to the artifacts. Cost: ~20 s
(four tests, 3–7 s each)."""
import re

from playwright.sync_api import expect

from webutil import pair, start_thread

# Every word (up to 24 characters: a longer one may break) whose text sits on more than one line box.
SPLIT_WORDS = """(selector) => {
    const split = [];
    for (const el of document.querySelectorAll(selector)) {
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            for (const m of n.data.matchAll(/\\S+/g)) {
                if (m[0].length > 24) continue;
                const r = document.createRange();
                r.setStart(n, m.index);
                r.setEnd(n, m.index + m[0].length);
                const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
                if (tops.size > 1) split.push(m[0]);
            }
        }
    }
    return split;
}"""

WORDS = "alpha README.md bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa"


def clean(*phones):
    for phone in phones:
        assert not phone.errors and not phone.csp_violations() and not phone.dialogs, (phone.errors, phone.dialogs)


def test_streamed_text_never_breaks_a_word_at_the_live_boundary(web_bridge, model, phone):
    deltas = ["Hello wor", "ld, this ", "is a para", "graph that ", "streams in ", "small pie", "ces to the ", "end."]
    model.queue({"kind": "slow", "deltas": deltas, "delay": 0.12, "hold_after": [1]})
    pair(phone, web_bridge)
    start_thread(phone, "stream a paragraph")
    page = phone.page
    model.wait_held(0)
    # What the person sees, every frame: the paragraph is one paragraph all along (no line break inside a word).
    page.evaluate("""() => { window.__seen = new Set(); const look = () => {
        const m = document.querySelector('.msg.agent'); if (m) window.__seen.add(m.innerText.trim());
        if (!window.__stop) requestAnimationFrame(look); }; look(); }""")
    model.open_gate(0)
    expect(page.locator(".msg.agent")).to_have_text("".join(deltas))
    expect(page.locator(".msg.agent.streaming")).to_have_count(0)
    seen = page.evaluate("window.__stop = true; [...window.__seen]")
    assert len(seen) >= 3, seen
    broken = [s for s in seen if "\n" in s]
    assert not broken, broken
    clean(phone)


def test_command_text_wraps_between_words_not_per_character(web_bridge, model, phone_factory):
    model.queue({"kind": "message", "text": "ready"})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge, scopes="all")  # !commands need run
    start_thread(light, "hello")
    page = light.page
    expect(page.locator(".msg.agent")).to_contain_text("ready")
    pair(dark, web_bridge)  # a card reaches the phones that have the thread open (it is not in readThread)
    dark.page.goto(page.url)
    expect(dark.page.locator(".msg.agent")).to_contain_text("ready")
    page.get_by_label("Message").fill(f"!printf '{WORDS}\\n{WORDS}\\n'")
    light.button("Send").click()
    card = page.locator(".command-card").first
    expect(card.locator(".command-status")).to_have_text("Exit 0")
    assert page.evaluate(SPLIT_WORDS, ".command-card .command-output") == []
    assert page.evaluate(SPLIT_WORDS, ".command-card .command-line") == []
    expect(dark.page.locator(".command-card .command-status")).to_have_text("Exit 0")
    light.shot("reading-command-light")
    dark.shot("reading-command-dark")
    clean(light, dark)


def test_the_message_box_keeps_its_width_while_a_turn_runs(web_bridge, model, phone_factory):
    model.queue({"kind": "message", "text": "first answer"},
                {"kind": "slow", "deltas": ["one ", "two ", "three"], "delay": 0.01, "hold_after": [1]})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    start_thread(light, "hello")
    page = light.page
    box = page.get_by_label("Message")
    expect(page.locator(".msg.agent")).to_have_text("first answer")
    idle = box.bounding_box()["width"]
    box.fill("and more")
    light.button("Send").click()
    model.wait_held(0)
    stop = light.button("Stop")
    expect(stop).to_be_visible()
    running = box.bounding_box()["width"]
    assert running >= idle - 1, (idle, running)
    assert running >= 390 * 0.45, running
    # Typing a message to steer (or queue) keeps the width too, and Send is there for it.
    box.fill("steer this way")
    expect(light.button("Send")).to_be_visible()
    expect(light.button("Queue")).to_be_visible()
    assert box.bounding_box()["width"] >= idle - 1
    box.fill("")
    expect(stop).to_be_visible()
    pair(dark, web_bridge)
    dark.page.goto(page.url)
    expect(dark.button("Stop")).to_be_visible()
    light.shot("reading-running-light")
    dark.shot("reading-running-dark")
    model.open_gate(0)
    expect(page.locator(".msg.agent").last).to_have_text("one two three")
    expect(stop).to_be_hidden()
    clean(light, dark)


def test_a_turn_waiting_for_approval_says_so(web_bridge, model, phone_factory, workspace):
    model.queue({"kind": "exec", "cmd": f"printf '{WORDS}' > words.txt"}, {"kind": "message", "text": "written"})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    page = light.page
    light.button("New thread").click()
    light.button("Use this folder").click()
    page.get_by_label("Message").fill("write the words")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    light.button("Start").click()
    expect(page.locator(".approval")).to_be_visible()
    footer = page.locator(".turn-footer")
    expect(footer).to_have_text("Waiting for your approval")
    expect(footer.locator(".spinner")).to_have_count(0)
    assert page.evaluate(SPLIT_WORDS, ".approval-command") == []
    pair(dark, web_bridge)
    dark.page.goto(page.url)
    expect(dark.page.locator(".turn-footer")).to_have_text("Waiting for your approval")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    dark.page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    light.shot("reading-waiting-light")
    dark.shot("reading-waiting-dark")
    light.button("Approve").click()
    expect(page.locator(".msg.agent").last).to_have_text("written")
    expect(footer).not_to_contain_text(re.compile("Waiting"))
    assert (workspace / "words.txt").read_text() == WORDS
    clean(light, dark)
