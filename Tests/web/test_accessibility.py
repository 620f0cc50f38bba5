"""Issue 28, accessibility: axe-core on every screen in light and dark on a phone (no serious or critical
violation), the core flow with the keyboard alone, status changes announced, text at 200%, reduced motion."""
import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from webutil import IPHONE_UA, Phone, base_url, pair, pairing_url, start_thread

import conftest

AXE = Axe()
QUESTION = {"id": "colour", "header": "Colour", "question": "Which colour should it be?",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}
WORDS = [f"word{i} " for i in range(30)]


class Audit:
    """Runs axe on the page as it is, once per colour scheme; collects what is serious or critical."""

    def __init__(self, phone):
        self.phone = phone
        self.found = []
        self.screens = []

    def __call__(self, screen):
        page = self.phone.page
        page.wait_for_timeout(200)  # let transitions (a folded section turning) settle
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            violations = AXE.run(page).response["violations"]
            for v in violations:
                if v["impact"] in ("serious", "critical"):
                    self.found.append((screen, scheme, v["id"], v["impact"], [n["target"] for n in v["nodes"]][:4]))
            self.phone.shot(f"a11y-{screen}-{scheme}")
        page.emulate_media(color_scheme="light")
        self.screens.append(screen)


def test_axe_finds_nothing_serious_on_any_screen(web_bridge, model, phone, workspace):
    (workspace / "app").mkdir()
    (workspace / "app" / ".git").mkdir()  # a git chip in the picker
    (workspace / ".hidden").mkdir()
    model.queue({"kind": "say_exec", "text": "I will write the notes first.",
                 "cmd": "printf 'line one\\nline two\\n' > notes.md && seq 1 500 > long.txt && echo x > b.md"},
                {"kind": "ask", "questions": [QUESTION]},
                {"kind": "slow", "deltas": WORDS, "delay": 0.01, "hold_after": [10]})
    page = phone.page
    audit = Audit(phone)
    page.goto(base_url(web_bridge))
    expect(page.get_by_label("Pairing code")).to_be_visible()
    audit("pairing")
    page.get_by_label("Pairing code").fill("0000000000")
    phone.button("Pair").click()
    expect(page.get_by_text("That code did not work")).to_be_visible()
    audit("pairing-error")
    page.goto(pairing_url(web_bridge))
    expect(phone.status()).to_have_text("Connected")
    expect(page.get_by_text("No threads yet")).to_be_visible()
    audit("thread-list-empty")
    phone.button("New thread").click()
    expect(phone.button("app")).to_be_visible()
    expect(page.locator(".dir-list.loading")).to_have_count(0)
    audit("folder-picker")
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("write the notes")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    audit("new-thread-options")
    phone.button("Start").click()
    expect(page.locator(".approval")).to_contain_text("notes.md")
    audit("thread-approval")
    phone.button("More").click()
    expect(page.get_by_role("menu")).to_be_visible()
    audit("thread-menu")
    page.keyboard.press("Escape")
    phone.button("Approve").click()
    expect(page.locator(".question-card")).to_contain_text("Which colour")
    audit("thread-question")
    page.locator(".question-card").get_by_text("Blue", exact=True).click()
    phone.button("Send answer").click()
    model.wait_held(0)
    expect(page.locator(".msg.agent.streaming")).to_have_count(1)
    expect(phone.button("Stop")).to_be_visible()
    audit("thread-streaming")
    model.open_gate(0)
    expect(page.locator(".msg.agent.streaming")).to_have_count(0, timeout=30_000)
    expect(page.locator(".turn-footer .working")).to_have_count(0, timeout=30_000)
    page.locator(".command summary").click()
    audit("thread-done")
    phone.button("More").click()
    page.get_by_role("menuitem", name="Diff").click()
    # Several files, one of them long enough to start folded (issue 36 item 5: axe found aria-prohibited-attr,
    # an aria-label on the diff's <pre>, only with several files).
    expect(page.locator(".diff-file")).to_have_count(3)
    audit("diff")
    phone.button("View notes.md").click()
    expect(page.locator(".file-lines .fl")).to_have_count(2)
    audit("file")
    phone.button("Back").click()
    phone.button("Back").click()
    phone.button("Back").click()
    expect(page.locator(".thread-row")).to_have_count(1)
    audit("thread-list")
    assert not audit.found, "\n".join(map(str, audit.found))
    assert not phone.errors


