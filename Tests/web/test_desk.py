"""Issue 24 in the browser (phone viewport, real codex against the scripted model, real git and a bare remote):
the Changes screen's git panel (Write with Codex, Commit, Push, the compare page, one-line errors and the
"Let Codex commit" way past a hook), `!command` cards (output, exit code, Stop) and New thread → New worktree.
Screenshots of each, light and dark (docs/ with WEB_UPDATE_DOCS=1). Cost: ~40 s."""
import os
import re
import shutil
import subprocess

import pytest
from playwright.sync_api import expect

from webutil import bridge_codex_args, bridge_env, codex_bin, pair, start_thread

import conftest

DOCS = {}  # name -> artifact path, copied to docs/ with WEB_UPDATE_DOCS=1


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def desk_bridge(bridge_factory, model, codex_home, workspace, tmp_path):
    """A bridge with a home of its own (the user's git identity) and a workspace whose origin is on GitHub by name
    but pushes to a bare repository on disk."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Ana\n\temail = ana@example.com\n")
    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(bare))
    git("-C", str(workspace), "remote", "add", "origin", "https://github.com/ana/app.git")
    git("-C", str(workspace), "config", "remote.origin.pushurl", f"file://{bare}")
    env = bridge_env(codex_home)
    env["HOME"] = str(home)
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port)]
    return bridge_factory(name="desk-state", args=args, env=env)


def open_changes(phone):
    """The thread's More menu → Diff (the Changes screen)."""
    phone.button("More").click()
    phone.page.get_by_role("menuitem", name="Diff").click()
    expect(phone.page.get_by_role("heading", name="Changes")).to_be_visible()


def shot(phone, name):
    DOCS[name] = phone.shot(name)


def test_commit_and_push_from_the_changes_screen(desk_bridge, model, phone_factory, workspace):
    model.queue({"kind": "message", "text": "Changed the parser."})
    phone = phone_factory()
    pair(phone, desk_bridge, scopes="all")  # push needs publish, !commands need run (issue 25)
    start_thread(phone, "make the parser use UTC")
    page = phone.page
    expect(page.locator(".msg.agent")).to_contain_text("Changed the parser.")
    (workspace / "tracked.txt").write_text("parsed in UTC\n")
    (workspace / "dates.py").write_text("from datetime import timezone\n")
    open_changes(phone)
    panel = page.get_by_role("region", name="Git")
    expect(panel).to_contain_text(re.compile(r"master|main"))
    expect(panel).to_contain_text("2 changed files · not pushed yet")
    expect(panel.locator(".git-repository")).to_have_text(f"Repository {workspace}")  # which repository commits go to
    # Nothing to make a pull request from yet (issue 37 item 7: not before the branch is pushed, never from main).
    expect(panel.get_by_role("link", name="Open compare page")).to_have_count(0)

    model.queue({"kind": "message", "text": "Parse dates in UTC\n\nThe parser assumed local time."})
    phone.button("Write with Codex").click()
    box = page.get_by_label("Commit message")
    expect(box).to_have_value("Parse dates in UTC\n\nThe parser assumed local time.")
    shot(phone, "git-changes-light")
    phone.button("Commit").click()
    expect(panel).to_contain_text(re.compile(r"Committed [0-9a-f]{7} on (master|main)\."))
    expect(panel).to_contain_text("No changes")
    expect(panel.locator(".git-next")).to_have_text(re.compile(r"Next: Push to origin publishes (master|main)\."))
    expect(page.locator(".diff-file")).to_have_count(0)
    assert git("-C", str(workspace), "log", "-1", "--format=%an: %s") == "Ana: Parse dates in UTC"
    phone.button("Push to origin").click()
    expect(panel).to_contain_text(re.compile(r"Pushed to origin/(master|main)\."))
    expect(panel).to_contain_text(re.compile(r"up to date with origin/(master|main)"))
    # Up to date on main: nothing to push, no pull request from main.
    expect(panel.get_by_role("button", name="Push")).to_be_disabled()
    expect(panel.get_by_role("link", name="Open compare page")).to_have_count(0)
    expect(panel.locator(".git-next")).to_have_text("Nothing to commit or push.")
    # A branch: commit, push, then (and only then) the pull request.
    git("-C", str(workspace), "checkout", "-q", "-b", "utc-fix")
    (workspace / "dates.py").write_text("from datetime import timezone, datetime\n")
    page.reload()
    expect(panel).to_contain_text("1 changed file · not pushed yet")
    expect(panel.get_by_role("link", name="Open compare page")).to_have_count(0)
    box.fill("Import datetime")
    phone.button("Commit").click()
    expect(panel.locator(".git-next")).to_have_text("Next: Push to origin publishes utc-fix.")
    phone.button("Push to origin").click()
    expect(panel).to_contain_text("up to date with origin/utc-fix")
    expect(panel.locator(".git-next")).to_have_text("Next: open a pull request for this branch.")
    expect(panel.get_by_role("link", name="Open compare page")).to_have_attribute(
        "href", re.compile(r"^https://github\.com/ana/app/compare/utc-fix\?expand=1$"))
    shot(phone, "git-pull-request-light")
    page.emulate_media(color_scheme="dark")
    shot(phone, "git-pull-request-dark")
    page.emulate_media(color_scheme="light")

    # A hook the user relies on: the refusal is one line, and Codex can commit instead (a normal turn).
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    (workspace / "tracked.txt").write_text("again\n")
    page.reload()
    expect(panel).to_contain_text("1 changed file")
    box.fill("Another change")
    phone.button("Commit").click()
    error = panel.get_by_role("alert")
    expect(error).to_contain_text("pre-commit hook")
    assert "\n" not in error.inner_text()
    shot(phone, "git-hook-refused-light")
    model.queue({"kind": "message", "text": "I will commit it."})
    phone.button("Let Codex commit").click()
    page.wait_for_url(re.compile(r"#/t/[^/]+$"))
    expect(page.locator(".msg.user").last).to_contain_text("Another change")
    assert not phone.errors and not phone.csp_violations()

    dark = phone_factory(color_scheme="dark")
    pair(dark, desk_bridge, scopes="all")
    dark.page.goto(page.url + "/diff")
    expect(dark.page.get_by_role("region", name="Git")).to_contain_text("1 changed file")
    dark.page.get_by_label("Commit message").fill("Parse dates in UTC\n\nThe parser assumed local time.")
    shot(dark, "git-changes-dark")


