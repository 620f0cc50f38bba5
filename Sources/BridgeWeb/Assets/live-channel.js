// The live channel (BRIDGE.md "Live channel"): binary frames on the session's socket for live-only streams (the
// voice's audio), never journaled. A frame is a 6-byte header (version 1, type, big-endian uint32 stream id) and
// the payload. A stream is opened by a text request whose answer carries `streamId`; this module only moves its
// bytes, with back-pressure both ways by the watermarks of `helloAck.live`.

export const FRAME = Object.freeze({ data: 0, pause: 1, resume: 2, end: 3 });
export const HEADER = 6;
const VERSION = 1;

/** One frame as the bytes of a binary message. */
export function encodeFrame(type, streamId, payload = new Uint8Array(0)) {
  const out = new Uint8Array(HEADER + payload.byteLength);
  const view = new DataView(out.buffer);
  view.setUint8(0, VERSION);
  view.setUint8(1, type);
  view.setUint32(2, streamId >>> 0, false);
  out.set(payload, HEADER);
  return out;
}

/** A binary message as `{type, streamId, payload}`, or null when it is not a frame this version reads. */
export function decodeFrame(message) {
  const bytes = message instanceof Uint8Array ? message : new Uint8Array(message);
  if (bytes.byteLength < HEADER) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint8(0) !== VERSION) return null;
  const type = view.getUint8(1);
  if (type > FRAME.end) return null; // a later version's type: ignored, as the contract says
  return { type, streamId: view.getUint32(2, false), payload: bytes.subarray(HEADER) };
}

/**
 * The live streams of one connection.
 * - `send(bytes)`: writes one binary message on the socket; false when it is not open.
 * - `bufferedAmount()`: the socket's bytes not yet sent (`WebSocket.bufferedAmount`).
 * - `limits`: `helloAck.live` ({maxFrame, highWater, lowWater}).
 * - `wait(ms)`: a promise resolved after `ms` (injected in tests); the socket has no event when its buffer drains.
 */
export class LiveChannel {
  constructor({ send, bufferedAmount = () => 0, limits, wait = (ms) => new Promise((r) => setTimeout(r, ms)) }) {
    this.sendBytes = send;
    this.bufferedAmount = bufferedAmount;
    this.limits = limits;
    this.wait = wait;
    this.streams = new Map();
  }

  /**
   * The stream `streamId` (from the answer that opened it). `onData(bytes)` gets its bytes in order; when it
   * returns a promise, the bytes count as unread until it settles, and the bridge is paused while more than
   * `highWater` are unread (resumed at `lowWater`). `onEnd()` is called once when it ends, either side.
   */
  stream(streamId, { onData = () => {}, onEnd = () => {} } = {}) {
    const stream = new LiveStream(this, streamId, onData, onEnd);
    this.streams.set(streamId, stream);
    return stream;
  }

  /** One binary message from the bridge. */
  receive(message) {
    const frame = decodeFrame(message);
    if (!frame) return;
    const stream = this.streams.get(frame.streamId);
    if (!stream) return; // a stream this page forgot: the bridge ends it when its owner stops
    stream.received(frame);
  }

  /** The connection is gone: every stream ends (streams do not survive a reconnect). */
  close() {
    for (const stream of [...this.streams.values()]) stream.finish();
  }
}

class LiveStream {
  constructor(channel, id, onData, onEnd) {
    Object.assign(this, { channel, id, onData, onEnd });
    this.ended = false;
    this.pausedByBridge = false;
    this.pausedBridge = false; // this page sent pause and owes a resume
    this.unread = 0;
    this.wakers = [];
  }

  /** Sends `bytes` (a Uint8Array) in frames of at most maxFrame; waits while the bridge paused the stream or the
   * socket holds more than highWater (until lowWater). Resolves false once the stream ended. */
  async send(bytes) {
    const { maxFrame, highWater, lowWater } = this.channel.limits;
    const step = maxFrame - HEADER;
    for (let at = 0; at < bytes.byteLength; at += step) {
      if (!(await this.room(highWater, lowWater))) return false;
      if (!this.channel.sendBytes(encodeFrame(FRAME.data, this.id, bytes.subarray(at, at + step)))) return false;
    }
    return !this.ended;
  }

  async room(highWater, lowWater) {
    while (!this.ended && this.pausedByBridge) await new Promise((resolve) => this.wakers.push(resolve));
    if (this.channel.bufferedAmount() > highWater) {
      while (!this.ended && this.channel.bufferedAmount() > lowWater) await this.channel.wait(10);
    }
    return !this.ended;
  }

  /** Asks the bridge to hold this stream's data (the page's own consumer fell behind), and to go on. */
  pause() { if (!this.ended) this.channel.sendBytes(encodeFrame(FRAME.pause, this.id)); }
  resume() { if (!this.ended) this.channel.sendBytes(encodeFrame(FRAME.resume, this.id)); }

  /** Ends the stream: the bridge stops what it was for. */
  end() {
    if (this.ended) return;
    this.channel.sendBytes(encodeFrame(FRAME.end, this.id));
    this.finish();
  }

  received(frame) {
    if (this.ended) return;
    switch (frame.type) {
      case FRAME.data: return this.deliver(frame.payload);
      case FRAME.pause: this.pausedByBridge = true; return;
      case FRAME.resume: this.pausedByBridge = false; return this.wake();
      case FRAME.end: return this.finish();
    }
  }

  deliver(payload) {
    const result = this.onData(payload);
    if (!result || typeof result.then !== 'function') return;
    const { highWater, lowWater } = this.channel.limits;
    this.unread += payload.byteLength;
    if (this.unread > highWater && !this.pausedBridge) { this.pausedBridge = true; this.pause(); }
    const settled = () => {
      this.unread -= payload.byteLength;
      if (this.pausedBridge && this.unread <= lowWater) { this.pausedBridge = false; this.resume(); }
    };
    result.then(settled, settled);
  }

  wake() { for (const resolve of this.wakers.splice(0)) resolve(); }

  finish() {
    if (this.ended) return;
    this.ended = true;
    this.channel.streams.delete(this.id);
    this.wake();
    this.onEnd();
  }
}
