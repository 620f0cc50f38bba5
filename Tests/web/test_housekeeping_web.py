"""Issue 34 on a phone (390×844, real codex against the scripted model): search the workstation's threads from the
list (`searchThreads`: an answer's words find the thread, with the matching text on its row), change the model and
effort of an open thread (Settings, `updateThreadSettings`), Compact (the compaction shows in the thread), an
automatic reviewer's decision shown in the thread (and overridden with Approve anyway), and Delete, which asks first and takes the thread off this
phone's list and another phone's. axe-core clean on each new sheet; screenshots light and dark. Cost: ~25 s."""
import json

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from webutil import pair, start_thread

AXE = Axe()


def thread_menu(phone, name):
    phone.button("More").click()
    phone.page.get_by_role("menuitem", name=name, exact=True).click()


def serious(page):
    found = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found += [(scheme, v["id"], [n["target"] for n in v["nodes"]][:3]) for v in AXE.run(page).response["violations"]
                  if v["impact"] in ("serious", "critical")]
    page.emulate_media(color_scheme="light")
    return found


def clean(*phones):
    for phone in phones:
        assert not phone.errors and not phone.csp_violations() and not phone.dialogs, (phone.errors, phone.dialogs)


def test_search_settings_compact_and_delete(web_bridge, model, phone_factory, workspace):
    model.queue({"kind": "message", "text": "The quokka lives on Rottnest.", "when": "animal"},
                {"kind": "message", "text": "Dark mode done.", "when": "dark mode"})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    page = light.page
    start_thread(light, "tell me about an animal")
    expect(page.locator(".msg.agent")).to_contain_text("Rottnest")
    light.button("Back").click()
    start_thread(light, "add a dark mode")
    expect(page.locator(".msg.agent")).to_contain_text("Dark mode done.")

    # Settings: the thread's model and effort for its next turns; Codex confirms and the next turn uses them.
    thread_menu(light, "Settings")
    model_field = page.get_by_label("Model", exact=True)
    expect(model_field).to_be_visible()
    options = model_field.locator("option")
    expect(options.first).to_be_attached()
    values = [o.get_attribute("value") for o in options.all()]
    chosen = next(v for v in values if v != "mock-model")
    model_field.select_option(chosen)
    effort_field = page.get_by_label("Effort", exact=True)
    efforts = [o.get_attribute("value") for o in effort_field.locator("option").all()]
    effort_field.select_option(efforts[0])
    # Permissions: Codex's profiles for this thread, the one this workstation does not allow shown but not offered.
    permissions = page.get_by_label("Permissions", exact=True)
    expect(permissions.locator("option[value=':read-only']")).to_be_enabled()
    expect(permissions.locator("option[value=':danger-full-access']")).to_be_disabled()
    expect(permissions.locator("option[value=':danger-full-access']")).to_contain_text("not allowed here")
    assert permissions.input_value() == ""
    permissions.select_option(":read-only")
    assert serious(page) == []
    light.shot("thread-settings-light")
    page.emulate_media(color_scheme="dark")
    light.shot("thread-settings-dark")
    page.emulate_media(color_scheme="light")
    light.button("Save").click()
    expect(page.get_by_role("alert").filter(has_text="Settings saved")).to_be_visible()
    expect(page.locator(".settings-form")).to_be_hidden()
    page.get_by_label("Message").fill("and the dark mode toggle")
    light.button("Send").click()
    expect(page.locator(".msg.agent").nth(1)).to_be_visible()
    assert model.requests[-1]["model"] == chosen, model.requests[-1]["model"]
    # Read only now: in the environment Codex describes to the model, the workspace is no longer writable.
    contexts = [json.dumps(i) for i in model.requests[-1]["input"] if "<environment_context>" in json.dumps(i)]
    writable = f'access=\\"write\\"><path>{workspace}</path>'
    assert writable in contexts[0] and writable not in contexts[-1], contexts[-1]
    assert model.requests[-1]["reasoning"]["effort"] == efforts[0]

    # Tools: the thread's MCP servers and hooks as Codex reports them (none configured here), in a sheet.
    thread_menu(light, "Tools")
    tools = page.get_by_role("region", name="Tools")
    expect(tools.get_by_text("MCP servers")).to_be_visible()
    expect(tools.get_by_text("None configured.")).to_be_visible()
    expect(tools.get_by_text("Hooks")).to_be_visible()
    assert serious(page) == []
    light.shot("thread-tools-light")
    page.emulate_media(color_scheme="dark")
    light.shot("thread-tools-dark")
    page.emulate_media(color_scheme="light")
    tools.get_by_role("button", name="Close").click()
    expect(tools).to_be_hidden()

    # Compact: a turn of Codex's own, shown as "Context compacted".
    thread_menu(light, "Compact")
    expect(page.locator(".other-item").filter(has_text="Context compacted")).to_be_visible()

    # Search from the list: a word only in an answer finds the thread on the workstation, with the text around it.
    light.button("Back").click()
    rows = page.locator(".thread-row")
    expect(rows).to_have_count(2)
    search = page.get_by_role("searchbox", name="Search threads")
    search.fill("rottnest")
    expect(rows).to_have_count(1)
    expect(rows.locator(".row-snippet")).to_contain_text("Rottnest")
    pair(dark, web_bridge)
    dark.page.get_by_role("searchbox", name="Search threads").fill("rottnest")
    expect(dark.page.locator(".row-snippet")).to_contain_text("Rottnest")
    assert serious(page) == []
    light.shot("thread-search-workstation-light")
    dark.shot("thread-search-workstation-dark")
    search.fill("no such word at all")
    expect(page.get_by_text("Nothing on the workstation matches either.")).to_be_visible()
    search.fill("")
    dark.page.get_by_role("searchbox", name="Search threads").fill("")
    expect(dark.page.locator(".thread-row")).to_have_count(2)

    # Delete: asks first (Cancel keeps it), then the thread leaves this list and the other phone's.
    rows.filter(has_text="add a dark mode").click()
    thread_menu(light, "Delete")
    question = page.get_by_role("form", name="Delete this thread?")
    expect(question).to_be_visible()
    expect(light.button("Cancel")).to_be_focused()
    assert serious(page) == []
    light.shot("thread-delete-light")
    light.button("Cancel").click()
    expect(question).to_be_hidden()
    thread_menu(light, "Delete")
    light.button("Delete thread").click()
    expect(page.get_by_role("alert").filter(has_text="Thread deleted")).to_be_visible()
    expect(rows).to_have_count(1)
    expect(dark.page.locator(".thread-row")).to_have_count(1)
    expect(dark.page.locator(".thread-row")).to_contain_text("animal")
    page.reload()
    expect(rows).to_have_count(1)
    clean(light, dark)