def test_a_command_card_streams_and_stops(desk_bridge, model, phone_factory):
    model.queue({"kind": "message", "text": "ready"})
    phone = phone_factory()
    pair(phone, desk_bridge, scopes="all")  # push needs publish, !commands need run (issue 25)
    start_thread(phone, "hello")
    page = phone.page
    expect(page.locator(".msg.agent")).to_contain_text("ready")
    page.get_by_label("Message").fill("!printf 'line one\\nline two\\n'; ls; exit 3")
    phone.button("Send").click()
    card = page.locator(".command-card").first
    expect(card.locator(".command-output")).to_contain_text("line one\nline two\n")
    expect(card.locator(".command-output")).to_contain_text("tracked.txt")
    expect(card.locator(".command-status")).to_have_text("Exit 3")
    expect(page.locator(".msg.user")).to_have_count(1)  # not sent to the agent
    page.get_by_label("Message").fill("!echo started; sleep 30")
    phone.button("Send").click()
    running = page.locator(".command-card").nth(1)
    expect(running.locator(".command-output")).to_have_text("started\n")
    expect(running.locator(".command-status")).to_have_text("Running…")
    shot(phone, "command-card-light")
    running.get_by_role("button", name="Stop command").click()
    expect(running.locator(".command-status")).to_have_text("Stopped")
    expect(running.get_by_role("button", name="Stop command")).to_be_hidden()

    dark = phone_factory(color_scheme="dark")
    pair(dark, desk_bridge, scopes="all")
    dark.page.goto(page.url)
    expect(dark.page.locator(".command-card")).to_have_count(0)  # a fresh page knows only what it saw
    dark.page.get_by_label("Message").fill("!echo from the dark phone; exit 1")
    dark.button("Send").click()
    expect(dark.page.locator(".command-card .command-status")).to_have_text("Exit 1")
    expect(page.locator(".command-card")).to_have_count(3)  # the first phone sees it live too
    shot(dark, "command-card-dark")
    assert not phone.errors and not dark.errors and not phone.csp_violations()


def test_new_thread_in_a_new_worktree(desk_bridge, model, phone_factory, workspace):
    model.queue({"kind": "message", "text": "on the branch"})
    phone = phone_factory()
    pair(phone, desk_bridge, scopes="all")  # push needs publish, !commands need run (issue 25)
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("fix the dates on a branch")
    page.get_by_text("Options").click()
    branch = page.get_by_label("Branch")
    expect(branch).to_be_disabled()
    page.get_by_label("New worktree").check()
    branch.fill("fix/dates")
    shot(phone, "new-worktree-light")
    phone.button("Start").click()
    page.wait_for_url(re.compile(r"#/t/"))
    expect(page.locator(".msg.agent")).to_contain_text("on the branch")
    worktree = workspace / ".codex-worktrees" / "fix-dates"
    assert (worktree / "tracked.txt").exists()
    assert git("-C", str(worktree), "branch", "--show-current") == "fix/dates"
    open_changes(phone)
    expect(page.get_by_role("region", name="Git")).to_contain_text("fix/dates")
    expect(page.locator(".git-repository")).to_have_text(f"Worktree {worktree} of {workspace}")

    # The same branch again: one readable line, and nothing starts.
    phone.button("Back").click()
    phone.button("Back").click()
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("again")
    page.get_by_text("Options").click()
    page.get_by_label("New worktree").check()
    page.get_by_label("Branch").fill("fix/dates")
    phone.button("Start").click()
    expect(page.locator(".toast")).to_contain_text("Could not start: branch fix/dates already exists")
    expect(page).not_to_have_url(re.compile(r"#/t/"))

    dark = phone_factory(color_scheme="dark")
    pair(dark, desk_bridge, scopes="all")
    dark.button("New thread").click()
    dark.button("Use this folder").click()
    dark.page.get_by_label("Message").fill("fix the dates on a branch")
    dark.page.get_by_text("Options").click()
    dark.page.get_by_label("New worktree").check()
    dark.page.get_by_label("Branch").fill("fix/dates")
    shot(dark, "new-worktree-dark")
    assert not phone.errors and not dark.errors and not phone.csp_violations()


def teardown_module(module):
    if os.environ.get("WEB_UPDATE_DOCS"):  # WEB_UPDATE_DOCS=1 pytest test_desk.py
        docs = conftest.ROOT / "docs"
        for name, path in DOCS.items():
            shutil.copyfile(path, docs / f"web-{name}.png")
