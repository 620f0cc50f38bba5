"""Issue 33, the fleet in the web app: two real bridges on 127.0.0.1 (A, the phone's home, and B linked to it with
`machines add`), each with its own real codex, scripted model and workspace; the phone (Chromium, 390×844) is
paired with A only. A thread on A waits for an approval; a thread starts on B from the New thread machine picker
(folders browsed on B) and asks a question; "Needs you" holds both, newest first, each answered in place, and B's
turn then streams. The list shows both machines' threads, each labelled with its machine (B's name holds markup:
shown as text), and filters by machine; B killed: its threads stay, marked offline, and a message for one waits,
marked "Waiting for <B>" (issue 46); B back: online again, and the message goes through by itself. axe on the new UI, screenshots light and dark. Cost: ~25 s."""
import json
import os
import re
import shutil
import signal

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

import conftest
from codex_fixture import bridge_codex_args, codex_bin
from test_codex import frames, request, until_turn_completed
from test_webkit import CATCH_ERRORS, display, shot as webkit_shot, webkit_factory  # noqa: F401 (fixtures)
from webutil import WebModel, bridge_env, pair, pairing_url, run_async
from wsutil import hello

B_NAME = "Build <b>box</b>"
AXE = Axe()
DOCS = ("fleet-list-light", "fleet-list-dark", "fleet-inbox-light", "fleet-inbox-dark", "fleet-new-thread-light",
        "fleet-new-thread-dark", "fleet-offline-light", "fleet-offline-dark")


def keep_for_docs():
    """WEB_UPDATE_DOCS=1 pytest test_fleet_web.py: the screenshots become docs/web-fleet-*.png (docs/web-app.md)."""
    if os.environ.get("WEB_UPDATE_DOCS"):
        for name in DOCS:
            shutil.copyfile(conftest.ARTIFACTS / f"{name}.png", conftest.ROOT / "docs" / f"web-{name}.png")


@pytest.fixture
def machine_b(bridge_factory, tmp_path):
    """B: a second workstation with its own codex, scripted model, CODEX_HOME and workspace."""
    import codex_fixture
    model = WebModel().start()
    home = codex_fixture.CODEX_HOMES / f"{tmp_path.name}-b"
    home.mkdir(parents=True, exist_ok=True)
    ws = tmp_path / "b-workspace"
    ws.mkdir()
    bridge = bridge_factory(name="b-state", env=bridge_env(home),
                            args=["--codex", codex_bin(), "--root", str(ws), *bridge_codex_args(model.port)])
    yield bridge, model, ws
    model.stop()


def link(home, other, name):
    url = json.loads(conftest.run_cli("pair", "--json", "--advertise", "127.0.0.1", state_dir=other.state_dir,
                                      check=True).stdout)["url"]
    return json.loads(conftest.run_cli("machines", "add", url, "--name", name, "--json", state_dir=home.state_dir,
                                       check=True).stdout)


def serious(page):
    found = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found += [(scheme, v["id"], [n["target"] for n in v["nodes"]][:4]) for v in AXE.run(page).response["violations"]
                  if v["impact"] in ("serious", "critical")]
    page.emulate_media(color_scheme="light")
    return found


QUESTION = {"id": "colour", "header": "Colour", "question": "Which colour should it be?",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}


