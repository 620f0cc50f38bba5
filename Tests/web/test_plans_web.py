"""Issue 26 in the browser (phone viewport, real codex against the scripted model): the live plan as a checklist after
the message that started its turn, plan mode's toggle and "Implement this plan", a goal in the header and the list, sub-agents
under their parent with their live status, and Codex's notices as small notes. With WEB_UPDATE_DOCS=1 the screenshots
are copied to docs/."""
import os
import re
import shutil

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from webutil import pair, start_thread, thread_id_of

import conftest

STEPS = [{"step": "Read the date helpers", "status": "completed"},
         {"step": "Parse timestamps as UTC <img src=x onerror=alert(1)>", "status": "in_progress"},
         {"step": "Add a regression test for midnight", "status": "pending"}]
PLAN = """# Split the parser

1. Move the lexer into `lexer.py`, with its own tests.
2. Keep `parse()` as the only public entry point.
3. Run the suite after each step."""


def keep(shots):
    if os.environ.get("WEB_UPDATE_DOCS"):  # WEB_UPDATE_DOCS=1 pytest test_plans_web.py
        docs = conftest.ROOT / "docs"
        docs.mkdir(exist_ok=True)
        for name, path in shots.items():
            shutil.copyfile(path, docs / f"web-{name}.png")


def open_thread(phone, bridge, url):
    pair(phone, bridge)
    phone.page.goto(url)
    expect(phone.page.locator(".composer").get_by_label("Message")).to_be_visible()


AXE = Axe()


def accessible(phone):
    """axe-core finds nothing serious or critical on the page as it is (the accessibility suite's bar)."""
    found = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in AXE.run(phone.page).response["violations"]
             if v["impact"] in ("serious", "critical")]
    assert not found, found


def clean(*phones):
    for phone in phones:
        assert not phone.errors and not phone.csp_violations() and not phone.dialogs, (phone.errors, phone.dialogs)


def test_the_live_plan_is_a_checklist_after_the_message_that_started_its_turn_and_stays(web_bridge, model, phone_factory):
    model.queue({"kind": "update_plan", "plan": STEPS, "explanation": "The bug is the local time zone."},
                {"kind": "slow", "deltas": ["Parsing ", "as UTC ", "now."], "delay": 0.01, "hold_after": [1]})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    start_thread(light, "Fix the flaky date test")
    page = light.page
    model.wait_held(0)
    plan = page.get_by_role("list", name="Plan")
    expect(plan.get_by_role("listitem")).to_have_count(3)
    expect(plan.get_by_role("listitem").first).to_contain_text("Read the date helpers")
    expect(plan.locator(".plan-step.completed")).to_have_count(1)
    expect(plan.locator(".plan-step.inProgress")).to_contain_text("Parse timestamps as UTC")
    # The agent's text is text: the markup in a step is shown, never made an element.
    expect(plan).to_contain_text("<img src=x onerror=alert(1)>")
    expect(page.locator(".turn-plan img")).to_have_count(0)
    expect(page.locator(".turn-plan")).to_contain_text("1 of 3 done")
    expect(page.locator(".turn-plan")).to_contain_text("The bug is the local time zone.")
    # Right after the message that started the turn, before what Codex did for it.
    order = page.evaluate("""() => [...document.querySelector('.turn').querySelectorAll('.msg, .turn-plan')]
        .map((e) => e.classList.contains('turn-plan') ? 'plan' : e.classList.contains('user') ? 'user' : 'agent')""")
    assert order == ["user", "plan", "agent"], order
    expect(page.locator(".turn.running .turn-plan")).to_be_visible()
    open_thread(dark, web_bridge, page.url)
    expect(dark.page.get_by_role("list", name="Plan").get_by_role("listitem")).to_have_count(3)
    shots = {"plan-checklist-light": light.shot("plan-checklist-light"), "plan-checklist-dark": dark.shot("plan-checklist-dark")}
    accessible(light)
    accessible(dark)
    model.open_gate(0)
    expect(page.locator(".msg.agent").last).to_contain_text("as UTC now.")
    expect(page.locator(".turn.running")).to_have_count(0)
    # Kept after the turn, and after a reload (from the bridge: Codex's thread has no plan).
    page.reload()
    expect(page.get_by_role("list", name="Plan").get_by_role("listitem")).to_have_count(3)
    expect(page.locator(".turn-plan")).to_contain_text("1 of 3 done")
    keep(shots)
    clean(light, dark)


PRESET = "Plan: Codex asks and proposes a plan instead of editing (medium reasoning effort)"


