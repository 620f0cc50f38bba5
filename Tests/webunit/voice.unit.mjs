// The voice mode's state machine (voice-state.js) and the words of its refusals and of dictation (voice-words.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initialVoice, voiceStep, voiceActive, micOpen, needsTeardown, phaseWords, viaWords } from '../../Sources/BridgeWeb/Assets/voice-state.js';
import { voiceErrorWords, dictationBlocked, dictationKind, dictationEnv, sentenceParts } from '../../Sources/BridgeWeb/Assets/voice-words.js';

const run = (s, ...events) => events.reduce(voiceStep, s);

test('a session: asking → connecting → listening ⇄ speaking → stopping → idle', () => {
  let s = initialVoice();
  const seen = [];
  for (const e of ['start', 'granted', { type: 'connected', transport: 'webrtc' }, 'speaking', 'quiet', 'stop', 'stopped']) {
    s = voiceStep(s, e);
    seen.push(s.phase);
  }
  assert.deepEqual(seen, ['asking', 'connecting', 'listening', 'speaking', 'listening', 'stopping', 'idle']);
  assert.equal(s.session, 1);
  assert.equal(s.transport, null);
});

test('the transport the bridge chose is kept while connected: live when it says so', () => {
  const s = run(initialVoice(), 'start', 'granted', { type: 'connected', transport: 'live' });
  assert.equal(s.transport, 'live');
  assert.equal(run(s, 'speaking').transport, 'live');
});

test('a WebRTC call that did not connect: again through the bridge, once, without a teardown, and said', () => {
  const connecting = run(initialVoice(), 'start', 'granted');
  const falling = voiceStep(connecting, { type: 'fallback', session: connecting.session });
  assert.equal(falling.phase, 'connecting');
  assert.equal(falling.fallback, true);
  assert.equal(needsTeardown(connecting, falling), false, 'the microphone stays: the same session, another way');
  assert.equal(phaseWords(falling), 'Connecting through the bridge…');
  assert.equal(voiceStep(falling, 'fallback'), falling, 'falls back once: a second failure is an error');
  const live = voiceStep(falling, { type: 'connected', transport: 'live' });
  assert.equal(viaWords(live), 'Voice over the bridge\'s connection: the direct call did not connect.');
  assert.equal(viaWords(run(initialVoice(), 'start', 'granted', { type: 'connected', transport: 'live' })), 'Voice over the bridge\'s connection.');
  assert.equal(viaWords(run(initialVoice(), 'start', 'granted', { type: 'connected', transport: 'webrtc' })), '');
  const listening = run(initialVoice(), 'start', 'granted', 'connected');
  assert.equal(voiceStep(listening, 'fallback'), listening, 'a call that connected is not started again');
  assert.equal(run(live, 'stop', 'stopped', 'start').fallback, false, 'a new session tries the call again');
  assert.equal(voiceStep(falling, { type: 'failed', error: { code: 'webrtc_failed' } }).phase, 'error');
});

test('a refusal is an error holding the bridge\'s error; Start again begins a new session', () => {
  const refusal = { code: 'voice_no_login', message: 'no ChatGPT login' };
  const s = run(initialVoice(), 'start', 'granted', { type: 'refused', error: refusal });
  assert.equal(s.phase, 'error');
  assert.equal(s.error, refusal);
  assert.equal(voiceActive(s), false);
  const again = run(s, 'start');
  assert.deepEqual([again.phase, again.error, again.session], ['asking', null, 2]);
});

test('the microphone refused: an error saying so, no connection attempted', () => {
  const s = run(initialVoice(), 'start', 'denied');
  assert.deepEqual([s.phase, s.error.code], ['error', 'microphone_denied']);
  assert.equal(voiceStep(s, 'granted'), s, 'a late permission answer changes nothing');
});

