// The audio of one voice session: the microphone, the WebRTC peer connection to the model (its SDP offer goes to
// the bridge in startVoice, Codex's answer comes back: audio then flows phone ↔ model without the bridge), the
// model's voice played, and a level meter that says when the model speaks. No DOM but one <audio> element; the
// state machine (voice-state.js) is driven by voice-mode.js from what this reports.

/** Asks for the microphone (the browser's permission prompt the first time). Throws {code} on refusal. */
export async function openMicrophone() {
  if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) throw { code: 'insecure_context' };
  try {
    return await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
  } catch (err) {
    throw { code: err && (err.name === 'NotFoundError' || err.name === 'OverconstrainedError') ? 'no_microphone' : 'microphone_denied' };
  }
}

// A call to the model connects within a second or two where it can; past this, the phone carries the audio through
// the bridge instead (voice-mode.js), so the person does not wait on a network that lets no call through.
const CONNECT_MS = 8000;

/** ICE gathering done, or `ms` passed: the offer then holds the candidates found (the bridge relays one SDP). */
function gathered(pc, ms) {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { pc.removeEventListener('icegatheringstatechange', check); clearTimeout(timer); resolve(); };
    const check = () => { if (pc.iceGatheringState === 'complete') done(); };
    const timer = setTimeout(done, ms);
    pc.addEventListener('icegatheringstatechange', check);
  });
}

/** Calls onLevel(true/false) as the model's audio starts and stops (above a small level for ~200 ms). */
function levelWatch(stream, onLevel) {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return () => {};
  const ctx = new Ctx();
  const analyser = ctx.createAnalyser();
  analyser.fftSize = 512;
  ctx.createMediaStreamSource(stream).connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  let loud = false;
  let since = 0;
  const timer = setInterval(() => {
    analyser.getFloatTimeDomainData(samples);
    let sum = 0;
    for (const v of samples) sum += v * v;
    const now = Math.sqrt(sum / samples.length) > 0.01;
    if (now === loud) { since = 0; return; }
    since += 1;
    if (since >= 2) { loud = now; since = 0; onLevel(loud); }
  }, 100);
  return () => { clearInterval(timer); ctx.close().catch(() => {}); };
}

/**
 * A WebRTC session: start(voice) makes the offer and hands it to `startVoice`; the bridge's answer carries Codex's
 * SDP answer (→ 'webrtc'), or says to use the live channel instead (→ returns {live: true}, and the caller takes
 * that path). events: onConnected(), onSpeaking(bool), onFailed(err). close() ends everything here; the bridge is
 * told by the caller (stopVoice).
 */
export function webrtcCall({ stream, startVoice, audio, onConnected, onSpeaking, onFailed }) {
  const pc = new RTCPeerConnection();
  let stopWatch = () => {};
  let closed = false;
  let waiting = null; // the timer that gives up on a connection that never comes
  for (const track of stream.getAudioTracks()) pc.addTrack(track, stream);
  // The realtime API's event channel (BRIDGE.md asks for it by this name): it says when the model's audio starts
  // and stops, sooner than the level meter hears it.
  const events = pc.createDataChannel('oai-events');
  events.addEventListener('message', (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch { return; }
    if (msg && msg.type === 'output_audio_buffer.started') onSpeaking(true);
    if (msg && (msg.type === 'output_audio_buffer.stopped' || msg.type === 'output_audio_buffer.cleared')) onSpeaking(false);
  });
  pc.addEventListener('track', (e) => {
    const remote = e.streams[0] || new MediaStream([e.track]);
    audio.srcObject = remote;
    audio.play().catch(() => {}); // autoplay after the person's tap is allowed; a refusal leaves the transcript
    stopWatch = levelWatch(remote, onSpeaking);
  });
  pc.addEventListener('connectionstatechange', () => {
    if (closed) return;
    if (pc.connectionState === 'connected') { clearTimeout(waiting); onConnected(); }
    if (pc.connectionState === 'failed') onFailed({ code: 'webrtc_failed' });
  });

  return {
    async start() {
      const offer = await pc.createOffer();
      await pc.setLocalDescription(offer);
      await gathered(pc, 2000);
      const answer = await startVoice(pc.localDescription.sdp);
      if (closed) return { closed: true };
      if (!answer || typeof answer.sdp !== 'string') return { live: true, answer };
      await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
      // A network that lets no path through (UDP blocked, no route to the provider) fails here, sooner than ICE
      // would say so itself.
      if (pc.connectionState !== 'connected') waiting = setTimeout(() => { if (!closed && pc.connectionState !== 'connected') onFailed({ code: 'webrtc_failed' }); }, CONNECT_MS);
      return { answer };
    },
    close() {
      closed = true;
      clearTimeout(waiting);
      stopWatch();
      pc.close();
      audio.srcObject = null;
    },
  };
}
