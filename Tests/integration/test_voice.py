"""Issue 47, the bridge side of voice: the real codex's realtime (`thread/realtime/*`) against realtime_stub.py
(the provider's realtime endpoint on loopback: its websocket events, and a WebRTC call answered by an aiortc peer),
driven by real WebSocket clients. Codex is signed in with ChatGPT offline (mock_model.chatgpt_login) on a provider
that requires OpenAI auth, as voice needs.

Costs (measured with 2 busy cores, setup and teardown included): the WebRTC session 2.6 s (4 s with its three
start-talk-stop rounds), the websocket session and its disconnect 1.8 s, the refusals 4.1 s (three bridges), the
provider refusing the call 2.6 s, the linked machine 3.4 s, the audio on the live channel 2.5 s, a thread without
a turn 3 s; about 28 s in all. Scripts/test runs this file against the oldest supported Codex too (0.160.1 has
the same `thread/realtime/*`, config keys and voices: voice works there, all pass, 33 s)."""
import asyncio
import base64
import json
import sqlite3
import struct
import time

import pytest

from codex_fixture import codex_bin, codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from conftest import run_cli
from fake_bridge import FakeBridge
from mock_model import chatgpt_login, codex_args, codex_env
from realtime_stub import RealtimeStub, make_offer
from test_codex import frames, request, until_turn_completed
from test_fleet import event, fleet_hello, wait_online, workstation  # noqa: F401 (fixture)
from wsutil import hello


@pytest.fixture
def stub():
    s = RealtimeStub().start()
    yield s
    s.stop()


def voice_args(model, codex_home, stub, login=True, extra=()):
    """The bridge's arguments: codex on the scripted model through a provider that requires OpenAI auth (so
    `account/read` reports the sign-in), signed in with ChatGPT (unless `login` is false), realtime at the stub."""
    args = codex_args(model.port)
    args = [a.replace("env_key=", "requires_openai_auth=true,env_key=") for a in args]
    if login:
        args += chatgpt_login(codex_home, model.port)
    args += stub.codex_args() + list(extra)
    out = ["--codex", codex_bin()]
    for flag, value in zip(args[0::2], args[1::2]):
        assert flag == "-c"
        out += ["--codex-config", value]
    return out


@pytest.fixture
def voice_bridge(bridge_factory, model, codex_home, workspace, stub):
    return bridge_factory(name="codex-voice", args=[*voice_args(model, codex_home, stub), "--root", str(workspace)],
                          env=codex_env(codex_home))


async def thread_with_a_turn(ws, model, workspace, text="Hello."):
    model.queue({"kind": "message", "text": text})
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hi")
    assert started["kind"] == "threadStarted", started
    await until_turn_completed(ws, started["threadId"])
    return started["threadId"]


async def events_until(ws, predicate, timeout=20):
    """Frames until `predicate(frame)`; returns every event seen (the matching one last)."""
    seen = []
    async for msg in frames(ws, timeout):
        if msg.get("kind") == "event":
            seen.append(msg)
        if predicate(msg):
            return seen


def voice_state(state):
    return lambda m: m.get("kind") == "event" and m["type"] == "bridge/voice" and m["data"]["state"] == state


def journal_types(bridge):
    with sqlite3.connect(bridge.state_dir / "bridge.sqlite") as db:
        return [row[0] for row in db.execute("SELECT DISTINCT type FROM journal WHERE type IS NOT NULL")]


