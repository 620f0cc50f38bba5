"""Issue 34 items 2, 4, 5 and the rate-limit half of 3, with the real codex against the scripted model: search the
threads (`searchThreads`, Codex `thread/search`), compact one (`compactThread`), delete one (`deleteThread`, every
`*` subscriber told with `thread/deleted`), change a thread's model, effort and sandbox mid-thread
(`updateThreadSettings` through the gate, and `listPermissionProfiles`, the choices judged by the same gate, and
`listCollaborationModes`, Codex's presets), Codex's automatic reviewer (`approvalsReviewer: "auto_review"`) deciding an
approval no person sees (and a person with `approve` overriding a denial, `approveDeniedAction`), and `account/rateLimits/updated` reaching `*` subscribers once per change. Cost: ~20 s."""
import json

from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from test_codex import agent_text, completed_status, frames, request, until_turn_completed
from test_pairing import PHONE
from test_trust import pair
from wsutil import hello, recv_kind, send

APPROVAL = ">>> APPROVAL REQUEST START"


async def next_event(ws, type_, thread_id=None, timeout=30):
    async for msg in frames(ws, timeout):
        if msg["kind"] == "event" and msg["type"] == type_ and (thread_id is None or msg["threadId"] == thread_id):
            return msg


async def test_search_compact_and_delete_a_thread(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "Found the zebra in the garden."})
    phone, _ = await hello(codex_bridge)
    laptop, _ = await hello(codex_bridge)
    assert (await request(laptop, "subscribe", threadId="*"))["kind"] == "subscribed"
    started = await request(phone, "startThread", cwd=str(workspace), prompt="find the quokka")
    thread = started["threadId"]
    await until_turn_completed(phone, thread)
    await until_turn_completed(laptop, thread)

    # Search: Codex's full text (the answer too, not only the prompt), in the shape of listThreads, with a snippet.
    found = await request(laptop, "searchThreads", query="zebra")
    assert found["kind"] == "threads", found
    assert [t["threadId"] for t in found["threads"]] == [thread]
    hit = found["threads"][0]
    assert "zebra" in hit["snippet"] and hit["cwd"] == str(workspace) and hit["preview"] == "find the quokka", hit
    assert (await request(laptop, "searchThreads", query="no-such-word-anywhere"))["threads"] == []
    bad = await request(laptop, "searchThreads", query="   ")
    assert bad["kind"] == "error" and bad["code"] == "bad_request", bad

    # Compact: Codex summarises in a turn of its own, which every subscriber sees (a contextCompaction item).
    compacted = await request(phone, "compactThread", threadId=thread)
    assert compacted == {"kind": "accepted", "id": compacted["id"], "threadId": thread}, compacted
    events, _ = await until_turn_completed(phone, thread)
    assert completed_status(events) == "completed"
    kinds = [e["data"]["item"]["type"] for e in events if e["type"] == "item/completed"]
    assert kinds == ["contextCompaction"], kinds
    assert "CONTEXT CHECKPOINT COMPACTION" in json.dumps(model.requests[-1]["input"])
    assert any(e["type"] == "item/completed" and e["data"]["item"]["type"] == "contextCompaction"
               for e in (await until_turn_completed(laptop, thread))[0])

    # Delete: gone from the list, and every * subscriber is told (that is how other phones drop it). A retry of the
    # same request (after a reconnect, say) gets the first answer again, not an error.
    retrying, _ = await hello(codex_bridge, extra={"clientId": "phone-housekeeping"})
    await send(retrying, {"kind": "deleteThread", "id": "del-1", "threadId": thread})
    deleted = await recv_kind(retrying, "accepted", timeout=30)
    assert deleted["id"] == "del-1" and deleted["threadId"] == thread, deleted
    await send(retrying, {"kind": "deleteThread", "id": "del-1", "threadId": thread})
    assert await recv_kind(retrying, "accepted", timeout=30) == deleted
    told = await next_event(laptop, "thread/deleted", thread)
    assert told["data"] == {"threadId": thread}, told
    listed = await request(laptop, "listThreads")
    assert thread not in [t["threadId"] for t in listed["threads"]]
    again = await request(phone, "deleteThread", threadId=thread)
    assert again["kind"] == "error" and again["code"] in ("not_found", "codex_error"), again
    # Both acts are in the audit log.
    audit = await request(laptop, "listAudit", limit=10)
    done = [(e["kind"], e["outcome"]) for e in audit["entries"]]
    assert ("deleteThread", "ok") in done and ("compactThread", "ok") in done, done