def test_an_automatic_review_shows_in_the_thread(web_bridge, model, phone_factory, workspace):
    verdict = {"outcome": "deny", "risk_level": "high", "rationale": "Writes outside the sandbox."}
    model.queue({"kind": "exec", "cmd": "touch reviewed.txt", "sandbox_permissions": "require_escalated",
                 "justification": "needs it", "when": "touch"},
                {"kind": "message", "text": json.dumps(verdict), "when": ">>> APPROVAL REQUEST START"},
                {"kind": "message", "text": "I could not touch it.", "when": "touch"})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    pair(dark, web_bridge)
    page = light.page
    start_thread(light, "hello")
    expect(page.locator(".msg.agent")).to_be_visible()
    # The other phone follows the thread live.
    dark.page.locator(".thread-row").filter(has_text="hello").click()
    expect(dark.page.locator(".msg.agent")).to_be_visible()
    thread_menu(light, "Settings")
    page.get_by_label("Approvals", exact=True).select_option("auto_review")
    light.button("Save").click()
    expect(page.get_by_role("alert").filter(has_text="Settings saved")).to_be_visible()
    page.get_by_label("Message").fill("touch the file")
    light.button("Send").click()
    text = "Auto-review denied “/bin/bash -lc 'touch reviewed.txt'”, high risk: Writes outside the sandbox."
    expect(page.locator(".notice-review-denied")).to_have_text(text)
    expect(dark.page.locator(".notice-review-denied")).to_have_text(text)
    expect(page.locator(".msg.agent").last).to_contain_text("I could not touch it.")
    expect(page.locator(".approval-card")).to_have_count(0)
    assert not (workspace / "reviewed.txt").exists()
    assert serious(page) == []
    light.shot("thread-auto-review-light")
    dark.shot("thread-auto-review-dark")
    # A person overrides the denial (approveDeniedAction); every phone says so, and the button goes.
    light.button("Approve anyway").click()
    expect(page.locator(".review-override")).to_have_text("You approved it; Codex may try it again.")
    expect(dark.page.locator(".review-override")).to_have_text("Approved by a person; Codex may try it again.")
    expect(light.button("Approve anyway")).to_be_hidden()
    expect(dark.button("Approve anyway")).to_be_hidden()
    dark.shot("thread-auto-review-approved-dark")
    clean(light, dark)