test('ended (left the thread, a reconnect) from any phase goes straight to idle; teardown is due once', () => {
  for (const events of [['start'], ['start', 'granted'], ['start', 'granted', 'connected'], ['start', 'granted', 'connected', 'speaking'], ['start', 'granted', 'connected', 'stop']]) {
    const before = run(initialVoice(), ...events);
    const after = voiceStep(before, 'ended');
    assert.equal(after.phase, 'idle', events.join(','));
    assert.equal(micOpen(after), false);
  }
  const listening = run(initialVoice(), 'start', 'granted', 'connected');
  assert.equal(needsTeardown(listening, voiceStep(listening, 'ended')), true);
  assert.equal(needsTeardown(listening, voiceStep(listening, 'stop')), true);
  const stopping = voiceStep(listening, 'stop');
  assert.equal(needsTeardown(stopping, voiceStep(stopping, 'stopped')), false, 'torn down already on stop');
  assert.equal(voiceStep(initialVoice(), 'ended').phase, 'idle');
});

test('events out of order change nothing (the same object back)', () => {
  const idle = initialVoice();
  for (const e of ['granted', 'denied', 'connected', 'speaking', 'quiet', 'stop', 'stopped', 'press', 'release', 'dismiss', { type: 'refused', error: {} }, 'nonsense']) {
    assert.equal(voiceStep(idle, e), idle, JSON.stringify(e));
  }
  const listening = run(idle, 'start', 'granted', 'connected');
  assert.equal(voiceStep(listening, 'start'), listening, 'Start while a session runs starts nothing');
  assert.equal(voiceStep(listening, 'connected'), listening);
});

test('an answer from an earlier session is ignored once another began', () => {
  let s = run(initialVoice(), 'start', 'granted');
  const old = s.session;
  s = run(s, 'ended', 'start', 'granted');
  assert.equal(voiceStep(s, { type: 'connected', session: old }), s);
  assert.equal(voiceStep(s, { type: 'refused', error: { code: 'x' }, session: old }), s);
  assert.equal(voiceStep(s, { type: 'connected', session: s.session }).phase, 'listening');
});

test('hold to talk: the microphone is open only while held; hands-free: whenever connected', () => {
  let s = run(initialVoice('hold'), 'start', 'granted', 'connected');
  assert.equal(micOpen(s), false);
  assert.equal(phaseWords(s), 'Hold the button and speak');
  s = voiceStep(s, 'press');
  assert.equal(micOpen(s), true);
  assert.equal(phaseWords(s), 'Listening…');
  s = voiceStep(s, 'release');
  assert.equal(micOpen(s), false);
  s = run(s, 'press', { type: 'mode', mode: 'handsfree' });
  assert.deepEqual([s.mode, s.holding, micOpen(s)], ['handsfree', false, true]);
  assert.equal(voiceStep(s, 'press'), s, 'nothing to hold in hands-free');
  assert.equal(micOpen(voiceStep(s, 'stop')), false);
  assert.equal(micOpen(run(initialVoice(), 'start', 'granted')), false, 'not before connected');
  assert.equal(voiceStep(s, { type: 'mode', mode: 'loud' }), s);
});

test('the state line\'s words', () => {
  const words = ['start', 'granted', 'connected', 'speaking', 'stop'].map((_e, i, all) => phaseWords(run(initialVoice(), ...all.slice(0, i + 1))));
  assert.deepEqual(words, ['Asking for the microphone…', 'Connecting…', 'Listening…', 'Codex is speaking', 'Ending…']);
});