async def test_scopes_search_observes_delete_and_compact_operate(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "done"})
    owner, _ = await hello(codex_bridge)
    started = await request(owner, "startThread", cwd=str(workspace), prompt="watch me")
    await until_turn_completed(owner, started["threadId"])
    _, token, _ = await pair(codex_bridge, PHONE, "--scope", "observe")
    watcher, _ = await hello(codex_bridge, token=token)
    assert (await request(watcher, "searchThreads", query="watch"))["kind"] == "threads"
    for kind in ("deleteThread", "compactThread"):
        refused = await request(watcher, kind, threadId=started["threadId"])
        assert refused["kind"] == "error" and refused["code"] == "forbidden" and refused["scope"] == "operate", refused
    settings = await request(watcher, "updateThreadSettings", threadId=started["threadId"], effort="high")
    assert settings["code"] == "forbidden" and settings["scope"] == "operate", settings


async def test_settings_change_mid_thread_through_the_gate(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "first"}, {"kind": "message", "text": "second"})
    ws, _ = await hello(codex_bridge)
    models = (await request(ws, "listModels"))["models"]
    chosen = next(m for m in models if not m["isDefault"] and m["efforts"])
    effort = chosen["efforts"][0]
    started = await request(ws, "startThread", cwd=str(workspace), prompt="one")
    thread = started["threadId"]
    await until_turn_completed(ws, thread)
    # The profiles the phone may pick: Codex's list for the thread's directory, judged by the gate as the change is.
    listed = await request(ws, "listPermissionProfiles", threadId=thread)
    assert listed["kind"] == "permissionProfiles", listed
    profiles = {p["id"]: p for p in listed["profiles"]}
    assert profiles[":read-only"]["allowed"] and profiles[":workspace"]["sandbox"] == "workspace-write", profiles
    assert profiles[":danger-full-access"]["allowed"] is False, profiles  # serve runs without --allow-danger-full-access
    assert (await request(ws, "listPermissionProfiles"))["kind"] == "permissionProfiles"
    # The collaboration modes a message may ask for, as Codex names them (Codex 0.163: Plan at medium effort, Default).
    modes = await request(ws, "listCollaborationModes")
    assert modes == {"kind": "collaborationModes", "id": modes["id"], "modes": [
        {"mode": "plan", "name": "Plan", "effort": "medium"}, {"mode": "default", "name": "Default"}]}, modes
    # Nothing named, an unknown model, a profile the bridge does not allow, a profile it cannot judge: refused.
    assert (await request(ws, "updateThreadSettings", threadId=thread))["code"] == "bad_request"
    assert (await request(ws, "updateThreadSettings", threadId=thread, model="no-such-model"))["code"] == "bad_request"
    wider = await request(ws, "updateThreadSettings", threadId=thread, permissionProfile=":danger-full-access")
    assert wider["kind"] == "error" and wider["code"] == "forbidden", wider
    assert (await request(ws, "updateThreadSettings", threadId=thread, permissionProfile=":my-own"))["code"] == "bad_request"
    # Model, effort and a narrower sandbox: Codex confirms, and the next turn runs with them.
    changed = await request(ws, "updateThreadSettings", threadId=thread, model=chosen["id"], effort=effort,
                            permissionProfile=":read-only")
    assert changed["kind"] == "accepted" and changed["threadId"] == thread, changed
    settings = (await next_event(ws, "thread/settings/updated", thread))["data"]["threadSettings"]
    assert settings["model"] == chosen["id"] and settings["sandboxPolicy"]["type"] == "readOnly", settings
    await request(ws, "sendMessage", threadId=thread, text="two")
    await until_turn_completed(ws, thread)
    body = model.requests[-1]
    assert body["model"] == chosen["id"] and body["reasoning"]["effort"] == effort, (body["model"], body.get("reasoning"))
    # Read-only: in the environment Codex describes to the model now, the workspace is no longer writable.
    contexts = [json.dumps(i) for i in body["input"] if "<environment_context>" in json.dumps(i)]
    writable = f'access=\\"write\\"><path>{workspace}</path>'
    assert writable in contexts[0] and writable not in contexts[-1] and "<permission_profile" in contexts[-1], contexts[-1]