async def test_webrtc_offer_relayed_transcripts_journaled_stop(voice_bridge, model, workspace, stub):
    phone, _ = await hello(voice_bridge)
    thread_id = await thread_with_a_turn(phone, model, workspace)
    other, _ = await hello(voice_bridge)
    assert (await request(other, "subscribe", threadId=thread_id))["kind"] == "subscribed"

    voices = await request(phone, "listVoices")
    assert voices["kind"] == "voices" and "cove" in voices["voices"] and voices["defaultVoice"] == "cove", voices
    assert "marin" in voices["websocketVoices"] and voices["websocketDefaultVoice"] == "marin", voices

    offer = await make_offer()
    started = await request(phone, "startVoice", threadId=thread_id, voice="cove", sdp=offer)
    assert started["kind"] == "voiceStarted" and started["transport"] == "webrtc", started
    # The model's answer, as the provider gave it to codex, unchanged: the phone talks to the model directly.
    assert stub.answers and started["sdp"] == stub.answers[-1]
    assert "a=setup:" in started["sdp"] and "m=audio" in started["sdp"] and "m=application" in started["sdp"]
    assert offer.split("\r\n")[0] == "v=0" and stub.calls[-1]["body"].count(offer.strip()) == 1
    # Codex joined the call on its side (the sideband) with the voice asked for.
    stub.wait(lambda s: s.of_type("session.update"), what="codex's session.update on the sideband")
    assert "call_id=rtc_" in stub.connections[-1][0]

    await events_until(other, voice_state("started"))
    stub.say(user="please list the files", assistant="Sure, I'll look.")
    for ws in (phone, other):
        said = [m["data"] for m in await events_until(ws, lambda m: m.get("kind") == "event" and m["type"] == "bridge/voiceTranscript"
                                                      and m["data"]["role"] == "assistant")
                if m["type"] == "bridge/voiceTranscript"]
        assert said == [{"threadId": thread_id, "role": "user", "text": "please list the files"},
                        {"threadId": thread_id, "role": "assistant", "text": "Sure, I'll look."}], said

    # A phone opening the thread later reads what was said.
    late, _ = await hello(voice_bridge)
    snapshot = await request(late, "readThread", threadId=thread_id)
    assert [(p["role"], p["text"]) for p in snapshot["voice"]] == [("user", "please list the files"), ("assistant", "Sure, I'll look.")]
    assert all(isinstance(p["seq"], int) for p in snapshot["voice"])

    assert (await request(phone, "stopVoice", threadId=thread_id))["kind"] == "accepted"
    ended = (await events_until(other, voice_state("ended")))[-1]
    assert ended["data"]["reason"] == "stopped", ended
    stub.wait(lambda s: s.open_sockets() == 0, what="codex closing the sideband")
    # Codex's own realtime notifications are never journaled as they are.
    types = journal_types(voice_bridge)
    assert not [t for t in types if t.startswith("thread/realtime/")], types
    assert "bridge/voiceTranscript" in types and "bridge/voice" in types
    # Stopping again is stopping once.
    assert (await request(phone, "stopVoice", threadId=thread_id))["kind"] == "accepted"
    # What was said stays where it was said: a turn after it comes after it in readThread too (each part names the
    # first item started after it; readThread used to leave a client only its turn to go by, the last one).
    model.queue({"kind": "message", "text": "Done."})
    assert (await request(phone, "sendMessage", threadId=thread_id, text="after the voice"))["kind"] == "accepted"
    await until_turn_completed(phone, thread_id)
    snapshot = await request(late, "readThread", threadId=thread_id)
    after = snapshot["thread"]["turns"][-1]["items"][0]["id"]
    assert [p.get("beforeItemId") for p in snapshot["voice"]] == [after, after], (snapshot["voice"], snapshot["thread"]["turns"][-1])
    # Start, stop, start at once: Codex tells the stopped session's end after the new start is sent; that end is
    # not the new session's (it failed the start as "requested" before), and the stop never ends the new one.
    for n in range(3):
        again = await request(phone, "startVoice", threadId=thread_id, sdp=await make_offer())
        assert again["kind"] == "voiceStarted", again
        stub.wait(lambda s: s.open_sockets() == 1, what="codex joining the call")
        stub.say(user=f"round {n}")  # the new session is alive
        await events_until(phone, lambda m: m.get("kind") == "event" and m["type"] == "bridge/voiceTranscript"
                           and m["data"]["text"] == f"round {n}")
        assert (await request(phone, "stopVoice", threadId=thread_id))["kind"] == "accepted"
        stub.wait(lambda s: s.open_sockets() == 0, what="codex leaving the call")


async def test_websocket_session_ends_when_its_phone_disconnects(voice_bridge, model, workspace, stub):
    phone, _ = await hello(voice_bridge)
    thread_id = await thread_with_a_turn(phone, model, workspace)
    other, _ = await hello(voice_bridge)
    await request(other, "subscribe", threadId=thread_id)

    started = await request(phone, "startVoice", threadId=thread_id)
    assert started == {"kind": "voiceStarted", "id": started["id"], "threadId": thread_id, "transport": "websocket",
                       "streamId": 1}, started  # the connection's first live stream
    stub.wait(lambda s: s.open_sockets() == 1, what="codex's realtime websocket")
    # Another connection cannot take the thread's session over.
    taken = await request(other, "startVoice", threadId=thread_id)
    assert taken["kind"] == "error" and taken["code"] == "conflict", taken
    # The model's audio is live only: never journaled.
    stub.speak(b"\x01\x00" * 2400)
    stub.say(assistant="Hello there.")
    await events_until(other, lambda m: m.get("kind") == "event" and m["type"] == "bridge/voiceTranscript")

    await phone.close()
    ended = (await events_until(other, voice_state("ended")))[-1]
    assert ended["data"]["reason"] == "disconnected", ended
    # Nothing half-open: the bridge stopped the session at Codex, which closed its socket to the model.
    stub.wait(lambda s: s.open_sockets() == 0, timeout=10, what="codex closing the realtime socket")
    types = journal_types(voice_bridge)
    assert not [t for t in types if t.startswith("thread/realtime/")], types