test('each refusal says what to do, with the command as code', () => {
  const http = voiceErrorWords({ code: 'insecure_context' });
  assert.match(http.text, /plain http: run codex-bridge serve --tls on the workstation/);
  assert.deepEqual(sentenceParts(http)[1], { code: 'codex-bridge serve --tls' });
  assert.match(voiceErrorWords({ code: 'voice_no_login' }).text, /run codex login/);
  assert.deepEqual(sentenceParts(voiceErrorWords({ code: 'voice_no_login' }))[1], { code: 'codex login' });
  assert.match(voiceErrorWords({ code: 'voice_api_key' }).text, /API key/);
  assert.match(voiceErrorWords({ code: 'voice_disabled' }).text, /realtime_conversation = true/);
  assert.match(voiceErrorWords({ code: 'voice_no_turn' }).text, /send a first message/);
  assert.equal(voiceErrorWords({ code: 'voice_unavailable', machineName: 'build-box' }).text, 'build-box\'s bridge has no voice: update codex-bridge there, or use Dictate.');
  assert.match(voiceErrorWords({ code: 'ended_closed', message: 'provider hung up' }).text, /Codex ended the voice session: provider hung up/);
  assert.equal(voiceErrorWords({ code: 'something_new', message: 'The bridge says why.' }).text, 'The bridge says why.');
  assert.match(voiceErrorWords({ code: 'unknown_kind', message: "unknown kind 'startVoice'" }).text, /has no voice yet: update it/);
  assert.deepEqual(sentenceParts({ text: 'plain' }), ['plain']);
});

test('dictation: speech recognition first, a recording where the thread takes attachments, else why not', () => {
  const env = (over) => ({ secure: true, speech: false, record: false, attach: true, ...over });
  assert.equal(dictationKind(env({ speech: true, record: true })), 'speech');
  assert.equal(dictationKind(env({ record: true })), 'record');
  assert.equal(dictationKind(env({ record: true, attach: false })), null);
  assert.match(dictationBlocked(env({ record: true, attach: false })).text, /linked machine/);
  assert.equal(dictationBlocked(env({ speech: true })), null);
  assert.match(dictationBlocked(env({})).text, /neither speech recognition nor audio recording/);
  const http = dictationBlocked(env({ secure: false, speech: true }));
  assert.equal(dictationKind(env({ secure: false, speech: true })), null);
  assert.match(http.text, /plain http: run codex-bridge serve --tls/);
  assert.equal(http.command, 'codex-bridge serve --tls');
  const win = { isSecureContext: true, webkitSpeechRecognition: class {}, navigator: {} };
  assert.deepEqual(dictationEnv(win), { secure: true, speech: true, record: false, attach: true });
});

test('transcripts: each journaled part an item of the thread, once, whether live, replayed or in readThread', async () => {
  const { ThreadStore } = await import('../../Sources/BridgeWeb/Assets/threads.js');
  const store = new ThreadStore();
  const seen = [];
  store.watchThread('t', (c) => seen.push(c.type === 'voice' ? `voice:${c.state}:${c.reason || c.transport}` : c.type));
  store.applyMessage({ kind: 'event', threadId: 't', type: 'turn/started', turnId: 'u1', data: { turn: { id: 'u1' } } });
  const said = { kind: 'event', seq: 7, threadId: 't', type: 'bridge/voiceTranscript', data: { threadId: 't', role: 'user', text: 'list the files' } };
  store.applyMessage(said);
  store.applyMessage(said); // replayed after a reconnect
  store.applyMessage({ kind: 'event', seq: 8, threadId: 't', type: 'bridge/voiceTranscript', data: { threadId: 't', role: 'assistant', text: 'Sure.' } });
  const t = store.get('t');
  const parts = t.turns[0].items.map((id) => t.itemMap.get(id).item).filter((i) => i.type === 'voiceTranscript');
  assert.deepEqual(parts.map((p) => [p.role, p.text]), [['user', 'list the files'], ['assistant', 'Sure.']]);
  store.applyMessage({ kind: 'event', seq: 9, threadId: 't', type: 'bridge/voice', data: { threadId: 't', state: 'ended', reason: 'closed', message: 'bye' } });
  assert.ok(seen.includes('voice:ended:closed'));
  // A start says its transport: the voice mode tells a fallback's new session from the attempt it stopped.
  store.applyMessage({ kind: 'event', seq: 11, threadId: 't', type: 'bridge/voice', data: { threadId: 't', state: 'started', transport: 'websocket' } });
  assert.ok(seen.includes('voice:started:websocket'), seen);
  const notice = t.itemMap.get('voice-state-9').item;
  assert.equal(notice.text, 'Voice ended by Codex. bye');
  // readThread's `voice`: the same parts by seq, none twice.
  store.applyThreadAnswer('t', { thread: { id: 't', turns: [{ id: 'u1', status: 'completed', items: [] }] },
    voice: [{ seq: 7, role: 'user', text: 'list the files' }, { seq: 8, role: 'assistant', text: 'Sure.' }, { seq: 10, role: 'user', text: 'thanks' }] });
  const after = t.turns[0].items.map((id) => t.itemMap.get(id).item).filter((i) => i.type === 'voiceTranscript');
  assert.deepEqual(after.map((p) => p.text), ['list the files', 'Sure.', 'thanks']);
});

