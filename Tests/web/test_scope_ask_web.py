"""Issue 37 item 1: a phone paired with the standard scopes (observe, operate, approve) is shown what it may not
do and why — `!ls` without `run`, Push without `publish` on the Changes screen — with a button that asks the
workstation (`requestScopes`); the phone shows a check code and the command, `codex-bridge devices allow ID
--check CODE` grants it, and the page follows without a reload: the note goes, `!ls` runs; a request denied there
is told to the phone (`scopeRequestEnded`). Cost: ~7 s."""
import json
import re

from playwright.sync_api import expect

from test_accessibility import Audit
from webutil import pair, start_thread

import conftest


def cli(bridge, *args, check=True):
    return conftest.run_cli(*args, state_dir=bridge.state_dir, check=check)


def test_a_phone_asks_the_workstation_for_a_scope_it_lacks(web_bridge, model, phone_factory):
    model.queue({"kind": "message", "text": "ready"})
    phone = phone_factory()
    page = phone.page
    pair(phone, web_bridge)
    start_thread(phone, "hello")
    expect(page.locator(".msg.agent")).to_have_text("ready")
    [device] = json.loads(cli(web_bridge, "devices", "list", "--json").stdout)

    # !ls without run: what it may not do and why, where the message was, and Ask.
    page.get_by_label("Message").fill("!ls")
    phone.button("Send").click()
    note = page.locator(".thread-sheets .scope-ask[data-needs='run']")
    expect(note).to_be_visible()
    expect(note).to_contain_text("This phone may not run commands: it lacks the “run” scope")
    expect(page.get_by_label("Message")).to_have_value("!ls")  # kept, to send again
    note.get_by_role("button", name="Ask the workstation").click()
    command = note.locator("code")
    expect(command).to_have_text(re.compile(rf"^codex-bridge devices allow {device['id']} --check \d{{4}}$"))
    check = command.inner_text().rsplit(" ", 1)[1]
    expect(note.locator(".scope-check")).to_have_text(check)
    phone.shot("scope-ask-light")
    page.emulate_media(color_scheme="dark")
    phone.shot("scope-ask-dark")
    page.emulate_media(color_scheme="light")
    audit = Audit(phone)
    audit("scope-ask")
    assert not audit.found, audit.found

    # The workstation sees it and grants it with the phone's check code (a wrong one grants nothing).
    [pending] = json.loads(cli(web_bridge, "devices", "pending", "--json").stdout)
    assert (pending["kind"], pending["id"], pending["check"], pending["scopes"]) == ("scopes", device["id"], check, ["run"])
    wrong = "0000" if check != "0000" else "1111"
    refused = cli(web_bridge, "devices", "allow", device["id"], "--check", wrong, check=False)
    assert refused.returncode == 1 and "that is not the check code" in refused.stderr, refused
    granted = cli(web_bridge, "devices", "allow", device["id"], "--check", check)
    assert "may now also: run" in granted.stdout, granted.stdout
    expect(note).to_be_hidden(timeout=5000)  # scopesChanged: the page follows
    phone.button("Send").click()
    expect(page.locator(".command-card")).to_be_visible()
    expect(page.locator(".command-card .command-status")).to_have_text("Exit 0")
    [device] = json.loads(cli(web_bridge, "devices", "list", "--json").stdout)
    assert device["scopes"] == ["observe", "operate", "approve", "run"]

    # Push on the Changes screen: without publish, the panel says so and offers Ask.
    phone.button("More").click()
    page.get_by_role("menuitem", name="Diff").click()
    git = page.get_by_role("region", name="Git")
    expect(git).to_be_visible()
    expect(git.get_by_role("button", name=re.compile("^Push"))).to_be_hidden()
    expect(git.locator(".scope-ask[data-needs='publish']")).to_contain_text("This phone may not push or open pull requests")
    expect(git.get_by_role("button", name="Ask the workstation")).to_be_visible()
    phone.shot("scope-ask-push-light")
    # Asked, then refused at the workstation: the phone is told (scopeRequestEnded), not left waiting.
    git.get_by_role("button", name="Ask the workstation").click()
    expect(git.locator(".scope-check")).to_have_text(re.compile(r"^\d{4}$"))
    cli(web_bridge, "devices", "deny", device["id"])
    expect(git.locator(".scope-ask-answer")).to_have_text("The workstation declined the request for “publish”.", timeout=5000)
    expect(page.get_by_role("alert").filter(has_text="declined")).to_be_visible()
    phone.shot("scope-ask-declined-light")
    entries = [json.loads(line) for line in cli(web_bridge, "audit", "--json").stdout.splitlines()]
    kinds = [(e["actor"], e["kind"], e["outcome"]) for e in entries]
    assert ("device", "requestScopes", "ok") in kinds and ("workstation", "allowScopes", "ok") in kinds, kinds
    assert not phone.errors
