// What the phone says when voice or dictation cannot work: one sentence per cause, saying what to do. The
// bridge's refusals carry a code (BRIDGE.md, startVoice); the phone's own causes (plain http, a microphone
// refused, no speech recognition) are worded here too, so the voice mode and the composer's Dictate button say
// the same thing. Returns {text, command?}: the command is shown as code inside the sentence.

const TLS = 'codex-bridge serve --tls';

/** The sentence for a refusal or failure; err: {code, message, machineName?} (a bridge error or the phone's own). */
export function voiceErrorWords(err) {
  const code = err && err.code;
  switch (code) {
    case 'insecure_context':
      return { text: `The microphone needs https, and this page came over plain http: run ${TLS} on the workstation and scan the first code it prints.`, command: TLS };
    case 'microphone_denied':
      return { text: 'The microphone was not allowed: allow it for this site in the browser\'s settings, then try again.' };
    case 'no_microphone':
      return { text: 'This phone has no microphone the browser can use.' };
    // The bridge's refusals (BRIDGE.md, the error codes table), in the order it checks them.
    case 'voice_no_login':
      return { text: 'Voice needs Codex signed in with ChatGPT: on the workstation, run codex login and choose Sign in with ChatGPT.', command: 'codex login' };
    case 'voice_api_key':
      return { text: 'Voice needs Codex signed in with ChatGPT, and it uses an API key or another provider: on the workstation, run codex login and choose Sign in with ChatGPT.', command: 'codex login' };
    case 'voice_disabled':
      return { text: 'Voice is turned off in Codex on the workstation: set realtime_conversation = true under [features] in ~/.codex/config.toml, then try again.', command: 'realtime_conversation = true' };
    case 'voice_no_turn':
      return { text: 'Voice continues a conversation: send a first message in this thread, then try again.' };
    case 'voice_unavailable':
      return { text: `${err.machineName ? `${err.machineName}'s bridge has no voice` : 'This thread\'s machine has no voice'}: update codex-bridge there, or use Dictate.` };
    case 'unknown_kind': // a bridge from before voice
      return { text: 'This workstation\'s codex-bridge has no voice yet: update it there, or use Dictate.' };
    case 'conflict':
      return { text: 'Another phone is talking in this thread: end that voice session first.' };
    case 'no_webrtc':
      return { text: 'This browser cannot make the audio call (WebRTC), and this workstation\'s bridge cannot carry the audio itself: update codex-bridge there, or use Dictate.' };
    case 'webrtc_failed':
      return { text: 'The audio connection to the model could not be set up from this network. Try again, or use Dictate.' };
    case 'ended_closed':
      return { text: `Codex ended the voice session${err.message ? `: ${err.message}` : '.'}` };
    case 'ended_error':
      return { text: `The voice session failed${err.message ? `: ${err.message}` : '.'} Try again, or use Dictate.` };
    case 'ended_codexStopped':
      return { text: 'Codex stopped on the workstation, so the voice session ended.' };
    case 'ended_disconnected':
    case 'ended_by_reconnect':
      return { text: 'The connection to the workstation was lost, so the voice session ended.' };
    default:
      return { text: (err && err.message) || 'Voice could not start.' };
  }
}

/** Why dictation is not offered here, or null when it is: {text, command?}. */
export function dictationBlocked(env) {
  if (!env.secure) return { text: `Dictation needs the microphone, which needs https, and this page came over plain http: run ${TLS} on the workstation and scan the first code it prints.`, command: TLS };
  if (env.speech || (env.record && env.attach)) return null;
  if (env.record) return { text: 'This browser has no speech recognition, and a recording goes only to a thread on this workstation, not a linked machine\'s: type instead.' };
  return { text: 'This browser has neither speech recognition nor audio recording: type, or use the keyboard\'s own dictation.' };
}

/** How dictation works here: 'speech' (the browser's speech recognition), 'record' (a clip sent as an attachment
 * the agent transcribes) or null (dictationBlocked says why). env: {secure, speech, record, attach}. */
export function dictationKind(env) {
  if (!env.secure) return null;
  if (env.speech) return 'speech';
  if (env.record && env.attach) return 'record';
  return null;
}

/** The environment dictationKind reads, from a window. */
export function dictationEnv(win, attach = true) {
  return {
    secure: !!win.isSecureContext,
    speech: !!(win.SpeechRecognition || win.webkitSpeechRecognition),
    record: !!(win.MediaRecorder && win.navigator && win.navigator.mediaDevices && win.navigator.mediaDevices.getUserMedia),
    attach,
  };
}

/** A sentence as text and a code element for its command: [string, {code}, string]. */
export function sentenceParts(words) {
  if (!words.command) return [words.text];
  const at = words.text.indexOf(words.command);
  if (at < 0) return [words.text];
  return [words.text.slice(0, at), { code: words.command }, words.text.slice(at + words.command.length)];
}
