"""Issue 3, fault injection: a codex that crashes mid-turn or floods (a fake codex; the real one is in test_codex.py)."""
import asyncio
import os
import pathlib
import sys

import websockets

from test_codex import frames, request, until_turn_completed
from wsutil import hello

FAKE = pathlib.Path(__file__).with_name("fake_codex.py")


def fake_bridge(bridge_factory, tmp_path, mode, **env_extra):
    env = dict(os.environ, FAKE_CODEX_MODE=mode, **env_extra)
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    # The fake is a script: run it through this Python so the bridge execs a real interpreter.
    wrapper = tmp_path / "codex"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} \"$@\"\n")
    wrapper.chmod(0o755)
    return bridge_factory(args=["--codex", str(wrapper), "--root", str(ws)], env=env), ws


async def test_codex_crash_mid_turn_is_reported_and_codex_restarts(bridge_factory, tmp_path):
    bridge, ws_dir = fake_bridge(bridge_factory, tmp_path, "crash", FAKE_CODEX_STATE=str(tmp_path / "crashed"))
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(ws_dir), prompt="go")
    assert started["kind"] == "threadStarted"
    failed = None
    async for msg in frames(ws, timeout=20):
        if msg["kind"] == "event" and msg["type"] == "bridge/turnFailed":
            failed = msg
            break
    assert failed["threadId"] == started["threadId"] and failed["turnId"] == started["turnId"]
    assert failed["data"]["reason"]
    # The bridge stayed up and restarted codex: the next startThread works end to end.
    again = await request(ws, "startThread", cwd=str(ws_dir), prompt="again", timeout=30)
    assert again["kind"] == "threadStarted", again
    events, _ = await until_turn_completed(ws, again["threadId"], timeout=20)
    assert events[-1]["data"]["turn"]["status"] == "completed"
    assert "Codex stopped" in bridge.log()


async def test_events_codex_sends_before_answering_thread_start_reach_the_starter(bridge_factory, tmp_path):
    """Codex may send thread/started before its thread/start answer, i.e. before the starter is subscribed:
    the starter still gets it (replayed from the journal), once, in seq order, and a later client too."""
    bridge, ws_dir = fake_bridge(bridge_factory, tmp_path, "normal")
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(ws_dir), prompt="go")
    thread = started["threadId"]
    events, _ = await until_turn_completed(ws, thread, timeout=20)
    types = [m["type"] for m in events]
    assert types[0] == "thread/started" and types.count("thread/started") == 1, types
    assert types[-1] == "turn/completed"
    seqs = [m["seq"] for m in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs
    # A wildcard subscriber got it live; starting a thread must not hand it a second copy.
    watcher, _ = await hello(bridge)
    assert (await request(watcher, "subscribe", threadId="*"))["kind"] == "subscribed"
    again = await request(watcher, "startThread", cwd=str(ws_dir), prompt="again")
    events, _ = await until_turn_completed(watcher, again["threadId"], timeout=20)
    assert [m["type"] for m in events].count("thread/started") == 1
    await ws.close()
    await watcher.close()


async def test_codex_flood_arrives_complete_in_order_with_bounded_memory(bridge_factory, tmp_path):
    """100k notifications: every one arrives once, in order. A client that falls behind is closed with 1013
    (its queue is bounded) and resumes from the journal with subscribe.afterSeq, as BRIDGE.md tells it to."""
    count = 100_000
    bridge, ws_dir = fake_bridge(bridge_factory, tmp_path, "flood", FAKE_CODEX_COUNT=str(count))
    ws, _ = await hello(bridge)
    started = await request(ws, "startThread", cwd=str(ws_dir), prompt="flood")
    thread = started["threadId"]
    expected = 0
    peak_rss = 0
    last_seq = None
    reconnects = 0
    done = False
    while not done:
        try:
            if ws is None:
                ws, _ = await hello(bridge)
                answer = await request(ws, "subscribe", threadId=thread, afterSeq=last_seq)
                assert answer["kind"] == "subscribed" and answer.get("resume", "ok") == "ok", answer
            async for msg in frames(ws, timeout=120):
                if msg["kind"] != "event" or msg["threadId"] != thread:
                    continue
                if last_seq is not None:
                    assert msg["seq"] == last_seq + 1
                last_seq = msg["seq"]
                if msg["type"] == "item/agentMessage/delta":
                    assert msg["data"]["delta"] == f"{expected} "
                    expected += 1
                    if expected % 10_000 == 0:
                        peak_rss = max(peak_rss, rss_kib(bridge.proc.pid))
                elif msg["type"] == "turn/completed":
                    done = True
                    break
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is None or closed.rcvd.code == 1013, closed
            reconnects += 1
            assert reconnects < 50
            ws = None
    assert expected == count
    assert peak_rss < 400 * 1024, f"bridge RSS peaked at {peak_rss} KiB"


def rss_kib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def test_unsubscribe_stops_a_threads_events(bridge_factory, tmp_path):
    """unsubscribe answers unsubscribed (it was refused as an unknown thread for every thread) and the
    session gets no more of that thread's events; unsubscribing from a thread it never had is harmless."""
    bridge, ws_dir = fake_bridge(bridge_factory, tmp_path, "normal")
    starter, _ = await hello(bridge)
    watcher, _ = await hello(bridge)
    started = await request(starter, "startThread", cwd=str(ws_dir), prompt="go")
    thread = started["threadId"]
    await until_turn_completed(starter, thread, timeout=20)
    assert (await request(watcher, "subscribe", threadId=thread))["kind"] == "subscribed"
    left = await request(watcher, "unsubscribe", threadId=thread)
    assert left == {"kind": "unsubscribed", "id": left["id"], "threadId": thread}, left
    never = await request(watcher, "unsubscribe", threadId="never-subscribed")
    assert never["kind"] == "unsubscribed", never
    # A second turn on the thread: the starter sees it, the watcher does not.
    assert (await request(starter, "sendMessage", threadId=thread, text="more"))["kind"] == "accepted"
    await until_turn_completed(starter, thread, timeout=20)
    try:
        async for msg in frames(watcher, timeout=1.5):
            assert not (msg["kind"] == "event" and msg["threadId"] == thread), msg
    except asyncio.TimeoutError:
        pass  # nothing for 1.5 s after the turn completed: as expected
    await starter.close()
    await watcher.close()
