"""Issue 37 item 9, the thread list on a phone (390×844, real codex against the scripted model): rename and archive a
thread from the app (`renameThread`, `archiveThread`, and `unarchiveThread` from the archived list), the last answer's line still on its row after a reload, a
search box that filters the list, the branch on each row, and the "Add to Home Screen" hint small and put away for
good. Screenshots in light and dark go to the artifacts. Cost: ~11 s."""
import subprocess

from playwright.sync_api import expect

from webutil import pair, start_thread


def clean(*phones):
    for phone in phones:
        assert not phone.errors and not phone.csp_violations() and not phone.dialogs, (phone.errors, phone.dialogs)


def thread_menu(phone, name):
    phone.button("More").click()
    phone.page.get_by_role("menuitem", name=name, exact=True).click()


def test_rename_archive_search_and_previews_after_a_reload(web_bridge, model, phone_factory, workspace):
    model.queue({"kind": "message", "text": "The parser now reads **UTC**.", "when": "date parser"},
                {"kind": "message", "text": "README updated.", "when": "README",
                 "rate_limits": {"primary": [12, 300], "secondary": [3, 10080]}})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    page = light.page
    start_thread(light, "fix the date parser")
    expect(page.locator(".msg.agent")).to_contain_text("The parser now reads UTC.")
    # Rename: a labelled field in the thread, the header and the list follow, and a reload keeps it.
    thread_menu(light, "Rename")
    field = page.get_by_label("Thread name")
    expect(field).to_have_value("fix the date parser")
    field.fill("Dates <b>in UTC</b>")
    light.button("Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Dates <b>in UTC</b>")
    expect(field).to_be_hidden()
    light.button("Back").click()
    start_thread(light, "update the README")
    expect(page.locator(".msg.agent")).to_contain_text("README updated.")
    light.button("Back").click()
    rows = page.locator(".thread-row")
    expect(rows).to_have_count(2)
    # The account's rate-limit windows, as Codex pushed them after that answer (issue 34 item 3).
    expect(page.locator(".usage-line")).to_have_text("Usage: 5 h 12% · 7 d 3%")
    light.shot("thread-list-usage-light")
    page.emulate_media(color_scheme="dark")
    light.shot("thread-list-usage-dark")
    page.emulate_media(color_scheme="light")
    page.reload()
    expect(rows).to_have_count(2)
    dates = rows.filter(has_text="Dates <b>in UTC</b>")
    expect(dates).to_have_count(1)
    expect(page.locator(".thread-row b")).to_have_count(0)
    # The last answer's line survives the reload (this phone saw it).
    expect(dates.locator(".row-answer")).to_have_text("The parser now reads UTC.")
    expect(rows.filter(has_text="update the README").locator(".row-answer")).to_have_text("README updated.")
    # Each row names the git branch Codex recorded for the thread's folder (listThreads' `branch`).
    branch = subprocess.run(["git", "-C", str(workspace), "branch", "--show-current"], capture_output=True, text=True,
                            check=True).stdout.strip()
    expect(dates.locator(".row-branch")).to_have_text(branch)
    # Search: filters as the person types, by name, prompt, answer or folder; says when nothing matches.
    search = page.get_by_role("searchbox", name="Search threads")
    search.fill("utc")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("Dates")
    search.fill("readme")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("update the README")
    search.fill("no such thread")
    expect(rows).to_have_count(0)
    expect(page.get_by_text("No thread matches")).to_be_visible()
    search.fill("")
    expect(rows).to_have_count(2)
    pair(dark, web_bridge)
    expect(dark.page.locator(".thread-row")).to_have_count(2)
    expect(dark.page.get_by_role("searchbox", name="Search threads")).to_be_visible()
    light.shot("thread-list-search-light")
    dark.shot("thread-list-search-dark")
    # Archive: the thread leaves the list, here and after a reload.
    rows.filter(has_text="update the README").click()
    expect(light.button("Send")).to_be_visible()
    thread_menu(light, "Archive")
    expect(page.get_by_role("heading", level=1)).not_to_have_text("update the README")
    expect(rows).to_have_count(1)
    expect(page.get_by_role("alert").filter(has_text="Archived")).to_be_visible()
    page.reload()
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("Dates")
    # Archived threads, on request at the end of the list; Unarchive puts one back.
    light.button("Archived threads").click()
    archived = page.get_by_role("list", name="Archived threads").get_by_role("listitem")
    expect(archived).to_have_count(1)
    expect(archived).to_contain_text("update the README")
    light.shot("thread-list-archived-light")
    page.get_by_role("button", name="Unarchive update the README").click()
    expect(rows).to_have_count(2)
    expect(archived).to_have_count(0)
    page.reload()
    expect(rows).to_have_count(2)
    clean(light, dark)


def test_the_home_screen_hint_is_small_and_goes_for_good(web_bridge, phone_factory):
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, web_bridge)
    pair(dark, web_bridge)
    page = light.page
    hint = page.locator(".notify-bar")
    expect(hint).to_contain_text("add this app to the Home Screen")
    box = hint.bounding_box()
    assert box["height"] <= 64, box
    hide = light.button("Hide")
    size = hide.bounding_box()
    assert size["width"] >= 44 and size["height"] >= 44, size
    light.shot("home-screen-hint-light")
    dark.shot("home-screen-hint-dark")
    hide.click()
    expect(hint).to_be_hidden()
    page.reload()
    expect(light.button("New thread")).to_be_visible()
    expect(page.get_by_text("add this app to the Home Screen")).to_be_hidden()
    clean(light, dark)
