"""Issue 34's `revertThread` on a phone (390×844, real codex against the scripted model): Revert in a thread's More
menu offers its last turns by their prompts and says before anything happens that files are not reverted; Cancel
keeps them; Revert removes the chosen turns on this phone and on another phone that has the thread open (both say
so in the thread), and the next answer is written without them. axe-core clean, screenshots light and dark.
Cost: ~15 s."""
from playwright.sync_api import expect

from test_housekeeping_web import clean, serious, thread_menu
from webutil import pair, start_thread


def test_revert_the_last_turn(web_bridge, model, phone_factory, workspace):
    model.queue({"kind": "message", "text": "Planted the tulips.", "when": "tulips"},
                {"kind": "message", "text": "Painted the fence.", "when": "fence"},
                {"kind": "message", "text": "Watered the garden.", "when": "water"})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    pair(dark, web_bridge)
    page = light.page
    start_thread(light, "plant the tulips")
    expect(page.locator(".msg.agent")).to_contain_text("Planted the tulips.")
    page.get_by_label("Message").fill("paint the fence")
    light.button("Send").click()
    expect(page.locator(".msg.agent").nth(1)).to_contain_text("Painted the fence.")
    dark.page.locator(".thread-row").filter(has_text="plant the tulips").click()
    expect(dark.page.locator(".msg.agent")).to_have_count(2)

    # The question: which of the last turns, and that files stay as they are. Cancel keeps everything.
    thread_menu(light, "Revert")
    question = page.get_by_role("form", name="Revert the last turns?")
    expect(question).to_be_visible()
    expect(question.get_by_text("Files are not reverted.")).to_be_visible()
    expect(light.button("Cancel")).to_be_focused()
    choice = question.get_by_label("Remove")
    labels = [o.text_content() for o in choice.locator("option").all()]
    assert labels == ["The last turn, from “paint the fence”", "The last 2 turns, from “plant the tulips”"], labels
    assert serious(page) == []
    light.shot("thread-revert-light")
    thread_menu(dark, "Revert")
    expect(dark.page.get_by_role("form", name="Revert the last turns?")).to_be_visible()
    dark.shot("thread-revert-dark")
    dark.button("Cancel").click()
    light.button("Cancel").click()
    expect(question).to_be_hidden()
    expect(page.locator(".msg.agent")).to_have_count(2)

    # Revert the last turn: gone here and on the other phone, both say so; the next answer is written without it.
    thread_menu(light, "Revert")
    question.get_by_role("button", name="Revert").click()
    expect(page.get_by_role("alert").filter(has_text="Reverted. Files were not changed.")).to_be_visible()
    for phone in (light, dark):
        expect(phone.page.locator(".msg.agent")).to_have_count(1)
        expect(phone.page.locator(".msg.agent")).to_contain_text("Planted the tulips.")
        expect(phone.page.locator(".revert-note")).to_contain_text("Files were not changed.")
    assert serious(dark.page) == []
    dark.shot("thread-reverted-dark")
    page.get_by_label("Message").fill("water the garden")
    light.button("Send").click()
    expect(page.locator(".msg.agent").nth(1)).to_contain_text("Watered the garden.")
    sent = str(model.requests[-1]["input"])
    assert "plant the tulips" in sent and "paint the fence" not in sent, sent
    light.shot("thread-reverted-light")
    clean(light, dark)