async def test_the_provider_refusing_the_call_is_codexs_error(voice_bridge, model, workspace, stub):
    stub.refuse_calls = True
    phone, _ = await hello(voice_bridge)
    thread_id = await thread_with_a_turn(phone, model, workspace)
    refused = await request(phone, "startVoice", threadId=thread_id, sdp=await make_offer())
    assert refused["kind"] == "error" and refused["code"] == "codex_error", refused
    assert stub.open_sockets() == 0
    # Nothing stays: a new start works once the provider does.
    stub.refuse_calls = False
    again = await request(phone, "startVoice", threadId=thread_id, sdp=await make_offer())
    assert again["kind"] == "voiceStarted", again


async def test_refusals(bridge_factory, model, codex_home, workspace, stub, codex_bridge):
    # A custom API-key provider (the scripted model's usual setup): voice_api_key.
    ws, _ = await hello(codex_bridge)
    thread_id = await thread_with_a_turn(ws, model, workspace)
    for kind, fields in (("listVoices", {}), ("startVoice", {"threadId": thread_id})):
        refused = await request(ws, kind, **fields)
        assert refused["kind"] == "error" and refused["code"] == "voice_api_key", refused
    # The request's own mistakes come first.
    for fields, code in (({"sdp": "hello"}, "bad_request"), ({"voice": "Not A Voice"}, "bad_request"),
                         ({"sdp": "v=0\r\n" + "a" * 70000}, "too_large")):
        bad = await request(ws, "startVoice", threadId=thread_id, **fields)
        assert bad["kind"] == "error" and bad["code"] == code, (fields, bad)

    # OpenAI's provider without a ChatGPT sign-in: voice_no_login.
    no_login = bridge_factory(name="codex-voice-nologin", env=codex_env(codex_home / "nologin"),
                              args=[*voice_args(model, codex_home / "nologin", stub, login=False), "--root", str(workspace)])
    ws, _ = await hello(no_login)
    refused = await request(ws, "listVoices")
    assert refused["kind"] == "error" and refused["code"] == "voice_no_login" and "codex login" in refused["message"], refused

    # The feature off: voice_disabled.
    off = bridge_factory(name="codex-voice-off", env=codex_env(codex_home / "off"),
                         args=[*voice_args(model, codex_home / "off", stub, extra=["-c", "features.realtime_conversation=false"]),
                               "--root", str(workspace)])
    ws, _ = await hello(off)
    refused = await request(ws, "listVoices")
    assert refused["kind"] == "error" and refused["code"] == "voice_disabled" and "realtime_conversation" in refused["message"], refused
    assert stub.calls == [] and stub.connections == []


async def test_a_thread_without_a_turn_cannot_start_voice(voice_bridge, model, workspace, stub):
    """voice_no_turn with the real codex: a thread whose only turn was reverted (`revertThread`: Codex's history
    then has no turn) is refused by either way of starting, before anything reaches the provider; listVoices still
    answers for it (the refusal is startVoice's only). After a new turn, voice starts. ~3 s."""
    phone, _ = await hello(voice_bridge)
    thread_id = await thread_with_a_turn(phone, model, workspace)
    turns = (await request(phone, "readThread", threadId=thread_id))["thread"]["turns"]
    assert len(turns) == 1, turns
    assert (await request(phone, "revertThread", threadId=thread_id, turnId=turns[0]["id"]))["kind"] == "accepted"
    assert (await request(phone, "readThread", threadId=thread_id))["thread"]["turns"] == []
    for fields in ({}, {"sdp": await make_offer()}):
        refused = await request(phone, "startVoice", threadId=thread_id, **fields)
        assert refused["kind"] == "error" and refused["code"] == "voice_no_turn", refused
        assert "send it a message first" in refused["message"], refused
    voices = await request(phone, "listVoices", threadId=thread_id)
    assert voices["kind"] == "voices", voices
    assert stub.calls == [] and stub.connections == [], "a refused start reached the provider"

    model.queue({"kind": "message", "text": "Hello again."})
    assert (await request(phone, "sendMessage", threadId=thread_id, text="hi"))["kind"] == "accepted"
    await until_turn_completed(phone, thread_id)
    started = await request(phone, "startVoice", threadId=thread_id, sdp=await make_offer())
    assert started["kind"] == "voiceStarted", started
    assert (await request(phone, "stopVoice", threadId=thread_id))["kind"] == "accepted"
    stub.wait(lambda s: s.open_sockets() == 0, what="codex leaving the call")


