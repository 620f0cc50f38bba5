// The voice mode's states, as a value and a pure step function (no DOM, no sockets), so every transition is tested
// in node (Tests/webunit/voice.unit.mjs). voice-mode.js feeds it what happens (the person's taps, the microphone's
// answer, the bridge's answer, the audio) and does what the new state says: open or close the microphone, show
// the words.
//
//   idle ─start→ asking (the microphone's permission) ─granted→ connecting ─connected→ listening ⇄ speaking
//   connecting ─fallback (the WebRTC call did not connect: again through the bridge)→ connecting
//   any active state ─stop→ stopping ─stopped→ idle;  ─refused / failed / denied→ error ─start→ asking …
//   any state ─ended (left the thread, the connection went away)→ idle, at once: nothing stays half-open.

export const PHASES = ['idle', 'asking', 'connecting', 'listening', 'speaking', 'stopping', 'error'];
const ACTIVE = new Set(['asking', 'connecting', 'listening', 'speaking']);

/** The state a thread screen starts with. mode: 'hold' (hold to talk) or 'handsfree'. */
export function initialVoice(mode = 'handsfree') {
  return { phase: 'idle', mode, holding: false, error: null, transport: null, fallback: false, session: 0 };
}

/** A session runs or is on its way: Stop is offered, leaving must end it. */
export const voiceActive = (s) => ACTIVE.has(s.phase);

/**
 * The next state. Events: {type: 'start'} | 'granted' | 'denied' | {type: 'connected', transport} | 'fallback' | 'speaking' |
 * 'quiet' | 'stop' | 'stopped' | {type: 'refused', error} | {type: 'failed', error} | 'ended' | {type: 'mode', mode} |
 * 'press' | 'release'. An event that does not apply to the state leaves it as it is (the same object), so a late
 * answer of an ended session changes nothing; events of a session carry its number (`session`) and are ignored
 * once another session started.
 */
export function voiceStep(s, event) {
  const e = typeof event === 'string' ? { type: event } : event;
  if (e.session !== undefined && e.session !== s.session) return s; // from a session that is over
  switch (e.type) {
    case 'start':
      if (s.phase !== 'idle' && s.phase !== 'error') return s;
      return { ...s, phase: 'asking', error: null, transport: null, fallback: false, holding: false, session: s.session + 1 };
    case 'granted':
      return s.phase === 'asking' ? { ...s, phase: 'connecting' } : s;
    case 'denied':
      return s.phase === 'asking' ? { ...s, phase: 'error', error: { code: 'microphone_denied' } } : s;
    case 'connected':
      return s.phase === 'connecting' ? { ...s, phase: 'listening', transport: e.transport || 'webrtc' } : s;
    case 'fallback':
      return s.phase === 'connecting' && !s.fallback ? { ...s, fallback: true } : s;
    case 'speaking':
      return s.phase === 'listening' ? { ...s, phase: 'speaking' } : s;
    case 'quiet':
      return s.phase === 'speaking' ? { ...s, phase: 'listening' } : s;
    case 'stop':
      return voiceActive(s) ? { ...s, phase: 'stopping', holding: false } : s;
    case 'stopped':
      return s.phase === 'stopping' ? { ...s, phase: 'idle', transport: null } : s;
    case 'refused':
    case 'failed':
      return voiceActive(s) ? { ...s, phase: 'error', holding: false, transport: null, error: e.error || { code: e.type } } : s;
    case 'ended':
      return s.phase === 'idle' ? s : { ...s, phase: 'idle', holding: false, transport: null, error: null };
    case 'dismiss':
      return s.phase === 'error' ? { ...s, phase: 'idle', error: null } : s;
    case 'mode':
      return e.mode === s.mode || (e.mode !== 'hold' && e.mode !== 'handsfree') ? s : { ...s, mode: e.mode, holding: false };
    case 'press':
      return s.mode === 'hold' && !s.holding && (s.phase === 'listening' || s.phase === 'speaking') ? { ...s, holding: true } : s;
    case 'release':
      return s.holding ? { ...s, holding: false } : s;
    default:
      return s;
  }
}

/** The microphone's track carries sound: connected, and hands-free or the talk button held. */
export function micOpen(s) {
  return (s.phase === 'listening' || s.phase === 'speaking') && (s.mode === 'handsfree' || s.holding);
}

/** The session must be torn down (microphone, peer connection, the bridge told) on entering this state. */
export function needsTeardown(before, after) {
  return voiceActive(before) && !voiceActive(after);
}

/** Which way the audio goes, when it is not the direct call: said under the state line. */
export function viaWords(s) {
  if (s.transport !== 'live' || !voiceActive(s)) return '';
  return s.fallback ? 'Voice over the bridge\'s connection: the direct call did not connect.' : 'Voice over the bridge\'s connection.';
}

/** The words of the state line; errors are worded by voice-words.js. */
export function phaseWords(s) {
  switch (s.phase) {
    case 'asking': return 'Asking for the microphone…';
    case 'connecting': return s.fallback ? 'Connecting through the bridge…' : 'Connecting…';
    case 'listening':
      if (s.mode === 'hold') return s.holding ? 'Listening…' : 'Hold the button and speak';
      return 'Listening…';
    case 'speaking': return 'Codex is speaking';
    case 'stopping': return 'Ending…';
    default: return '';
  }
}
