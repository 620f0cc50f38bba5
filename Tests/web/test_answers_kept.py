"""Issue 37 item 4: an approval and a question stay in the thread with their answer, who gave it (the device's
name) and when: after leaving the thread and coming back, after a reload, and on another phone that reloads.
The bridge's answers carry `deviceName`/`at` (and a question's answer); `readThread` returns the thread's
journaled approvals and questions. Axe on the answered cards, light and dark; the question again in WebKit.
Cost: ~8 s (Chromium) + ~3 s (WebKit)."""
import re

from playwright.sync_api import expect
from selenium.webdriver.common.by import By

from test_accessibility import Audit
from test_webkit import CATCH_ERRORS, display, shot, webkit_factory  # noqa: F401 (fixtures)
from webutil import pair, pairing_url

QUESTION = {"id": "colour", "header": "Colour", "question": "Which colour should it be?",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}
CMD = "touch approved.txt"
WHEN = r" at \d{1,2}:\d{2}( [AP]M)?"


def cards_say(page, who):
    """Both cards are there, each with what was asked, the answer, who gave it and when."""
    approval = page.locator(".approval:not(.question-card)")
    expect(approval).to_have_count(1)
    expect(approval).to_contain_text(CMD)
    expect(approval.locator(".approval-outcome")).to_have_text(re.compile(rf"^Approved {who}{WHEN}\.$"))
    question = page.locator(".question-card")
    expect(question).to_have_count(1)
    expect(question).to_contain_text("Which colour should it be?")
    expect(question.locator(".question-answer")).to_have_text(["Blue"])
    expect(question.locator(".approval-outcome")).to_have_text(re.compile(rf"^Answered {who}{WHEN}\.$"))
    expect(page.get_by_role("button", name="Approve")).to_have_count(0)
    expect(page.get_by_role("button", name="Send answer")).to_have_count(0)
    # Where it came: the question before the agent's reply to it (after a reload it sat after the reply).
    order = page.evaluate("""() => { const q = document.querySelector('.question-card');
        const reply = [...document.querySelectorAll('.msg.agent')].pop();
        return q && reply ? Boolean(q.compareDocumentPosition(reply) & Node.DOCUMENT_POSITION_FOLLOWING) : null; }""")
    assert order is True, "the question card is not before the agent's reply"


def test_approvals_and_answers_stay_in_the_thread(web_bridge, model, phone_factory, workspace):
    model.queue({"kind": "exec", "cmd": CMD}, {"kind": "ask", "questions": [QUESTION]}, {"kind": "echo_output"})
    phone, other = phone_factory(), phone_factory(color_scheme="dark")
    pair(phone, web_bridge)
    pair(other, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("touch a file, then ask me")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    phone.button("Start").click()
    phone.button("Approve").click()
    page.locator(".question-card").get_by_text("Blue", exact=True).click()
    phone.button("Send answer").click()
    expect(page.locator(".msg.agent").last).to_contain_text("Blue", timeout=30_000)
    expect(phone.button("Stop")).to_have_count(0)
    assert (workspace / "approved.txt").exists()
    cards_say(page, "by this phone")

    # Away and back: the cards are still there.
    phone.button("Back").click()
    page.locator(".thread-row").first.click()
    cards_say(page, "by this phone")
    # Reloaded: read again from the bridge.
    page.reload()
    expect(phone.status()).to_have_text("Connected")
    cards_say(page, "by this phone")
    expect(page.locator(".msg.user")).to_have_text(["touch a file, then ask me"])
    page.locator(".question-card").scroll_into_view_if_needed()
    phone.shot("answers-kept-light")

    # The other phone, reloaded: it names the phone that answered.
    other.page.reload()
    expect(other.status()).to_have_text("Connected")
    other.page.locator(".thread-row").first.click()
    cards_say(other.page, "by Safari on iPhone")
    other.page.locator(".question-card").scroll_into_view_if_needed()
    other.shot("answers-kept-dark")

    audit = Audit(phone)
    audit("answers-kept")
    assert not audit.found, audit.found
    assert not phone.errors and not other.errors


def test_an_answered_question_is_kept_after_a_reload_in_webkit(web_bridge, model, webkit_factory):  # noqa: F811
    """The same in WebKit (Safari's engine): answered, reloaded, the card still has the question, the answer, who
    and when. Cost: ~3 s."""
    model.queue({"kind": "ask", "questions": [QUESTION]}, {"kind": "echo_output"})
    phone = webkit_factory()
    driver = phone.driver
    driver.get(pairing_url(web_bridge))
    phone.wait_status("Connected")
    phone.click("New thread")
    phone.click("Use this folder")
    phone.labelled("Message").send_keys("ask me")
    phone.click("Start")
    question = phone.wait(lambda: phone.visible(".question-card"), what="the question card")[0]
    phone.click(question.find_element(By.XPATH, ".//label[.//span[normalize-space(.)='Blue']]"))
    phone.click("Send answer")
    phone.wait_text(".msg.agent", lambda t: len(t) == 1 and "Blue" in t[0], timeout=30, what="the echoed answer")
    driver.refresh()
    phone.js(CATCH_ERRORS)
    phone.wait_status("Connected")
    card = phone.wait_text(".question-card", lambda t: len(t) == 1 and "Blue" in t[0], what="the card after the reload")[0]
    assert "Which colour should it be?" in card, card
    assert re.search(rf"Answered by this phone{WHEN}\.", card), card
    assert phone.text_of(".question-card .question-answer") == ["Blue"]
    assert not phone.has_button("Send answer")
    shot(phone, "answers-kept")
    assert phone.js("return window.__errors || []") == []
