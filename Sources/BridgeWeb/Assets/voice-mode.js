// The voice mode of a thread: talk with Codex through its realtime voice (BRIDGE.md, startVoice). It takes the
// composer's place while open: a state line (asking for the microphone, connecting, listening, Codex speaking, or
// the sentence of what went wrong and what to do), the talk button (hold to talk) or hands-free, the voice picker
// and End. What is said on both sides lands in the thread as items (the bridge journals the transcripts), so the
// conversation above fills in as it goes. The states are voice-state.js's; the audio is voice-call.js's.
import { h, icon } from './dom.js';
import { initialVoice, voiceStep, voiceActive, micOpen, needsTeardown, phaseWords, viaWords } from './voice-state.js';
import { voiceErrorWords } from './voice-words.js';
import { openMicrophone, webrtcCall } from './voice-call.js';
import { pcmPipe } from './voice-pcm.js';
import { sentenceNodes } from './dictation.js';
import { machineName } from './fleet.js';

const MODE_KEY = 'codex-bridge.voice.mode';
const VOICE_KEY = 'codex-bridge.voice.name';

const stored = (key) => { try { return localStorage.getItem(key); } catch { return null; } };
const store = (key, value) => { try { localStorage.setItem(key, value); } catch { /* private mode: not kept */ } };

/** The voices listVoices answers, as {id, label}: names or {id|name, label?}. */
export function voiceOptions(answer) {
  const list = Array.isArray(answer && answer.voices) ? answer.voices : [];
  return list.map((v) => (typeof v === 'string' ? { id: v, label: v } : { id: String(v.id ?? v.name ?? ''), label: String(v.label ?? v.name ?? v.id ?? '') }))
    .filter((v) => v.id);
}

/**
 * request(kind, fields): the thread's requests (threadId added); onOpen(open): the composer hides or shows;
 * liveStream(): the socket's live channel (BRIDGE.md "Live channel", live-channel.js) as `open(streamId, {onData(bytes),
 * onEnd()}) → {send(bytes), end()}`, or null when the bridge has none: the audio's way through the bridge where
 * the browser cannot make the WebRTC call.
 * Returns {el, open(), close(), connectionChanged(status), bridgeSaid(change), destroy()}.
 */