test('readThread puts a transcript part where it was said: before the first item started after it, else last', async () => {
  const { ThreadStore } = await import('../../Sources/BridgeWeb/Assets/threads.js');
  const store = new ThreadStore();
  const turn = (id, ...items) => ({ id, status: 'completed', items: items.map((i) => ({ id: i, type: 'agentMessage', text: i })) });
  // Said after u1's answer, before u2 (the hand-off: last in u1, as it was live) and in u2 between its two items; the
  // last after everything; one before an item this page does not hold (an older turn, or one Codex does not keep):
  // last, as without a place.
  store.applyThreadAnswer('t', { thread: { id: 't', turns: [turn('u1', 'a1'), turn('u2', 'm2', 'a2')] },
    voice: [{ seq: 5, role: 'user', text: 'do it', beforeItemId: 'm2' }, { seq: 6, role: 'assistant', text: 'on it', beforeItemId: 'a2' },
      { seq: 9, role: 'assistant', text: 'done' }, { seq: 10, role: 'user', text: 'odd', beforeItemId: 'gone' }] });
  const t = store.get('t');
  assert.deepEqual(t.turns.map((u) => u.items), [['a1', 'voice-5'], ['m2', 'voice-6', 'a2', 'voice-9', 'voice-10']]);
  // Read again: each once, where it was.
  store.applyThreadAnswer('t', { thread: { id: 't', turns: [turn('u1', 'a1'), turn('u2', 'm2', 'a2')] },
    voice: [{ seq: 5, role: 'user', text: 'do it', beforeItemId: 'm2' }] });
  assert.deepEqual(t.turns.map((u) => u.items), [['a1', 'voice-5'], ['m2', 'voice-6', 'a2', 'voice-9', 'voice-10']]);
});

test('audio through the bridge: 24 kHz 16-bit little-endian PCM both ways, in 40 ms frames', async () => {
  const { toPcm16, fromPcm16, framesOf, RATE } = await import('../../Sources/BridgeWeb/Assets/voice-pcm.js');
  assert.equal(RATE, 24000);
  // 48 kHz in, half as many samples out; full scale clipped, sign kept, little-endian.
  const pcm = toPcm16(Float32Array.from([0, 0, 1, 1, -1, -1, 2, 2]), 48000);
  assert.deepEqual([...pcm], [0x00, 0x00, 0xff, 0x7f, 0x00, 0x80, 0xff, 0x7f]);
  assert.deepEqual([...fromPcm16(pcm)].map((v) => Math.round(v * 1000) / 1000), [0, 1, -1, 1]);
  assert.equal(fromPcm16(new Uint8Array([1, 0, 7])).length, 1, 'an odd last byte is dropped');
  assert.equal(toPcm16(new Float32Array(RATE), RATE).length, RATE * 2, 'at 24 kHz already: one sample each');
  // Frames of 1920 bytes; what is left waits for the next chunk.
  let cut = framesOf(new Uint8Array(0), new Uint8Array(3000));
  assert.deepEqual([cut.frames.length, cut.frames[0].length, cut.rest.length], [1, 1920, 1080]);
  cut = framesOf(cut.rest, new Uint8Array(840));
  assert.deepEqual([cut.frames.length, cut.rest.length], [1, 0]);
});
