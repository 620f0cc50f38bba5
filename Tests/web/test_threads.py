"""A person with a phone: pair by opening the QR's URL, start a thread by picking a folder, read the streamed
answer, follow up, approve and decline, look at the diff."""
import json
import re

from playwright.sync_api import expect

from webutil import pair, pairing_url, start_thread, thread_id_of, thread_action

import conftest


def test_pairing_url_pairs_and_shows_the_thread_list(web_bridge, phone):
    url = pairing_url(web_bridge)
    code = re.search(r"code=([^&]+)", url).group(1)
    phone.page.goto(url)
    expect(phone.status()).to_have_text("Connected")
    expect(phone.button("New thread")).to_be_visible()
    expect(phone.page.get_by_text("No threads yet")).to_be_visible()
    # The fragment left the address bar (and the history entry) at once.
    assert "#pair" not in phone.page.url and code not in phone.page.url
    assert code not in phone.page.evaluate("history.state ? JSON.stringify(history.state) : ''")
    # The device token is kept, not the code; the workstation lists the phone as a web device.
    stored = phone.page.evaluate("localStorage.getItem('codex-bridge/v1')")
    assert code not in stored and json.loads(stored)["current"]
    devices = json.loads(conftest.run_cli("devices", "list", "--json", state_dir=web_bridge.state_dir, check=True).stdout)
    assert [(d["name"], d["platform"]) for d in devices] == [("Safari on iPhone", "web")]
    # A later visit (no fragment) connects with the stored token.
    phone.page.goto(f"http://127.0.0.1:{web_bridge.port}/")
    expect(phone.status()).to_have_text("Connected")
    expect(phone.button("New thread")).to_be_visible()
    phone.shot("pair-thread-list-empty")
    assert not phone.errors and not phone.csp_violations() and not phone.dialogs


def test_bare_url_explains_pairing_and_takes_a_typed_code(web_bridge, phone):
    phone.page.goto(f"http://127.0.0.1:{web_bridge.port}/")
    expect(phone.page.get_by_text("codex-bridge pair")).to_be_visible()
    phone.shot("pairing-screen")
    field = phone.page.get_by_label("Pairing code")
    field.fill("not-a-code")
    phone.button("Pair").click()
    expect(phone.page.get_by_text("A pairing code has 10")).to_be_visible()
    field.fill("0000000000")
    phone.button("Pair").click()
    expect(phone.page.get_by_text("That code did not work")).to_be_visible()
    assert not phone.page.evaluate("localStorage.getItem('codex-bridge/v1')") or "0000000000" not in phone.page.evaluate("localStorage.getItem('codex-bridge/v1')")
    code = json.loads(conftest.run_cli("pair", "--json", state_dir=web_bridge.state_dir, check=True).stdout)["code"]
    typed = f"{code[:5].lower()}-{code[5:].lower()}"  # as a person types it
    phone.page.get_by_label("Pairing code").fill(typed)
    phone.button("Pair").click()
    expect(phone.status()).to_have_text("Connected")
    expect(phone.button("New thread")).to_be_visible()