def test_plan_mode_toggle_and_implement_this_plan(web_bridge, model, phone_factory):
    model.queue({"kind": "message", "text": "Hello."},
                {"kind": "propose_plan", "text": "Here is how I would split it.", "plan": PLAN},
                {"kind": "message", "text": "Implemented: the lexer has its own module."})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    start_thread(light, "Look at the parser")
    page = light.page
    expect(page.locator(".msg.agent")).to_contain_text("Hello.")
    toggle = light.button("Plan")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    # Named and described from Codex's presets (listCollaborationModes): Codex 0.163's Plan runs at medium effort.
    expect(toggle).to_have_attribute("title", PRESET)
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.get_by_label("Message").fill("How should we split the parser?")
    light.button("Send").click()
    proposed = page.locator(".proposed-plan")
    expect(proposed).to_contain_text("Split the parser")
    expect(proposed.locator("ol li")).to_have_count(3)
    expect(proposed.locator("code").first).to_have_text("lexer.py")
    implement = light.button("Implement this plan")
    expect(implement).to_be_visible()
    assert "Plan Mode" in str(model.requests[-1]["input"])
    # The thread remembers plan mode: another phone opening it has the toggle on.
    open_thread(dark, web_bridge, page.url)
    expect(dark.button("Plan")).to_have_attribute("aria-pressed", "true")
    expect(dark.button("Implement this plan")).to_be_visible()
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    dark.page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    shots = {"plan-mode-light": light.shot("plan-mode-light"), "plan-mode-dark": dark.shot("plan-mode-dark")}
    accessible(light)
    accessible(dark)
    implement.click()
    expect(page.locator(".msg.agent").last).to_contain_text("the lexer has its own module")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert "Collaboration Mode: Default" in str(model.requests[-1]["input"])
    keep(shots)
    clean(light, dark)


def test_a_goal_shows_in_the_header_and_the_list(web_bridge, model, phone_factory):
    model.queue({"kind": "message", "text": "Hello."},
                {"kind": "slow", "deltas": ["Running ", "the date ", "tests."], "delay": 0.01, "hold_after": [1]},
                {"kind": "update_goal", "status": "complete"},
                {"kind": "message", "text": "All date tests pass."})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    start_thread(light, "Check the date tests")
    page = light.page
    expect(page.locator(".msg.agent")).to_contain_text("Hello.")
    light.button("More").click()
    page.get_by_role("menuitem", name="Goal").click()
    page.get_by_label("Objective").fill("Make every date test pass on Mondays")
    page.get_by_label("Token budget").fill("50000")
    accessible(light)  # the goal form
    light.button("Set goal").click()
    goal = page.get_by_label("Goal", exact=True).filter(has_text="Make every date test pass")
    expect(goal).to_contain_text("Active")
    model.wait_held(0)  # Codex works on the goal in a turn of its own
    open_thread(dark, web_bridge, page.url)
    expect(dark.page.locator(".goal-line")).to_contain_text("Make every date test pass on Mondays")
    shots = {"goal-light": light.shot("goal-light"), "goal-dark": dark.shot("goal-dark")}
    accessible(dark)
    model.open_gate(0)
    expect(page.locator(".goal-line")).to_contain_text("Complete", timeout=60_000)
    expect(page.locator(".goal-line")).to_contain_text(re.compile(r"of 50k tokens"))
    light.button("Back").click()
    expect(page.locator(".thread-row .goal-chip")).to_have_text("Goal: Complete")
    # Cleared: gone from the header.
    page.locator(".thread-row").first.click()
    light.button("More").click()
    page.get_by_role("menuitem", name="Goal").click()
    light.button("Clear goal").click()
    expect(page.locator(".goal-line")).to_be_hidden()
    keep(shots)
    clean(light, dark)


