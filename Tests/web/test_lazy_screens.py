"""Issue 36 P10 in the browser (the real bridge, a phone viewport): the first paint loads only the thread list's
modules. A rarely used screen (Machines, Devices, Changes, a file, New thread) is fetched when it is first opened,
shows a loading screen meanwhile and says why with Try again when its module cannot be fetched; the thread screen is
fetched in the background once the page has loaded. Cost: ~8 s."""
import re

from playwright.sync_api import expect

from webutil import pair

ON_DEMAND = ["machines-screen.js", "devices-screen.js", "diff-screen.js", "file-screen.js", "new-thread-screen.js",
             "inbox-screen.js", "thread-screen.js", "composer.js", "conversation.js"]


def module(url):
    """The module a request asked for (its name under `v/<version>/`), or None."""
    m = re.search(r"/v/[^/]+/([^/?]+\.js)(\?|$)", url)
    return m and m.group(1)


def test_the_first_paint_loads_only_the_thread_list(web_bridge, phone):
    page = phone.page
    asked = []
    page.on("request", lambda r: asked.append(module(r.url)))
    pair(phone, web_bridge, scopes="all")
    preloaded = page.eval_on_selector_all("link[rel=modulepreload]", "(ls) => ls.map((l) => l.getAttribute('href'))")
    names = {p.rsplit("/", 1)[-1] for p in preloaded}
    assert {"session.js", "threads-screen.js", "connection.js", "loading-screen.js"} <= names, names
    assert not names & set(ON_DEMAND), names & set(ON_DEMAND)
    # Once the page has loaded, the thread screen is fetched in the background; nothing else on demand is.
    page.wait_for_function("() => performance.getEntriesByType('resource').some((e) => /thread-screen\\.js$/.test(e.name))")
    page.wait_for_timeout(300)
    assert {"thread-screen.js", "composer.js", "conversation.js"} <= set(asked)
    assert not {"machines-screen.js", "devices-screen.js", "diff-screen.js", "file-screen.js", "inbox-screen.js"} & set(asked)
    # Opening a screen fetches it: it opens as it did.
    phone.button("Devices").click()
    expect(page.get_by_role("heading", name="Devices", level=1)).to_be_visible()
    assert "devices-screen.js" in asked
    assert not phone.errors and not phone.csp_violations(), phone.errors


def test_a_screen_loaded_on_demand_shows_its_state_and_can_be_retried(web_bridge, phone):
    page = phone.page
    pair(phone, web_bridge, scopes="all")
    held = []
    # Fault injection: the Machines module's request is held (a slow link), then refused (the workstation gone).
    page.route(re.compile(r"/v/[^/]+/machines-screen\.js"), lambda route: held.append(route))
    phone.button("Machines").click()
    expect(page.locator(".loading-screen")).to_contain_text("Loading…")
    expect(page.get_by_role("heading", name="Machines")).to_be_focused()  # the screen moved: focus on its title
    phone.shot("lazy-loading")
    while not held:
        page.wait_for_timeout(50)
    held.pop().abort()
    expect(page.locator(".loading-screen")).to_contain_text("Machines could not be loaded: the workstation did not send it.")
    phone.shot("lazy-failed")
    page.unroute(re.compile(r"/v/[^/]+/machines-screen\.js"))
    phone.button("Try again").click()
    expect(page.locator(".loading-screen")).to_have_count(0)
    expect(page.get_by_role("heading", name="Machines")).to_be_visible()
    # Back from the loaded screen goes to the list, as before; opening it again needs no request.
    phone.button("Back").click()
    expect(phone.button("New thread")).to_be_visible()
    phone.button("Machines").click()
    expect(page.get_by_role("heading", name="Machines")).to_be_visible()
    expect(page.locator(".loading-screen")).to_have_count(0)
    # A page error from the failed fetch is expected; nothing else.
    assert all("machines-screen" in e or "dynamically imported module" in e for e in phone.errors), phone.errors