def test_new_thread_streams_the_answer_then_a_follow_up(web_bridge, model, phone, workspace):
    model.queue({"kind": "slow", "deltas": ["Hello ", "from ", "the **mock** ", "model."], "delay": 0.15},
                {"kind": "message", "text": "Second answer:\n\n```sh\nls -la\n```", "deltas": ["Second ", "answer:\n\n```sh\nls -la\n```"]})
    (workspace / "sub").mkdir()
    (workspace / ".hidden-dir").mkdir()
    pair(phone, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    # The picker opens the only root: folders are buttons named by the folder, hidden ones behind a toggle.
    expect(phone.button("sub")).to_be_visible()
    expect(phone.button(".hidden-dir")).to_have_count(0)
    expect(page.get_by_text("tracked.txt")).to_be_visible()
    page.get_by_label("Hidden").check()
    expect(phone.button(".hidden-dir")).to_be_visible()
    page.get_by_label("Hidden").uncheck()
    phone.shot("new-thread-picker")
    phone.button("sub").click()
    expect(page.locator(".picker-path")).to_have_text(re.compile(r"sub$"))
    phone.button("Parent folder").click()
    expect(phone.button("sub")).to_be_visible()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("say hello")
    phone.shot("new-thread-prompt")
    phone.button("Start").click()
    page.wait_for_url(re.compile(r"#/t/"))
    answer = page.locator(".msg.agent").first
    expect(answer).to_contain_text("Hello from")
    expect(answer).to_have_text("Hello from the mock model.")
    expect(answer.locator("strong")).to_have_text("mock")
    expect(page.locator(".msg.user")).to_have_text(["say hello"])
    expect(phone.button("Stop")).to_be_hidden()
    page.get_by_label("Message").fill("and again")
    phone.button("Send").click()
    expect(page.locator(".msg.agent")).to_have_count(2)
    expect(page.locator(".msg.agent").nth(1).locator("pre")).to_have_text("ls -la")
    phone.context.grant_permissions(["clipboard-read", "clipboard-write"])
    phone.button("Copy code").click()
    expect(phone.button("Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == "ls -la"
    expect(page.locator(".msg.user")).to_have_text(["say hello", "and again"])
    phone.shot("thread-follow-up")
    # Back to the list: the thread is there, newest first, idle, in its folder.
    phone.button("Back").click()
    row = page.locator(".thread-row").first
    expect(row).to_contain_text("say hello")
    expect(row).to_contain_text("Idle")
    expect(row.locator(".row-path")).to_have_text(workspace.name)
    assert not phone.errors and not phone.csp_violations()


def test_approve_then_another_phone_declines(web_bridge, model, phone_factory, workspace):
    model.queue({"kind": "exec", "cmd": "echo approved-output > approved.txt && cat approved.txt"},
                {"kind": "exec", "cmd": "touch declined.txt"},
                {"kind": "message", "text": "done"})
    first, second = phone_factory(), phone_factory()
    pair(first, web_bridge)
    pair(second, web_bridge)
    page = first.page
    first.button("New thread").click()
    first.button("Use this folder").click()
    page.get_by_label("Message").fill("make a file")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    first.button("Start").click()
    card = page.locator(".approval").first
    expect(card).to_contain_text("echo approved-output")
    expect(card).to_contain_text(str(workspace.name))
    first.shot("thread-approval")
    first.button("Approve").click()
    expect(card).to_contain_text("Approved by this phone")
    command = page.locator(".command").first
    expect(command.locator(".chip")).to_have_text("exit 0")
    command.locator("summary").click()
    expect(command.locator(".output")).to_contain_text("approved-output")
    assert (workspace / "approved.txt").read_text() == "approved-output\n"
    # The second command's approval: the other phone sees a badge in its list, opens the thread, declines.
    expect(page.locator(".approval")).to_have_count(2)
    row = second.page.locator(".thread-row").first
    expect(row.locator(".badge")).to_have_text("1 approval")
    row.click()
    other = second.page.locator(".approval:not(.resolved)")
    expect(other).to_contain_text("touch declined.txt")
    second.button("Decline").click()
    expect(second.page.locator(".approval").nth(1)).to_contain_text("Declined by this phone")
    expect(page.locator(".approval").nth(1)).to_contain_text(re.compile(r"Declined by Safari on iPhone at \d"))
    expect(page.locator(".approval").nth(1).get_by_role("button")).to_have_count(0)
    expect(page.locator(".msg.agent").last).to_have_text("done")
    assert not (workspace / "declined.txt").exists()
    first.shot("thread-approvals-resolved")


def test_diff_shows_the_changed_file(web_bridge, model, phone, workspace):
    model.queue({"kind": "exec", "cmd": "printf 'one\\nchanged by the agent\\n' > tracked.txt"},
                {"kind": "message", "text": "Edited `tracked.txt`."})
    pair(phone, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("edit the file")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    phone.button("Start").click()
    phone.button("Approve").click()
    expect(page.locator(".msg.agent")).to_contain_text("Edited tracked.txt")
    thread_action(phone, "Diff")
    file = page.locator(".diff-file").filter(has_text="tracked.txt")
    expect(file).to_be_visible()
    expect(file.locator(".dl.add")).to_have_text(["+changed by the agent"])
    expect(file.locator(".diff-counts")).to_have_text("+1 −0")
    phone.shot("diff")
    phone.button("Back").click()
    expect(phone.button("Send")).to_be_visible()


def test_stop_interrupts_the_running_turn(web_bridge, model, phone):
    model.queue({"kind": "stall", "text": "too late"}, {"kind": "message", "text": "after the stop"})
    pair(phone, web_bridge)
    start_thread(phone, "take your time")
    page = phone.page
    expect(phone.button("Stop")).to_be_visible()
    expect(page.locator(".working")).to_be_visible()
    model.wait_requests(1)
    phone.button("Stop").click()
    expect(page.locator(".turn-end")).to_have_text("Stopped")
    expect(phone.button("Stop")).to_be_hidden()
    model.release()
    page.get_by_label("Message").fill("next")
    phone.button("Send").click()
    expect(page.locator(".msg.agent").last).to_have_text("after the stop")
    phone.button("Back").click()
    expect(page.locator(".thread-row").first).to_contain_text("Idle")


def test_reasoning_and_command_output_start_collapsed(web_bridge, model, phone):
    model.queue({"kind": "think", "reasoning": "**Checking** the files first", "text": "Thought about it."})
    pair(phone, web_bridge)
    start_thread(phone, "think first")
    page = phone.page
    expect(page.locator(".msg.agent")).to_have_text("Thought about it.")
    reasoning = page.locator("details.reasoning")
    expect(reasoning).to_have_count(1)
    expect(reasoning.locator(".reasoning-text")).to_be_hidden()
    reasoning.locator("summary").click()
    expect(reasoning.locator(".reasoning-text")).to_contain_text("Checking the files first")
    expect(reasoning.locator("strong")).to_have_text("Checking")


PATCH = ("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: hello.txt\n+hi there\n"
         "*** Update File: tracked.txt\n@@\n-one\n+uno\n*** End Patch\nEOF\n")


def test_file_change_approval_shows_the_changes(web_bridge, model, phone, workspace):
    model.queue({"kind": "exec", "cmd": PATCH}, {"kind": "message", "text": "patched"})
    pair(phone, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("patch it")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    phone.button("Start").click()
    card = page.locator(".approval")
    expect(card).to_contain_text("Apply these file changes?")
    # Small changes are open in the card: the paths relative to the thread's folder, the lines coloured.
    expect(card.locator(".change-path")).to_have_text(["hello.txt", "tracked.txt"])
    expect(card.locator(".dl.add")).to_have_text(["+hi there", "+uno"])
    expect(card.locator(".dl.del")).to_have_text(["-one"])
    phone.shot("thread-file-change-approval")
    phone.button("Approve").click()
    expect(page.locator(".msg.agent")).to_have_text("patched")
    expect(page.locator(".file-change .chip").first).to_have_text("completed")
    assert (workspace / "hello.txt").read_text() == "hi there\n"
    page.get_by_role("link", name="View all changes").click()
    expect(page.locator(".diff-file")).to_have_count(2)
    assert sorted(page.locator(".diff-file .diff-path").all_inner_texts()) == ["hello.txt", "tracked.txt"]


def test_sending_while_a_turn_runs_steers_it(web_bridge, model, phone):
    words = [f"s{i} " for i in range(10)]
    model.queue({"kind": "slow", "deltas": words, "delay": 0.01, "hold_after": [5]},
                {"kind": "message", "text": "steered answer"})
    pair(phone, web_bridge)
    start_thread(phone, "first instruction")
    page = phone.page
    model.wait_held(0)
    expect(phone.button("Stop")).to_be_visible()
    page.get_by_label("Message").fill("also do this")
    phone.button("Send").click()
    expect(page.get_by_label("Message")).to_have_value("")
    model.open_gate(0)
    expect(page.locator(".msg.user")).to_have_text(["first instruction", "also do this"], timeout=30_000)
    expect(page.locator(".msg.agent").last).to_have_text("steered answer", timeout=30_000)
    expect(page.locator(".turn")).to_have_count(1)
    assert not page.locator(".toast").count()


def test_codex_missing_is_explained_in_the_list(bridge_factory, phone, tmp_path):
    from webutil import web_env
    from conftest import isolated_binary
    # No codex anywhere the locator looks (an explicit --codex that does not exist stops serve instead): the binary
    # outside the checkout, whose .venv-codex (Scripts/run's) it would find.
    env = dict(web_env(), PATH="/usr/bin:/bin", HOME=str(tmp_path / "home"))
    bridge = bridge_factory(name="no-codex", args=["--root", "/tmp"], env=env, binary=isolated_binary(tmp_path))
    pair(phone, bridge)
    expect(phone.page.get_by_text("Could not list the threads: Codex is not running")).to_be_visible(timeout=40_000)
    expect(phone.button("Try again")).to_be_visible()


def test_too_many_wrong_codes_say_wait(web_bridge, phone):
    phone.page.goto(f"http://127.0.0.1:{web_bridge.port}/")
    field = phone.page.get_by_label("Pairing code")
    for i in range(8):
        field.fill(f"000000000{i}")
        phone.button("Pair").click()
        expect(phone.button("Pair")).to_be_enabled()
        if phone.page.get_by_text("Too many failed attempts").count():
            break
    expect(phone.page.get_by_text("Too many failed attempts from this network")).to_be_visible()


def test_the_list_is_live(web_bridge, model, phone, workspace):
    """A thread another client starts appears at the top without a reload, with its state."""
    from webutil import run_async
    from wsutil import hello, recv, send

    model.queue({"kind": "stall", "text": "done at last"})
    pair(phone, web_bridge)
    page = phone.page
    expect(page.get_by_text("No threads yet")).to_be_visible()

    async def start_elsewhere():
        ws, _ = await hello(web_bridge)
        await send(ws, {"kind": "startThread", "id": "x1", "cwd": str(workspace), "prompt": "started from the CLI"})
        while (await recv(ws, 60)).get("id") != "x1":
            pass
        await ws.close()

    run_async(start_elsewhere())
    row = page.locator(".thread-row").first
    expect(row).to_contain_text("started from the CLI")
    expect(row).to_contain_text("Running")
    model.release()
    expect(row).to_contain_text("Idle", timeout=30_000)


def test_picker_with_two_roots(web_bridge_factory, model, phone, tmp_path):
    other = tmp_path / "other-project"
    (other / "deep").mkdir(parents=True)
    bridge = web_bridge_factory(name="two-roots", extra=["--root", str(other)])
    model.queue({"kind": "message", "text": "in the other project"})
    pair(phone, bridge)
    page = phone.page
    phone.button("New thread").click()
    expect(phone.button("workspace")).to_be_visible()
    phone.button("other-project").click()
    phone.button("deep").click()
    expect(page.locator(".picker-path")).to_have_text("other-project/deep")
    phone.button("Parent folder").click()
    phone.button("Parent folder").click()  # from a root back to the list of roots
    expect(phone.button("workspace")).to_be_visible()
    phone.button("other-project").click()
    phone.button("deep").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("work here")
    phone.button("Start").click()
    expect(page.locator(".msg.agent")).to_have_text("in the other project")
    expect(page.locator(".bar .subtitle")).to_have_text("other-project/deep")


def test_new_thread_with_a_model_and_effort_from_the_pickers(web_bridge, model, phone, workspace):
    """Issue 15 (part): the Options hold Model and Effort pickers filled from listModels; the effort reaches Codex."""
    model.queue({"kind": "message", "text": "thought hard"})
    pair(phone, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("think about it")
    page.get_by_text("Options").click()
    models = page.get_by_label("Model")
    expect(models.locator("option")).not_to_have_count(1)  # filled from listModels beyond "Default"
    efforts = page.get_by_label("Effort")
    expect(efforts.locator("option")).not_to_have_count(1)
    efforts.select_option(index=1)
    chosen = efforts.input_value()
    phone.shot("new-thread-options")
    phone.button("Start").click()
    expect(page.get_by_text("thought hard")).to_be_visible()
    assert model.requests[-1]["reasoning"].get("effort") == chosen


def test_a_file_from_the_diff_opens_in_a_viewer(web_bridge, model, phone, workspace):
    """Issue 15 (part): View on a changed file shows it (readFile), with line numbers, as text; a new file the
    agent created is in the diff too."""
    model.queue({"kind": "exec", "cmd": "printf 'first line\\n<script>window.pwned=1</script>\\n' > created.md"},
                {"kind": "message", "text": "Created it."})
    pair(phone, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("make a file")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    phone.button("Start").click()
    phone.button("Approve").click()
    expect(page.locator(".msg.agent")).to_contain_text("Created it.")
    thread_action(phone, "Diff")
    phone.button("View created.md").click()
    lines = page.locator(".file-lines .fl")
    expect(lines).to_have_count(2)
    expect(lines.nth(1)).to_contain_text("<script>window.pwned=1</script>")
    assert page.evaluate("window.pwned") is None
    phone.shot("file-viewer")
    phone.button("Back").click()
    expect(page.locator(".diff-file").filter(has_text="created.md")).to_be_visible()
