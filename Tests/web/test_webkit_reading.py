"""Issue 37 items 9 and 10 in WebKit (Safari's engine; WebKitGTK's MiniBrowser through Selenium, test_webkit.py's
fixtures): an answer streamed in pieces that cut words never shows a word broken across lines, and the list still
shows the last answer's line after a reload. Cost: ~8 s."""
import re

from test_webkit import CATCH_ERRORS, display, webkit_factory  # noqa: F401 (fixtures)
from webutil import pairing_url

DELTAS = ["Hello wor", "ld, this ", "is a para", "graph that ", "streams in ", "small pie", "ces to the ", "end."]


def test_streaming_and_the_list_after_a_reload_in_webkit(web_bridge, model, webkit_factory):  # noqa: F811
    model.queue({"kind": "slow", "deltas": DELTAS, "delay": 0.12, "hold_after": [1]})
    phone = webkit_factory()
    driver = phone.driver
    driver.get(pairing_url(web_bridge))
    phone.js(CATCH_ERRORS)
    phone.wait_status("Connected")
    phone.click("New thread")
    phone.click("Use this folder")
    phone.labelled("Message").send_keys("stream a paragraph")
    phone.click("Start")
    phone.wait(lambda: "#/t/" in driver.current_url, what="the thread screen")
    model.wait_held(0)
    # What the page shows after every change (WebKitGTK under Xvfb runs few animation frames: a MutationObserver).
    phone.js("""window.__seen = new Set(); const look = () => {
        const m = document.querySelector('.msg.agent'); if (m) window.__seen.add(m.innerText.trim()); };
        window.__watch = new MutationObserver(look);
        window.__watch.observe(document.body, { childList: true, subtree: true, characterData: true }); look();""")
    model.open_gate(0)
    whole = "".join(DELTAS)
    phone.wait_text(".msg.agent", lambda t: t == [whole], what="the whole answer")
    phone.wait(lambda: not phone.visible(".msg.agent.streaming"), what="the answer no longer streaming")
    seen = phone.js("window.__watch.disconnect(); return Array.from(window.__seen)")
    assert len(seen) >= 3, seen
    assert not [s for s in seen if "\n" in s], seen
    # The list, reloaded: the row still shows the answer's last line.
    phone.click("Back")
    phone.wait_text(".thread-row .row-answer", lambda t: t == [whole], what="the answer on the row")
    driver.refresh()
    phone.wait_status("Connected")
    phone.wait_text(".thread-row .row-title", lambda t: t == ["stream a paragraph"], what="the row after the reload")
    phone.wait_text(".thread-row .row-answer", lambda t: t == [whole], what="the answer on the row after the reload")
    assert re.search(r"#/$", driver.current_url) or driver.current_url.endswith("/")
    assert phone.js("return window.__errors || []") == []