export function voiceMode({ request, onOpen, liveStream = () => null }) {
  let state = initialVoice(stored(MODE_KEY) === 'hold' ? 'hold' : 'handsfree');
  let stream = null; // the microphone
  let call = null; // the WebRTC session (voice-call.js)
  let relay = null; // or the audio through the bridge: {close()}
  let websocketVoices = []; // the voices of a session through the bridge (listVoices)
  let tellBridge = true; // false when the connection is gone: the bridge ended the session itself
  // The bridge answered startVoice: it holds this phone's session. Only then does ending it here send stopVoice,
  // which stops the thread's session whoever started it: a refused start (another phone talking) must not.
  let ours = false;
  // A WebRTC attempt stopped to start again through the bridge: its bridge/voice `ended` is not this session's end.
  // The journal's order tells them apart: that end comes before the new session's `started` (transport websocket).
  let staleEnd = false;

  const audio = h('audio', { class: 'voice-audio', attrs: { autoplay: '' } });
  const line = h('p', { class: 'voice-line', attrs: { role: 'status', 'aria-live': 'polite' } });
  const via = h('p', { class: 'voice-via', hidden: true });
  const problem = h('p', { class: 'voice-problem', hidden: true, attrs: { role: 'alert' } });
  const orb = h('div', { class: 'voice-orb', attrs: { 'aria-hidden': 'true' } }, icon('wave'));
  const talk = h('button', { type: 'button', class: 'voice-talk', attrs: { 'aria-label': 'Hold and speak' } }, icon('mic'));
  const handsfree = h('button', { type: 'button', class: 'voice-mode-button', text: 'Hands-free', attrs: { 'aria-pressed': 'false' } });
  const hold = h('button', { type: 'button', class: 'voice-mode-button', text: 'Hold to talk', attrs: { 'aria-pressed': 'false' } });
  const modes = h('div', { class: 'voice-modes', attrs: { role: 'group', 'aria-label': 'How to talk' } }, handsfree, hold);
  const picker = h('select', { class: 'voice-picker', attrs: { 'aria-label': 'Codex\'s voice' } }, h('option', { value: '', text: 'Default voice' }));
  const again = h('button', { type: 'button', class: 'secondary voice-again', text: 'Try again', hidden: true });
  const end = h('button', { type: 'button', class: 'voice-end' }, icon('stop'), h('span', { text: 'End voice' }));
  const el = h('section', { class: 'voice-panel', hidden: true, attrs: { 'aria-label': 'Voice' } },
    h('div', { class: 'voice-top' }, picker, modes),
    h('div', { class: 'voice-middle' }, orb, talk),
    line, via, problem,
    h('div', { class: 'voice-actions' }, again, end),
    audio);

  function render() {
    const { phase, mode } = state;
    el.dataset.phase = phase;
    el.dataset.mode = mode;
    line.textContent = phaseWords(state);
    line.hidden = !line.textContent;
    via.textContent = viaWords(state);
    via.hidden = !via.textContent;
    if (phase === 'error') problem.replaceChildren(...sentenceNodes(voiceErrorWords(state.error)));
    problem.hidden = phase !== 'error';
    again.hidden = phase !== 'error';
    handsfree.setAttribute('aria-pressed', String(mode === 'handsfree'));
    hold.setAttribute('aria-pressed', String(mode === 'hold'));
    talk.hidden = mode !== 'hold';
    talk.disabled = !(phase === 'listening' || phase === 'speaking');
    talk.classList.toggle('held', state.holding);
    orb.hidden = mode === 'hold';
    orb.classList.toggle('live', micOpen(state));
    end.lastChild.textContent = voiceActive(state) ? 'End voice' : 'Close';
    end.firstChild.style.display = voiceActive(state) ? '' : 'none'; // the stop square only where something stops
    end.disabled = phase === 'stopping';
  }

  function teardown(before) {
    call?.close();
    call = null;
    relay?.close();
    relay = null;
    for (const t of stream?.getTracks() || []) t.stop();
    stream = null;
    // A start still unanswered is stopped when its answer comes (begin); one answered, now.
    if (tellBridge && ours && before.phase !== 'asking') request('stopVoice', {}).catch(() => {});
    ours = false;
  }

  function dispatch(event) {
    const before = state;
    state = voiceStep(state, event);
    if (state === before) return;
    if (needsTeardown(before, state)) teardown(before);
    for (const t of stream?.getAudioTracks() || []) t.enabled = micOpen(state);
    render();
  }

  // listVoices answers with the same refusals as startVoice (BRIDGE.md): asked first, it says whether voice can work
  // at all before the browser asks for the microphone. Asked once per screen; a refusal is asked again next time.
  let voices = null;
  function loadVoices() {
    voices ||= request('listVoices', {}).then((answer) => {
      const options = voiceOptions(answer);
      const chosen = stored(VOICE_KEY);
      // Codex's default voice is the first choice, by its name (sent as no `voice`: Codex's default, whatever it is).
      const fallback = typeof answer.defaultVoice === 'string' && answer.defaultVoice ? answer.defaultVoice : 'Default voice';
      picker.replaceChildren(h('option', { value: '', text: fallback }), ...options.filter((v) => v.id !== fallback).map((v) => h('option', { value: v.id, text: v.label })));
      if (chosen && options.some((v) => v.id === chosen)) picker.value = chosen;
      picker.disabled = false;
      websocketVoices = Array.isArray(answer.websocketVoices) ? answer.websocketVoices : [];
    }).catch((err) => {
      voices = null;
      picker.disabled = true;
      throw err;
    });
    return voices;
  }

  /** A refusal naming a linked machine gets its name, for the sentence. */
  const named = (err) => (err && err.code === 'voice_unavailable' && err.machine ? { code: err.code, message: err.message, machineName: machineName(err.machine) } : err);

  async function begin() {
    tellBridge = true;
    staleEnd = false;
    dispatch('start');
    const n = state.session;
    const mine = () => state.session === n && voiceActive(state);
    try {
      if (!window.isSecureContext) throw { code: 'insecure_context' }; // said before anything is asked
      await loadVoices();
    } catch (err) {
      // A refusal (no ChatGPT sign-in, the feature off, …) before the microphone is asked for; any other failure
      // of listVoices is left to startVoice to say.
      if (err && (err.code === 'insecure_context' || err.code === 'unknown_kind' || String(err.code).startsWith('voice_'))) {
        dispatch({ type: 'refused', error: named(err), session: n });
        return;
      }
    }
    if (!mine()) return;
    // Neither way for the audio: said before the microphone is asked for.
    if (!window.RTCPeerConnection && !liveStream()) { dispatch({ type: 'refused', error: { code: 'no_webrtc' }, session: n }); return; }
    try {
      const mic = await openMicrophone();
      if (!mine()) { for (const t of mic.getTracks()) t.stop(); return; }
      stream = mic;
      dispatch({ type: 'granted', session: n });
    } catch (err) {
      dispatch({ type: 'failed', error: err, session: n });
      return;
    }
    const voice = picker.value;
    if (!window.RTCPeerConnection) { await throughBridge(n, mine, voice); return; }
    try {
      call = webrtcCall({
        stream, audio,
        startVoice: (sdp) => request('startVoice', { sdp, ...(voice ? { voice } : {}) }).then((answer) => { ours = mine(); return answer; }),
        onConnected: () => dispatch({ type: 'connected', transport: 'webrtc', session: n }),
        onSpeaking: (on) => dispatch({ type: on ? 'speaking' : 'quiet', session: n }),
        // Not connected in time (or ICE failed): again through the bridge. A call that connected and then failed
        // is over (state listening or speaking): said, not started again behind the person's back.
        onFailed: (error) => (state.phase === 'connecting' ? fallBack(n, mine, voice, error) : dispatch({ type: 'failed', error, session: n })),
      });
    } catch {
      await fallBack(n, mine, voice, { code: 'webrtc_failed' }); // the browser refused the peer connection itself
      return;
    }
    try {
      const started = await call.start();
      if (started.closed || !mine()) {
        // Ended here while the bridge was starting it (End, leaving the thread, or a reconnect: the connection sends
        // an unanswered request again on its next socket), and the bridge started it all the same: stopped, so no
        // session outlives the phone's.
        request('stopVoice', {}).catch(() => {});
        return;
      }
      if (started.live) dispatch({ type: 'refused', error: { code: 'no_webrtc' }, session: n }); // an sdp answered without one
    } catch (err) {
      // The bridge's refusals carry a code (a string); a browser's own failure (its offer, the answer it could not
      // take) is a DOMException: the call cannot be made here, the bridge can still carry the audio.
      if (typeof err?.code === 'string') dispatch({ type: 'refused', error: named(err), session: n });
      else await fallBack(n, mine, voice, { code: 'webrtc_failed' });
    }
  }

  /** The WebRTC call did not connect: that attempt is stopped at the bridge, and the session starts again with its
   * audio through the bridge (the live channel); without one, the failure is said. */
  async function fallBack(n, mine, voice, error) {
    if (!mine() || state.phase !== 'connecting' || state.fallback) return;
    call?.close();
    call = null;
    if (!liveStream()) { dispatch({ type: 'failed', error, session: n }); return; }
    dispatch({ type: 'fallback', session: n });
    if (ours) {
      ours = false;
      staleEnd = true;
      await request('stopVoice', {}).catch(() => {});
    }
    if (mine()) await throughBridge(n, mine, voice);
  }

  /** The session with its audio through the bridge: startVoice without sdp, PCM on the live stream it opens. */
  async function throughBridge(n, mine, voice) {
    const open = liveStream();
    if (!open) { dispatch({ type: 'refused', error: { code: 'no_webrtc' }, session: n }); return; }
    let answer;
    try { answer = await request('startVoice', websocketVoices.includes(voice) ? { voice } : {}); }
    catch (err) { dispatch({ type: 'refused', error: named(err), session: n }); return; }
    if (!mine()) { request('stopVoice', {}).catch(() => {}); return; }
    ours = true;
    // A bridge that started the session but gave no stream to carry its audio: nothing could be heard.
    if (typeof answer.streamId !== 'number') { dispatch({ type: 'refused', error: { code: 'no_webrtc' }, session: n }); return; }
    let pipe = null;
    const live = open(answer.streamId, {
      onData: (bytes) => pipe?.play(bytes),
      onEnd: () => dispatch({ type: 'failed', error: { code: 'ended_closed' }, session: n }),
    });
    pipe = pcmPipe({ stream, send: (bytes) => live.send(bytes), onSpeaking: (on) => dispatch({ type: on ? 'speaking' : 'quiet', session: n }) });
    relay = { close() { pipe.close(); live.end(); } };
    dispatch({ type: 'connected', transport: 'live', session: n });
  }

  async function finish() {
    if (!voiceActive(state)) { close(); return; }
    dispatch('stop');
    dispatch('stopped');
    close();
  }

  function open() {
    el.hidden = false;
    onOpen(true);
    if (!voiceActive(state)) begin();
    render();
    (voiceActive(state) ? end : again).focus({ preventScroll: true });
  }

  function close() {
    dispatch('ended');
    dispatch('dismiss');
    el.hidden = true;
    onOpen(false);
  }

  // Hold to talk: the microphone is open while the button is held (pointer or Space/Enter).
  const press = (e) => { e.preventDefault(); dispatch('press'); };
  const release = () => dispatch('release');
  talk.addEventListener('pointerdown', press);
  for (const type of ['pointerup', 'pointercancel', 'pointerleave']) talk.addEventListener(type, release);
  talk.addEventListener('contextmenu', (e) => e.preventDefault()); // a long press is not a menu here
  talk.addEventListener('keydown', (e) => { if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) press(e); });
  talk.addEventListener('keyup', (e) => { if (e.key === ' ' || e.key === 'Enter') release(); });
  handsfree.addEventListener('click', () => { dispatch({ type: 'mode', mode: 'handsfree' }); store(MODE_KEY, 'handsfree'); });
  hold.addEventListener('click', () => { dispatch({ type: 'mode', mode: 'hold' }); store(MODE_KEY, 'hold'); });
  picker.addEventListener('change', () => store(VOICE_KEY, picker.value));
  again.addEventListener('click', () => { dispatch('dismiss'); begin(); });
  end.addEventListener('click', finish);
  render();

  return {
    el,
    open,
    close,
    get active() { return voiceActive(state); },
    /** The connection to the bridge went away: the bridge ends the session; here it ends too, and says so. */
    connectionChanged(status) {
      if (status === 'connected' || !voiceActive(state)) return;
      tellBridge = false;
      dispatch({ type: 'failed', error: { code: 'ended_by_reconnect' } });
    },
    /** The bridge's bridge/voice event for this thread: ended (stopped elsewhere, by Codex, an error) ends it here. */
    bridgeSaid(change) {
      if (change.state === 'started' && change.transport === 'websocket') staleEnd = false;
      if (change.state === 'ended' && staleEnd) { staleEnd = false; return; }
      if (change.state !== 'ended' || !voiceActive(state) || state.phase === 'asking') return;
      tellBridge = false;
      if (change.reason === 'stopped') { dispatch('ended'); close(); return; }
      dispatch({ type: 'failed', error: { code: `ended_${change.reason || 'closed'}`, message: change.message } });
    },
    /** Leaving the thread: nothing keeps listening. */
    destroy() { if (voiceActive(state)) dispatch('ended'); },
  };
}