async def test_voice_on_a_linked_machine(workstation):
    """A fleet phone's voice on a linked machine's thread (here a FakeBridge): WebRTC goes through the link and the
    phone leaving stops the session there; audio through the bridge is refused before anything is sent; a machine
    whose bridge has no voice (it answers unknown_kind) is voice_unavailable. ~3 s."""
    a, _, _ = workstation("a")
    fake = FakeBridge(name="older").start()
    try:
        linked = json.loads(run_cli("machines", "add", fake.pairing_url, "--json", state_dir=a.state_dir, check=True).stdout)
        fake.wait_connections(2)
        await wait_online(a, linked["id"])
        phone, _ = await fleet_hello(a)
        await request(phone, "subscribe", threadId="*")
        fake.send(event(1, "far-thread", text="hi"))
        await events_until(phone, lambda m: m.get("kind") == "event" and m["threadId"] == "far-thread")

        fake.answers["startVoice"] = {"kind": "error", "code": "unknown_kind", "message": "unknown kind startVoice"}
        old = await request(phone, "startVoice", threadId="far-thread", sdp="v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n")
        assert old["kind"] == "error" and old["code"] == "voice_unavailable" and old["machine"] == linked["id"], old
        before = len([r for r in fake.requests if r["kind"] == "startVoice"])
        through = await request(phone, "startVoice", threadId="far-thread")
        assert through["kind"] == "error" and through["code"] == "voice_unavailable" and "WebRTC" in through["message"], through
        assert len([r for r in fake.requests if r["kind"] == "startVoice"]) == before  # never sent there

        fake.answers["startVoice"] = {"kind": "voiceStarted", "threadId": "far-thread", "transport": "webrtc", "sdp": "v=0\r\nanswer\r\n"}
        fake.answers["stopVoice"] = {"kind": "accepted", "threadId": "far-thread"}
        started = await request(phone, "startVoice", threadId="far-thread", sdp="v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n")
        assert started["kind"] == "voiceStarted" and started["sdp"] == "v=0\r\nanswer\r\n", started
        await phone.close()
        deadline = time.monotonic() + 10
        while not [r for r in fake.requests if r["kind"] == "stopVoice"] and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        stops = [r for r in fake.requests if r["kind"] == "stopVoice"]
        assert [s["threadId"] for s in stops] == ["far-thread"], fake.requests
    finally:
        fake.stop()


async def raw_until(ws, predicate, timeout=15):
    """Raw messages (text parsed, binary as bytes) until `predicate(message)`; returns it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        raw = await asyncio.wait_for(ws.recv(), max(0.01, deadline - loop.time()))
        message = raw if isinstance(raw, bytes) else json.loads(raw)
        if predicate(message):
            return message


async def test_audio_through_the_bridge_on_the_live_channel(voice_bridge, model, workspace, stub):
    """startVoice without sdp: the phone's PCM on its live stream reaches the model (appendAudio), the model's
    audio comes back on the stream, and the phone's `end` stops the session. ~2 s."""
    phone, ack = await hello(voice_bridge)
    assert ack["live"]["version"] == 1, ack
    thread_id = await thread_with_a_turn(phone, model, workspace)
    started = await request(phone, "startVoice", threadId=thread_id)
    assert started["transport"] == "websocket" and isinstance(started["streamId"], int), started
    sid = started["streamId"]

    said = bytes(range(256)) * 19 + b"\x07"  # 4865 bytes: an odd one, carried to the next chunk
    await phone.send(struct.pack(">BBI", 1, 0, sid) + said)
    await phone.send(struct.pack(">BBI", 1, 0, sid) + b"\x08")

    def appended(s):
        return b"".join(base64.b64decode(m["audio"]) for m in s.of_type("input_audio_buffer.append"))
    stub.wait(lambda s: len(appended(s)) >= len(said) + 1, what="the phone's audio at the model")
    assert appended(stub) == said + b"\x08"

    voice = bytes([n % 251 for n in range(4800)])
    stub.speak(voice)
    frame = await raw_until(phone, lambda m: isinstance(m, bytes) and m[:6] == struct.pack(">BBI", 1, 0, sid))
    assert frame[6:] == voice

    await phone.send(struct.pack(">BBI", 1, 3, sid))  # the phone ends the stream: the session stops
    ended = await raw_until(phone, lambda m: isinstance(m, dict) and m.get("kind") == "event" and m["type"] == "bridge/voice"
                            and m["data"]["state"] == "ended")
    assert ended["data"]["reason"] == "stopped", ended
    stub.wait(lambda s: s.open_sockets() == 0, what="codex closing the realtime socket")
    types = journal_types(voice_bridge)
    assert not [t for t in types if t.startswith("thread/realtime/")], types