async def auto_reviewed_turn(bridge, model, workspace, outcome):
    """A turn whose command needs approval, on a thread Codex's auto-reviewer answers with `outcome`."""
    verdict = {"outcome": outcome, "risk_level": "high" if outcome == "deny" else "low", "rationale": f"scripted {outcome}"}
    model.queue({"kind": "exec", "cmd": "touch reviewed.txt", "sandbox_permissions": "require_escalated",
                 "justification": "needs it"},
                {"kind": "message", "text": json.dumps(verdict), "when": APPROVAL},
                {"kind": "message", "text": "after the review"})
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="touch it", approvalsReviewer="auto_review")
    assert started["kind"] == "threadStarted", started
    events, others = await until_turn_completed(ws, started["threadId"])
    return events, others, ws


async def test_the_auto_reviewer_denies_without_asking_anyone_and_a_person_overrides(codex_bridge, model, workspace):
    events, others, ws = await auto_reviewed_turn(codex_bridge, model, workspace, "deny")
    assert not [m for m in others if m["kind"] == "approvalRequest"], others
    types = [e["type"] for e in events]
    assert "item/autoApprovalReview/started" in types, types
    done = next(e for e in events if e["type"] == "item/autoApprovalReview/completed")["data"]
    assert done["review"]["status"] == "denied" and done["review"]["rationale"] == "scripted deny", done
    assert not (workspace / "reviewed.txt").exists()
    assert agent_text(events) == "after the review"
    thread = done["threadId"]
    # Only a device with `approve` may override it, only on its own thread, and once.
    _, token, _ = await pair(codex_bridge, PHONE, "--scope", "observe,operate")
    driver, _ = await hello(codex_bridge, token=token)
    refused = await request(driver, "approveDeniedAction", threadId=thread, reviewId=done["reviewId"])
    assert refused["code"] == "forbidden" and refused["scope"] == "approve", refused
    assert (await request(ws, "approveDeniedAction", threadId=thread, reviewId="nope"))["code"] == "not_found"
    approved = await request(ws, "approveDeniedAction", threadId=thread, reviewId=done["reviewId"])
    assert approved["kind"] == "accepted" and approved["threadId"] == thread, approved
    told = await next_event(ws, "bridge/deniedActionApproved", thread)
    assert told["data"] == {"threadId": thread, "reviewId": done["reviewId"]}, told
    again = await request(ws, "approveDeniedAction", threadId=thread, reviewId=done["reviewId"])
    assert again["code"] == "not_found", again
    # Codex tells the model, in the thread, that a person approved that exact action.
    await request(ws, "sendMessage", threadId=thread, text="go on")
    await until_turn_completed(ws, thread)
    assert "The user has manually approved a specific action" in json.dumps(model.requests[-1]["input"])


async def test_the_auto_reviewer_approves_and_the_command_runs(codex_bridge, model, workspace):
    events, others, _ = await auto_reviewed_turn(codex_bridge, model, workspace, "allow")
    assert not [m for m in others if m["kind"] == "approvalRequest"], others
    done = next(e for e in events if e["type"] == "item/autoApprovalReview/completed")["data"]
    assert done["review"]["status"] == "approved", done
    assert (workspace / "reviewed.txt").exists()


async def test_rate_limits_reach_star_subscribers_once_per_change(codex_bridge, model, workspace):
    model.queue({"kind": "message", "text": "one"}, {"kind": "message", "text": "two"})
    phone, _ = await hello(codex_bridge)
    everything, _ = await hello(codex_bridge)
    await request(everything, "subscribe", threadId="*")
    started = await request(phone, "startThread", cwd=str(workspace), prompt="count")
    thread = started["threadId"]
    events, others = await until_turn_completed(phone, thread)
    await request(phone, "sendMessage", threadId=thread, text="again")
    more, more_others = await until_turn_completed(phone, thread)
    # The thread's own subscriber gets none: it names no thread.
    assert not [m for m in events + more + others + more_others if m.get("type") == "account/rateLimits/updated"]
    seen = []
    for _ in range(2):
        _, rest = await until_turn_completed(everything, thread)
        seen += [m for m in rest if m.get("type") == "account/rateLimits/updated"]
    # Codex sent the same snapshot after each of the two responses: relayed once, with threadId "*".
    assert len(seen) == 1, seen
    assert seen[0]["threadId"] == "*" and seen[0]["data"]["rateLimits"]["limitId"] == "codex", seen[0]
    # Journaled: a late * subscriber replays it.
    late, _ = await hello(codex_bridge)
    await request(late, "subscribe", threadId="*", afterSeq=0)
    replayed = await next_event(late, "account/rateLimits/updated")
    assert replayed["seq"] == seen[0]["seq"]