def test_one_list_for_two_machines_a_thread_on_b_and_b_going_offline(web_bridge, model, machine_b, phone_factory):
    b, b_model, b_ws = machine_b
    for folder in ("api", "web"):
        (b_ws / folder).mkdir()
    linked = link(web_bridge, b, B_NAME)
    model.queue({"kind": "exec", "cmd": "touch from-home.txt"}, {"kind": "message", "text": "Done on the home machine."})
    b_model.queue({"kind": "ask", "questions": [QUESTION]},
                  {"kind": "slow", "deltas": [f"b{i} " for i in range(12)], "delay": 0.02, "hold_after": [6]})
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    page = light.page
    pair(light, web_bridge)
    # A thread on A, from the picker as always (A's machine chosen by default); its command waits for approval.
    light.button("New thread").click()
    light.button("Use this folder").click()
    page.get_by_label("Message").fill("hello home")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    light.button("Start").click()
    expect(page.locator(".approval")).to_contain_text("touch from-home.txt")
    light.button("Back").click()

    # A thread on B: the machine picker, then B's folders (B has one root: it opens at once).
    light.button("New thread").click()
    picker = page.get_by_label("Machine")
    expect(picker.locator("option", has_text=B_NAME)).not_to_have_attribute("disabled", "")  # B online
    picker.select_option(linked["id"])
    expect(page.locator(".picker-path")).to_have_text(b_ws.name)
    expect(light.button("api")).to_be_visible()  # B's folders, browsed through A
    assert serious(page) == []
    light.shot("fleet-new-thread-light")
    page.emulate_media(color_scheme="dark")
    light.shot("fleet-new-thread-dark")
    page.emulate_media(color_scheme="light")
    light.button("Use this folder").click()
    expect(page.locator(".chosen-path")).to_have_text(f"{B_NAME} · {b_ws.name}")
    page.get_by_label("Message").fill("build on b")
    light.button("Start").click()
    page.wait_for_url(re.compile(r"#/t/"))
    expect(page.locator(".bar .subtitle")).to_have_text(f"{B_NAME} · {b_ws.name}")  # relative to B's root
    expect(page.locator(".question-card")).to_contain_text("Which colour")  # asked on B, shown through A
    expect(light.button("Attach a photo")).to_be_hidden()  # uploads are the home bridge's: not offered for B
    light.button("Back").click()

    # Needs you: B's question and A's approval in one place, newest first, each naming its thread and machine.
    needs = page.get_by_role("link", name=re.compile("Needs you"))
    expect(needs).to_contain_text("2 waiting")
    light.shot("fleet-needs-you-light")
    needs.click()
    items = page.get_by_role("list", name="Waiting for an answer").get_by_role("listitem")
    expect(items).to_have_count(2)
    expect(items.nth(0)).to_contain_text("build on b")
    expect(items.nth(0).locator(".chip.machine")).to_have_text(B_NAME)
    expect(items.nth(1)).to_contain_text("hello home")
    expect(items.nth(1)).to_contain_text("touch from-home.txt")
    assert serious(page) == []
    light.shot("fleet-inbox-light")
    page.emulate_media(color_scheme="dark")
    light.shot("fleet-inbox-dark")
    page.emulate_media(color_scheme="light")
    # Answered in place: B's question (the turn on B goes on and streams), then A's approval.
    items.nth(0).get_by_text("Blue", exact=True).click()
    items.nth(0).get_by_role("button", name="Send answer").click()
    expect(items.nth(0)).to_contain_text("by this phone")
    items.nth(1).get_by_role("button", name="Approve", exact=True).click()
    expect(items.nth(1)).to_contain_text("Approved by this phone")
    b_model.wait_held()
    items.nth(0).get_by_role("link", name="build on b").click()
    expect(page.locator(".msg.agent")).to_contain_text("b5")  # streaming from B, through A
    b_model.open_gate()
    expect(page.locator(".msg.agent")).to_contain_text("b11")
    light.button("Back").click()
    expect(needs).to_be_hidden()

    # One list, each row labelled with its machine; the names are text (no <b> element made).
    rows = page.locator(".thread-row")
    expect(rows).to_have_count(2)
    on_b = rows.filter(has_text="build on b")
    expect(on_b.locator(".chip.machine")).to_have_text(B_NAME)
    expect(rows.filter(has_text="hello home").locator(".chip.machine")).not_to_have_text(B_NAME)
    expect(page.locator(".thread-row b, .machine-filter b")).to_have_count(0)
    filters = page.get_by_role("group", name="Machines")
    filters.get_by_role("button", name=B_NAME).click()
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("build on b")
    filters.get_by_role("button", name="All machines").click()
    expect(rows).to_have_count(2)
    search = page.get_by_role("searchbox", name="Search threads")
    search.fill("box")  # the search knows the machine's name too
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("build on b")
    search.fill("")
    search.blur()
    expect(rows).to_have_count(2)
    pair(dark, web_bridge)
    expect(dark.page.locator(".thread-row .chip.machine")).to_have_count(2)
    # B's folders are shown relative to B's root, learnt at the session's start (not in the helloAck).
    expect(dark.page.locator(".thread-row", has_text="build on b").locator(".row-path")).to_have_text(b_ws.name)
    assert serious(page) == []
    light.shot("fleet-list-light")
    dark.shot("fleet-list-dark")

    # B killed: its thread stays, marked offline (dimmed), the other machine's as it was.
    b.stop(signal.SIGKILL, timeout=10)
    expect(on_b.locator(".state")).to_have_text("Offline")
    expect(on_b).to_have_class(re.compile(r"\boffline\b"))
    expect(rows.filter(has_text="hello home").locator(".state")).to_have_text("Idle")
    expect(filters.get_by_role("button", name=f"{B_NAME} · offline")).to_be_visible()
    expect(dark.page.locator(".thread-row.offline")).to_have_count(1)
    assert serious(page) == []
    light.shot("fleet-offline-light")
    dark.shot("fleet-offline-dark")
    # Its thread says so (with Try now), and a message for it waits, marked with B's name (issue 46: it was refused).
    on_b.click()
    expect(page.locator(".machine-note")).to_contain_text(
        f"{B_NAME} is unreachable. This thread carries on when it is back; what you send waits for it.")
    page.locator(".composer").get_by_label("Message").fill("are you there?")
    light.button("Send").click()
    expect(page.locator(".pending-msg")).to_contain_text(f"Waiting for {B_NAME}")
    light.shot("fleet-thread-offline-light")
    # B back on its port: A links it again; the note goes, the message goes through and B answers.
    b_model.queue({"kind": "message", "text": "Here again."})
    b.listen = f"127.0.0.1:{b.port}"
    b.start()
    expect(page.locator(".machine-note")).to_be_hidden(timeout=30_000)
    expect(page.locator(".msg.agent").last).to_have_text("Here again.", timeout=30_000)
    expect(page.locator(".pending-msg")).to_have_count(0)
    light.button("Back").click()
    expect(on_b.locator(".state")).to_have_text("Idle")
    expect(filters.get_by_role("button", name=B_NAME, exact=True)).to_be_visible()
    for p in (light, dark):
        assert not p.errors and not p.csp_violations() and not p.dialogs, (p.errors, p.dialogs)
    keep_for_docs()


