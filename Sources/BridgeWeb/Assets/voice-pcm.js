// The voice's audio through the bridge, for a browser that cannot make the WebRTC call (no RTCPeerConnection) or a
// network where it does not connect: the microphone as 16-bit little-endian PCM, mono, 24 kHz, sent on a live
// stream (BRIDGE.md "Live channel", `startVoice` without `sdp`), and the model's voice, in the same format,
// played as it comes. The conversions are pure functions (tested in node); pcmPipe does the Web Audio part.

export const RATE = 24000;
const CHUNK_MS = 40; // what one data frame carries: 1920 bytes

/** Float samples at `from` Hz → 16-bit little-endian PCM at RATE (linear interpolation; clipped to ±1). */
export function toPcm16(samples, from) {
  const ratio = from / RATE;
  const count = Math.floor(samples.length / ratio);
  const out = new DataView(new ArrayBuffer(count * 2));
  for (let i = 0; i < count; i++) {
    const at = i * ratio;
    const j = Math.floor(at);
    const next = j + 1 < samples.length ? samples[j + 1] : samples[j];
    const v = Math.max(-1, Math.min(1, samples[j] + (next - samples[j]) * (at - j)));
    out.setInt16(i * 2, v < 0 ? v * 0x8000 : v * 0x7fff, true);
  }
  return new Uint8Array(out.buffer);
}

/** 16-bit little-endian PCM bytes → float samples (an odd last byte is dropped). */
export function fromPcm16(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength - (bytes.byteLength % 2));
  const out = new Float32Array(view.byteLength / 2);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 0x8000;
  return out;
}

/** Joins chunks and cuts them into frames of `size` bytes; returns {frames, rest}. */
export function framesOf(rest, chunk, size = (RATE * 2 * CHUNK_MS) / 1000) {
  const all = new Uint8Array(rest.length + chunk.length);
  all.set(rest);
  all.set(chunk, rest.length);
  const frames = [];
  let at = 0;
  for (; at + size <= all.length; at += size) frames.push(all.slice(at, at + size));
  return { frames, rest: all.slice(at) };
}

/**
 * Capture and playback for one session. stream: the microphone; send(bytes): a data frame on the live stream
 * (it holds frames back while the bridge paused the stream); onSpeaking(bool): the model's voice started or
 * stopped. Returns {play(bytes), close()}.
 */
export function pcmPipe({ stream, send, onSpeaking }) {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  const ctx = new Ctx();
  const source = ctx.createMediaStreamSource(stream);
  // ScriptProcessorNode: deprecated but in every engine, and it needs no module file (an AudioWorklet would).
  const tap = ctx.createScriptProcessor(4096, 1, 1);
  let rest = new Uint8Array(0);
  tap.onaudioprocess = (e) => {
    const track = stream.getAudioTracks()[0];
    if (!track || !track.enabled) return; // hold to talk, not held: nothing sent
    const cut = framesOf(rest, toPcm16(e.inputBuffer.getChannelData(0), ctx.sampleRate));
    rest = cut.rest;
    for (const f of cut.frames) send(f);
  };
  source.connect(tap);
  tap.connect(ctx.destination); // a processor runs only when connected; it writes silence

  let playAt = 0;
  let quietTimer = null;
  let speaking = false;
  return {
    play(bytes) {
      const samples = fromPcm16(bytes);
      if (!samples.length) return;
      const buffer = ctx.createBuffer(1, samples.length, RATE);
      buffer.copyToChannel(samples, 0);
      const node = ctx.createBufferSource();
      node.buffer = buffer;
      node.connect(ctx.destination);
      playAt = Math.max(playAt, ctx.currentTime + 0.05);
      node.start(playAt);
      playAt += buffer.duration;
      if (!speaking) { speaking = true; onSpeaking(true); }
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => { speaking = false; onSpeaking(false); }, (playAt - ctx.currentTime) * 1000 + 300);
    },
    close() {
      clearTimeout(quietTimer);
      tap.onaudioprocess = null;
      source.disconnect();
      tap.disconnect();
      ctx.close().catch(() => {});
    },
  };
}