def tab_to(page, name, limit=40):
    """Presses Tab until the focused element's accessible name (label, aria-label or text) is `name` (a string,
    or a compiled pattern that must match its start)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate("""() => { const el = document.activeElement;
            return el ? (el.getAttribute('aria-label') || (el.labels && el.labels[0] && el.labels[0].textContent) || el.textContent || '').trim() : ''; }""")
        if focused == name if isinstance(name, str) else name.match(focused):
            return
    raise AssertionError(f"Tab never reached {name!r}")


def assert_focus_visible(page):
    """The focused element draws a focus ring (outline) a sighted keyboard user can see."""
    ring = page.evaluate("""() => { const s = getComputedStyle(document.activeElement);
        return [s.outlineStyle, parseFloat(s.outlineWidth)]; }""")
    assert ring[0] != "none" and ring[1] >= 2, ring


def test_the_core_flow_works_with_the_keyboard_alone(web_bridge, model, phone_factory):
    """Pair, start a thread, approve, read the diff and come back: Tab, Enter, Space and Escape only; focus
    always visible; status changes announced through live regions."""
    model.queue({"kind": "exec", "cmd": "printf 'hi\\n' > hello.txt"}, {"kind": "message", "text": "Wrote hello.txt."})
    # A desktop-like context: a keyboard and a fine pointer (Enter sends there).
    phone = phone_factory()
    page = phone.page
    page.goto(base_url(web_bridge))
    code = pairing_url(web_bridge).split("code=")[1].split("&")[0]
    tab_to(page, "Pairing code")
    assert_focus_visible(page)
    page.keyboard.type(code)
    page.keyboard.press("Enter")
    expect(phone.status()).to_have_text("Connected")
    tab_to(page, "New thread")
    assert_focus_visible(page)
    page.keyboard.press("Enter")
    expect(page.locator(".bar .title")).to_be_focused()  # a screen reader starts at the new screen's title
    tab_to(page, "Use this folder")
    assert_focus_visible(page)
    page.keyboard.press("Enter")
    expect(page.get_by_label("Message")).to_be_focused()
    page.keyboard.type("write hello")
    tab_to(page, re.compile("Options"))
    page.keyboard.press("Enter")
    tab_to(page, re.compile("Approval policy"))
    page.keyboard.press("End")  # a select takes arrows/Home/End without opening
    expect(page.get_by_label("Approval policy")).not_to_have_value("on-request")
    page.get_by_label("Approval policy").select_option("untrusted")  # (headless selects do not open a popup)
    tab_to(page, "Start")
    page.keyboard.press("Enter")
    expect(page.locator(".approval")).to_contain_text("hello.txt")
    # The approval was announced (the thread's live region), not only drawn.
    expect(page.locator(".thread-screen [aria-live=polite].visually-hidden")).to_have_text("Codex is asking for approval.")
    tab_to(page, "Approve")
    assert_focus_visible(page)
    page.keyboard.press("Space")
    expect(page.locator(".msg.agent")).to_have_text("Wrote hello.txt.")
    expect(page.locator(".thread-screen [aria-live=polite].visually-hidden")).to_have_text("Codex finished.")
    tab_to(page, "More")
    page.keyboard.press("Enter")
    expect(page.get_by_role("menuitem", name="Diff")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_role("menu")).to_be_hidden()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # Diff
    expect(page.locator(".diff-file")).to_have_count(1)
    tab_to(page, re.compile("hello.txt"))
    expect(page.locator(".diff-toggle")).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Enter")
    expect(page.locator(".diff-toggle")).to_have_attribute("aria-expanded", "false")
    expect(page.locator(".diff-lines")).to_be_hidden()
    page.keyboard.press("Enter")
    expect(page.locator(".diff-lines")).to_be_visible()
    tab_to(page, "Back")
    page.keyboard.press("Enter")
    expect(page.get_by_label("Message")).to_be_visible()
    tab_to(page, "Back")
    page.keyboard.press("Enter")
    expect(page.locator(".thread-row")).to_have_count(1)
    tab_to(page, re.compile("write hello"))
    assert_focus_visible(page)
    # The connection indicator is a status region: its changes are announced.
    assert page.get_by_role("status").count() == 1
    assert not phone.errors


BROKEN_WORDS = """() => {
    const out = [];
    const hosts = document.querySelectorAll('button, label, summary, h1, h2, p, legend, .chip, .options-now, .notify-text');
    for (const host of hosts) {
        if (host.offsetParent === null || host.closest('pre, code')) continue;
        if (host.scrollWidth > host.clientWidth + 1 && getComputedStyle(host).overflowX === 'visible') out.push(['spills', host.textContent.trim().slice(0, 40)]);
        const walker = document.createTreeWalker(host, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (node.parentElement.closest('pre, code, .diff-path')) continue; // code and paths may break anywhere
            for (const m of node.data.matchAll(/[A-Za-z]{2,12}/g)) {
                const range = document.createRange();
                range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
                const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                if (lines.size > 1) out.push(['broken', m[0]]);
            }
        }
    }
    return out.slice(0, 10);
}"""


def test_text_at_200_percent_keeps_every_screen_usable(web_bridge, model, browser):
    """Text zoomed to 200% on a 390 px phone lays the page out at 195 CSS px (Safari's page zoom): nothing
    needs sideways scrolling except code and diffs, and the header keeps its title, Back and menu on screen."""
    model.queue({"kind": "exec", "cmd": "printf 'a fairly long line of text in the new file\\n' > zoomed-in-file.txt"},
                {"kind": "message", "text": "Done with a fairly long answer that wraps over several lines."})
    phone = Phone.__new__(Phone)
    context = browser.new_context(viewport={"width": 195, "height": 422}, is_mobile=True, has_touch=True,
                                  device_scale_factor=4, user_agent=IPHONE_UA, service_workers="block")
    try:
        page = context.new_page()
        phone.page, phone.context = page, context

        def fits(screen):
            page.wait_for_timeout(100)
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 195:
                page.screenshot(path=str(conftest.ARTIFACTS / f"zoom-200-{screen}.png"))
                wide = page.evaluate("""() => [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > 196)
                    .map((el) => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right)).slice(0, 12)""")
                raise AssertionError((screen, width, wide))
            outside = page.evaluate("""() => [...document.querySelectorAll('button, a[href], input, select, textarea, h1')]
                .filter((el) => el.offsetParent !== null && !el.closest('pre, .table-wrap, .diff-lines'))
                .map((el) => [el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30), el.getBoundingClientRect()])
                .filter(([, r]) => r.left < -1 || r.right > innerWidth + 1).map(([n, r]) => [n, Math.round(r.left), Math.round(r.right)])""")
            assert not outside, (screen, outside)
            page.screenshot(path=str(conftest.ARTIFACTS / f"zoom-200-{screen}.png"))
            # Words stay whole (no "Decl/ine" in a squeezed button) and controls do not spill their content.
            broken = page.evaluate(BROKEN_WORDS)
            assert not broken, (screen, broken)

        page.goto(base_url(web_bridge))
        expect(page.get_by_label("Pairing code")).to_be_visible()
        fits("pairing")
        page.goto(pairing_url(web_bridge))
        expect(page.get_by_role("status")).to_have_text("Connected")
        fits("list")
        phone.button("New thread").click()
        expect(phone.button("Use this folder")).to_be_visible()
        fits("picker")
        phone.button("Use this folder").click()
        page.get_by_label("Message").fill("write a file with a long name")
        page.get_by_text("Options").click()
        page.get_by_label("Approval policy").select_option("untrusted")
        fits("prompt")
        phone.button("Start").click()
        expect(page.locator(".approval")).to_be_visible()
        fits("approval")
        phone.button("Approve").click()
        expect(page.locator(".msg.agent")).to_contain_text("fairly long answer")
        expect(page.locator(".bar .title")).to_be_visible()
        title = page.locator(".bar .title").bounding_box()
        assert title["width"] >= 40, title  # a few letters of the title, not nothing
        fits("thread")
        # Scrolled up, "Jump to latest" floats above the composer: it covers none of its controls (at 200% the
        # composer is two rows, the field above Dictate and Send).
        page.evaluate("window.scrollTo(0, 0)")
        jump = page.get_by_role("button", name="Jump to latest")
        expect(jump).to_be_visible()
        page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")  # settled
        page.screenshot(path=str(conftest.ARTIFACTS / "zoom-200-jump.png"))
        box = jump.bounding_box()
        controls = page.locator(".composer :is(button, textarea):visible")
        assert controls.count() >= 2, controls.count()
        for i in range(controls.count()):
            other = controls.nth(i).bounding_box()
            apart = (box["x"] + box["width"] <= other["x"] or other["x"] + other["width"] <= box["x"]
                     or box["y"] + box["height"] <= other["y"] or other["y"] + other["height"] <= box["y"])
            assert apart, ("Jump to latest covers", controls.nth(i).get_attribute("aria-label") or controls.nth(i).get_attribute("class"), box, other)
        jump.click()
        expect(jump).to_be_hidden()
        phone.button("More").click()
        page.get_by_role("menuitem", name="Diff").click()
        expect(page.locator(".diff-file")).to_have_count(1)
        fits("diff")
    finally:
        context.close()


def test_reduced_motion_stops_animations(web_bridge, model, phone):
    """With prefers-reduced-motion the spinner and the pulsing dots stand still and scrolling jumps."""
    model.queue({"kind": "slow", "deltas": WORDS, "delay": 0.01, "hold_after": [5]})
    page = phone.page
    page.emulate_media(reduced_motion="reduce")
    pair(phone, web_bridge)
    start_thread(phone, "count slowly")
    model.wait_held(0)
    expect(page.locator(".spinner")).to_be_visible()
    names = page.evaluate("""() => ['.spinner', '.state.running .dot', '.msg.agent.streaming .agent-body']
        .map((s) => document.querySelector(s)).filter(Boolean)
        .map((el) => [getComputedStyle(el).animationName, getComputedStyle(el, '::after').animationName])""")
    assert names and all(a == "none" and b == "none" for a, b in names), names
    # Scrolling to the newest message does not animate either.
    behaviors = page.evaluate("""() => { const seen = []; const orig = window.scrollTo;
        window.scrollTo = function (o) { seen.push(typeof o === 'object' ? o.behavior : 'auto'); return orig.apply(this, arguments); };
        window.scrollTo(0, 0); document.querySelector('.jump').hidden = false; document.querySelector('.jump').click();
        window.scrollTo = orig; return seen; }""")
    assert "smooth" not in behaviors, behaviors
    model.open_gate(0)


def test_axe_finds_nothing_serious_on_a_diff_with_an_empty_file(web_bridge, model, phone):
    """Issue 46 item 5: a file whose diff has no lines (a new empty file) left an empty <pre> with an aria-label,
    which axe-core calls aria-prohibited-attr (serious); a file with lines beside it."""
    model.queue({"kind": "exec", "cmd": "touch empty.txt && printf 'one\\n' > one.txt"},
                {"kind": "message", "text": "Made them."})
    page = phone.page
    audit = Audit(phone)
    pair(phone, web_bridge)
    start_thread(phone, "make two files")
    expect(page.locator(".msg.agent")).to_have_text("Made them.")
    phone.button("More").click()
    page.get_by_role("menuitem", name="Diff").click()
    expect(page.locator(".diff-file")).to_have_count(2)
    audit("diff-empty-file")
    assert not audit.found, "\n".join(map(str, audit.found))
    assert not phone.errors
