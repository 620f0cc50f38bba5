// Dictate, in the composer: speech into the message box, the fallback wherever the voice mode cannot run. The
// browser's speech recognition where it has one (the words land in the box, to read before sending); otherwise a
// recording sent as an audio attachment that the agent transcribes (BRIDGE.md, Attachments: audio clips); where
// neither can work (plain http: no microphone at all) the button stays, marked unavailable, and a tap says why and
// what to do (voice-words.js).
import { h, icon } from './dom.js';
import { dictationBlocked, dictationEnv, dictationKind, sentenceParts, voiceErrorWords } from './voice-words.js';

// The browser has speech recognition but it failed for want of its service (Chromium without Google's keys says
// `network`; one that cannot capture audio itself says `audio-capture`): recording works all the same, so this page
// records from then on.
let speechBroken = false;
const BROKEN = new Set(['network', 'audio-capture', 'service-not-allowed', 'language-not-supported']);

/** A sentence with its command as code, as nodes. */
export function sentenceNodes(words) {
  return sentenceParts(words).map((p) => (typeof p === 'string' ? p : h('code', { text: p.code })));
}

/**
 * input: the message box; attachAllowed(): the thread takes attachments (its machine is this workstation);
 * attach(file): adds a file to the message; changed(): the box's text changed; note: where a sentence is shown.
 * Returns {button, update()}.
 */
export function dictation({ input, attachAllowed, attach, changed, note }) {
  const button = h('button', { type: 'button', class: 'dictate', attrs: { 'aria-label': 'Dictate', 'aria-pressed': 'false' } }, icon('mic'));
  let recognition = null; // the running SpeechRecognition
  let recorder = null; // the running MediaRecorder
  let env = dictationEnv(window, attachAllowed());

  function say(words, role = 'status') {
    note.setAttribute('role', role);
    note.replaceChildren(...sentenceNodes(words));
    note.hidden = false;
  }
  const quiet = () => { note.hidden = true; note.replaceChildren(); };
  const pressed = (on) => { button.setAttribute('aria-pressed', String(on)); button.classList.toggle('on', on); };

  function update() {
    env = dictationEnv(window, attachAllowed());
    if (speechBroken) env.speech = false;
    const blocked = dictationBlocked(env);
    button.setAttribute('aria-disabled', String(!!blocked));
    button.title = blocked ? blocked.text : (dictationKind(env) === 'speech' ? 'Speak; the words go into the message' : 'Record; the clip goes with the message and Codex transcribes it');
  }

  function speak() {
    const Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
    recognition = new Recognition();
    recognition.lang = navigator.language || 'en-US';
    recognition.interimResults = true;
    recognition.continuous = false;
    const before = input.value ? `${input.value.replace(/\s+$/, '')} ` : '';
    recognition.onresult = (e) => {
      const words = [...e.results].map((r) => r[0].transcript).join('');
      input.value = before + words;
      changed();
    };
    let fallBack = false;
    recognition.onerror = (e) => {
      if (e.error === 'not-allowed') say(voiceErrorWords({ code: 'microphone_denied' }), 'alert');
      else if (BROKEN.has(e.error)) { speechBroken = true; update(); fallBack = true; }
      else if (e.error !== 'no-speech' && e.error !== 'aborted') say({ text: `Dictation stopped: ${e.error}.` }, 'alert');
    };
    recognition.onend = () => {
      recognition = null;
      pressed(false);
      if (!fallBack) return;
      const blocked = dictationBlocked(env);
      if (blocked) say({ text: `This browser's speech recognition does not work here. ${blocked.text}` }, 'alert');
      else record();
    };
    recognition.start();
    pressed(true);
    quiet();
  }

  async function record() {
    let stream;
    try { stream = await navigator.mediaDevices.getUserMedia({ audio: true }); }
    catch (err) { say(voiceErrorWords({ code: err && err.name === 'NotFoundError' ? 'no_microphone' : 'microphone_denied' }), 'alert'); return; }
    const chunks = [];
    recorder = new MediaRecorder(stream);
    recorder.ondataavailable = (e) => { if (e.data && e.data.size) chunks.push(e.data); };
    recorder.onstop = () => {
      for (const t of stream.getTracks()) t.stop();
      recorder = null;
      pressed(false);
      const type = (chunks[0] && chunks[0].type) || 'audio/webm';
      const blob = new Blob(chunks, { type });
      if (blob.size) attach(new File([blob], `dictation.${type.includes('mp4') ? 'm4a' : type.includes('ogg') ? 'ogg' : 'webm'}`, { type }));
      say({ text: 'The recording goes with your message; Codex transcribes it.' });
    };
    recorder.start();
    pressed(true);
    say({ text: 'Recording… tap Dictate again to stop.' });
  }

  button.addEventListener('click', () => {
    if (recognition) { recognition.stop(); return; }
    if (recorder) { recorder.stop(); return; }
    update();
    const blocked = dictationBlocked(env);
    if (blocked) { say(blocked); return; }
    if (dictationKind(env) === 'speech') speak();
    else record();
  });

  update();
  return {
    button,
    update,
    /** Leaving the thread: nothing keeps listening. */
    destroy() {
      if (recognition) { recognition.onend = null; recognition.abort(); recognition = null; }
      if (recorder) { recorder.onstop = null; for (const t of recorder.stream.getTracks()) t.stop(); recorder = null; }
    },
  };
}