async def seed_thread(bridge, prompt, cwd, until="turn/completed", **fields):
    """A thread started over the protocol on `bridge` itself (its own shared secret), followed until its turn
    completed, or until a frame of kind `until` (an approvalRequest, an inputRequest) when that is one."""
    ws, _ = await hello(bridge)
    await request(ws, "subscribe", threadId="*")
    started = await request(ws, "startThread", cwd=str(cwd), prompt=prompt, **fields)
    if until == "turn/completed":
        await until_turn_completed(ws, started["threadId"])
    else:
        async for msg in frames(ws):
            if msg["kind"] == until:
                break
    await ws.close()


def test_the_fleet_list_and_needs_you_in_webkit(web_bridge, model, workspace, machine_b, webkit_factory):
    """WebKit (Safari's engine): the list labels each thread with its machine (as text); Needs you holds A's
    approval (asked before the phones connected) and B's question (asked while they are), newest first, and
    answers in place; B killed: its thread is marked offline. Screenshots light and dark. Cost: ~10 s.

    B's question is asked while the phones are connected: a fleet session's `subscribe *` on A does not send again
    the questions and approvals a linked machine has pending (seen: nothing of B's arrives; the home bridge's own
    are sent again)."""
    b, b_model, b_ws = machine_b
    link(web_bridge, b, B_NAME)
    model.queue({"kind": "exec", "cmd": "touch at-home.txt"}, {"kind": "message", "text": "home done"})
    b_model.queue({"kind": "ask", "questions": [QUESTION]}, {"kind": "message", "text": "b done"})
    run_async(seed_thread(web_bridge, "a thread at home", workspace, until="approvalRequest", approvalPolicy="untrusted"))
    light, dark = webkit_factory(), webkit_factory(dark=True)
    for phone in (light, dark):
        phone.driver.get(pairing_url(web_bridge))
        phone.js(CATCH_ERRORS)
        phone.wait_status("Connected")
        phone.wait(lambda p=phone: p.text_of(".needs-you .badge") == ["1 waiting"], what="A's approval waiting")
        phone.wait(lambda p=phone: p.visible(".machine-filter button"), what="the machine filter (B linked)")
    run_async(seed_thread(b, "a thread on b", b_ws, until="inputRequest"))
    for phone in (light, dark):
        phone.wait(lambda p=phone: sorted(p.text_of(".thread-row .row-title")) == ["a thread at home", "a thread on b"],
                   what="both threads listed")
    chips = dict(zip(light.text_of(".thread-row .row-title"), light.text_of(".thread-row .chip.machine")))
    assert chips["a thread on b"] == B_NAME and chips["a thread at home"] != B_NAME, chips
    assert light.js("return document.querySelectorAll('.thread-row b, .machine-filter b').length") == 0
    light.wait(lambda: light.text_of(".needs-you .badge") == ["2 waiting"], what="Needs you: 2 waiting")
    webkit_shot(light, "fleet-list-light")
    webkit_shot(dark, "fleet-list-dark")
    # Needs you: B's question (newest) and A's approval, answered in place.
    for phone in (light, dark):
        phone.click(phone.wait(lambda p=phone: p.visible(".needs-you"), what="the Needs you link")[0])
        phone.wait(lambda p=phone: len(p.text_of(".inbox-item")) == 2, what="two waiting")
    assert light.text_of(".inbox-thread") == ["a thread on b", "a thread at home"]
    assert light.text_of(".inbox-item .chip.machine")[0] == B_NAME
    webkit_shot(light, "fleet-inbox-light")
    webkit_shot(dark, "fleet-inbox-dark")
    light.click("Approve")
    light.wait_text(".inbox-item .approval-outcome", lambda t: any(x.startswith("Approved by this phone") for x in t), what="approved here")
    dark.wait_text(".inbox-item .approval-outcome", lambda t: any(x.startswith("Approved") for x in t), what="approved, seen on the other phone")
    for phone in (light, dark):
        phone.click("Back")
    b.stop(signal.SIGKILL, timeout=10)
    for phone in (light, dark):
        phone.wait(lambda p=phone: p.text_of(".thread-row.offline .row-title") == ["a thread on b"], what="B's thread offline")
    assert light.text_of(".thread-row.offline .state") == ["Offline"]
    webkit_shot(light, "fleet-offline-light")
    webkit_shot(dark, "fleet-offline-dark")
    for phone in (light, dark):
        assert not phone.js("return window.__errors || []")