def test_sub_agents_are_listed_under_their_parent_with_their_status(web_bridge, model, phone_factory):
    model.queue({"kind": "spawn_agent", "message": "count the files", "when": "spawn a helper"},
                {"kind": "slow", "deltas": ["There are ", "2 files."], "delay": 0.01, "hold_after": [1], "when": "count the files"},
                {"kind": "message", "text": "A helper is counting the files.", "when": "spawn a helper"})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    start_thread(light, "spawn a helper for the inventory")
    page = light.page
    parent_url = page.url
    model.wait_held(0)
    panel = page.get_by_role("navigation", name="Sub-agents")
    expect(panel.get_by_role("link")).to_have_count(1)
    expect(panel).to_contain_text("Running")
    expect(panel).to_contain_text("count the files")
    expect(panel.locator(".subagent-name")).not_to_have_text("Sub-agent")  # Codex's nickname
    open_thread(dark, web_bridge, parent_url)
    expect(dark.page.get_by_role("navigation", name="Sub-agents")).to_contain_text("Running")
    shots = {"subagents-thread-light": light.shot("subagents-thread-light"), "subagents-thread-dark": dark.shot("subagents-thread-dark")}
    accessible(light)
    for name, phone in (("light", light), ("dark", dark)):
        phone.button("Back").click()
        rows = phone.page.locator(".thread-list > li")
        expect(rows).to_have_count(2)
        expect(rows.nth(1)).to_have_class(re.compile(r"sub-agent-row"))
        expect(rows.nth(1)).to_contain_text("count the files")
        expect(rows.nth(0)).to_contain_text("spawn a helper")
        shots[f"subagents-list-{name}"] = phone.shot(f"subagents-list-{name}")
        accessible(phone)
    model.open_gate(0)
    expect(page.locator(".thread-list > li").nth(1)).to_contain_text("Done", timeout=30_000)
    page.locator(".thread-list > li").nth(1).locator("a").click()
    expect(page.locator(".msg.agent")).to_contain_text("There are 2 files.")
    page.goto(parent_url)
    expect(page.get_by_role("navigation", name="Sub-agents")).to_contain_text("Done")
    keep(shots)
    clean(light, dark)


def test_notices_are_small_inline_notes(web_bridge, model, phone):
    model.queue({"kind": "message", "text": "Answered by the fallback.", "served_model": "gpt-fallback"})
    pair(phone, web_bridge)
    start_thread(phone, "hello")
    note = phone.page.locator(".notice")
    expect(note).to_have_text("Model rerouted: mock-model → gpt-fallback (flagged as high-risk cyber activity)")
    expect(phone.page.locator(".msg.agent")).to_contain_text("Answered by the fallback.")
    clean(phone)


def test_a_new_thread_can_start_in_plan_mode(web_bridge, model, phone):
    model.queue({"kind": "propose_plan", "text": "First, a plan.", "plan": PLAN})
    pair(phone, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("Plan the parser split")
    expect(phone.button("Plan")).to_have_attribute("title", PRESET)
    phone.button("Plan").click()
    phone.button("Start").click()
    expect(page.locator(".proposed-plan")).to_contain_text("Split the parser")
    assert "Plan Mode" in str(model.requests[0]["input"])
    expect(phone.button("Plan")).to_have_attribute("aria-pressed", "true")
    clean(phone)


LONG = "\n\n".join(f"Paragraph {i}: the date helpers read the local time zone, so a test at midnight fails." for i in range(30))


def test_the_goal_form_has_visible_labels_and_keeps_the_view(web_bridge, model, phone_factory):
    model.queue({"kind": "message", "text": LONG},
                {"kind": "slow", "deltas": ["Working ", "on the goal."], "delay": 0.01, "hold_after": [1]})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    start_thread(light, "Check the date tests")
    page = light.page
    last = page.locator(".msg.agent").last
    expect(last).to_contain_text("Paragraph 29")
    expect(last).to_be_in_viewport()
    light.button("More").click()
    page.get_by_role("menuitem", name="Goal").click()
    form = page.get_by_role("form", name="Goal")
    expect(form).to_be_in_viewport()
    # Labels a person sees (not only a screen reader), tied to their fields.
    for label in ("Objective", "Token budget (optional)"):
        expect(form.locator("label", has_text=label)).to_be_visible()
    page.get_by_label("Objective").fill("Make every date test pass")
    page.get_by_label("Token budget (optional)").fill("50000")
    open_thread(dark, web_bridge, page.url)
    dark.button("More").click()
    dark.page.get_by_role("menuitem", name="Goal").click()
    dark.page.get_by_label("Objective").fill("Make every date test pass")
    shots = {"goal-form-light": light.shot("goal-form-light"), "goal-form-dark": dark.shot("goal-form-dark")}
    accessible(light)
    accessible(dark)
    light.button("Set goal").click()
    expect(form).to_be_hidden()
    expect(page.locator(".goal-line")).to_contain_text("Make every date test pass")
    model.wait_held(0)
    # The view stays where the person was reading: at the end of the thread, not at its top.
    expect(page.locator(".msg.agent").last).to_be_in_viewport()
    assert page.evaluate("window.scrollY") > 400
    model.open_gate(0)
    keep(shots)
    clean(light, dark)
