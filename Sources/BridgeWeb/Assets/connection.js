// The WebSocket to the bridge (same origin): hello/helloAck, requests with ids, a seq cursor so that every
// event is delivered exactly once across reconnects (hello.resume), reconnect with backoff and jitter, and at
// once when the page becomes visible again, the network comes back, the workstation answers again (probe.js) or
// the person taps Try now.
//
// The browser's idea of the network (`navigator.onLine`, `online`/`offline`) is only a hint: a phone whose
// link dropped for a moment may report offline while its socket still works, or online while the socket is
// dead. So the app keeps trying (at most MAX_DELAY apart) whatever the browser says, gives up on an attempt
// that hangs (a lost SYN waits minutes), pings a socket that has been quiet, and takes every network event as
// a reason to check the socket now.
import { LiveChannel } from './live-channel.js';
import { Probe } from './probe.js';

const RESENT = new Set(['approvalRequest', 'inputRequest', 'messageQueued', 'queueChanged']);

export class RequestError extends Error {
  constructor(code, message, scope, machine) {
    super(message || code);
    this.code = code;
    this.scope = scope; // with `forbidden`: the scope this device lacks
    this.machine = machine; // in a fleet session: the linked machine that refused or could not be reached
  }
}

const BASE_DELAY = 500;
const FIRST_RETRY = 60; // ms (and as much again at most, jitter): the first attempt after a connection is lost
const MAX_DELAY = 10000; // the longest wait between two attempts, jitter included
const OFFLINE_AFTER = 3; // consecutive failed attempts before the indicator says "Workstation unreachable"
const ATTEMPT_TIMEOUT = 10000; // an attempt with no helloAck by then is abandoned
const QUIET_PING = 25000; // a socket that received nothing for this long is pinged
const PONG_WAIT = 5000; // …and dropped when the pong does not come within this

export class Connection {
  /**
   * options.helloFields(): the token/device part of the next hello (called for every attempt).
   * options.onAck(ack, {first, gap}), options.onMessage(msg), options.onStatus(status, detail),
   * options.onRejected(ack): a failed handshake (unauthorized, version_unsupported…).
   * options.onPending(pairingPending): the workstation must confirm this pairing first (the helloAck follows).
   */
  constructor(options) {
    this.options = options;
    this.url = options.url || `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
    // Between attempts, a cheap look whether the workstation answers again: then an attempt at once.
    this.probe = new Probe(options.healthUrl || new URL('/healthz', this.url.replace(/^ws/, 'http')).href, () => this.tryNow({ quiet: true }), options.fetch);
    this.ws = null;
    this.ready = false;
    this.cursor = null; // the highest seq handled; null until the first helloAck
    this.pending = new Map(); // id -> {frame, resolve, reject, timer}
    this.prefix = `w${Math.random().toString(36).slice(2, 8)}${Date.now().toString(36)}-`;
    this.counter = 0;
    this.failures = 0;
    this.timer = null;
    this.stopped = false;
    this.status = 'connecting';
    this.ackedSeq = 0;
    this.everConnected = false;
    this.lastHeard = 0; // when the socket last received anything
    this.ackTimer = setInterval(() => { this.sendAck(); this.keepAlive(); }, 3000);
    this.onVisible = () => { if (document.visibilityState === 'visible') this.check(); };
    this.onOnline = () => this.check();
    this.onOffline = () => this.check(); // not "unreachable" on the browser's word: the socket may still work
    document.addEventListener('visibilitychange', this.onVisible);
    addEventListener('online', this.onOnline);
    addEventListener('offline', this.onOffline);
    addEventListener('pageshow', this.onVisible);
  }

  start() {
    this.stopped = false;
    this.open();
  }

  stop() {
    this.stopped = true;
    this.probe.stop();
    clearTimeout(this.timer);
    clearInterval(this.ackTimer);
    document.removeEventListener('visibilitychange', this.onVisible);
    removeEventListener('online', this.onOnline);
    removeEventListener('offline', this.onOffline);
    removeEventListener('pageshow', this.onVisible);
    if (this.ws) this.ws.close(1000);
    for (const p of this.pending.values()) p.reject(new RequestError('closed', 'The connection was closed'));
    this.pending.clear();
  }

  setStatus(status, detail) {
    if (this.status === status && !detail) return;
    this.status = status;
    this.options.onStatus?.(status, detail);
  }

  open() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    clearTimeout(this.attemptTimer);
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (_) {
      this.failures += 1;
      this.scheduleReconnect();
      return;
    }
    ws.binaryType = 'arraybuffer'; // the live channel's frames (live-channel.js)
    this.ws = ws;
    this.ready = false;
    this.attemptStarted = Date.now();
    let acked = false;
    // An attempt that neither fails nor succeeds (a SYN lost while the link was down) is given up.
    this.attemptTimer = setTimeout(() => {
      if (this.ws !== ws || acked) return;
      this.drop(ws);
      this.failures += 1;
      this.scheduleReconnect();
    }, ATTEMPT_TIMEOUT);
    const early = []; // frames that arrived before the helloAck (kept, handled right after it)
    ws.onopen = () => {
      const frame = { kind: 'hello', version: 1, ...this.options.helloFields() };
      if (this.cursor !== null) frame.resume = { lastSeq: this.cursor };
      ws.send(JSON.stringify(frame));
      // The requests already waiting (the thread list's, say) go right behind the hello: the bridge answers them
      // after its helloAck, in order, a round trip sooner than if they waited for the ack.
      for (const p of this.pending.values()) { ws.send(p.text); p.sentOn = ws; }
    };
    ws.onmessage = (e) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      if (typeof e.data !== 'string') { this.live?.receive(e.data); return; }
      let msg;
      try { msg = JSON.parse(e.data); } catch (_) { return; }
      if (!msg || typeof msg !== 'object') return;
      if (!acked) {
        if (msg.kind === 'pairingPending') {
          // A pairing that waits for the workstation ignores what was sent behind its hello: sent again at the ack.
          for (const p of this.pending.values()) if (p.sentOn === ws) p.sentOn = null;
          this.options.onPending?.(msg);
          return;
        }
        if (msg.kind !== 'helloAck') { early.push(msg); return; }
        acked = true;
        this.handleAck(ws, msg);
        if (this.ready && ws === this.ws) for (const m of early.splice(0)) this.dispatch(m);
        return;
      }
      this.dispatch(msg);
    };
    ws.onclose = (e) => {
      if (ws !== this.ws) return;
      clearTimeout(this.attemptTimer);
      this.ws = null;
      this.ready = false;
      this.live?.close(); // live streams do not survive a reconnect
      this.live = null;
      if (this.stopped || this.rejected) return;
      this.failures += acked ? 0 : 1;
      this.scheduleReconnect(e.code);
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  handleAck(ws, ack) {
    if (!ack.ok) {
      const code = ack.error && ack.error.code;
      if (code === 'rate_limited' && !this.options.stopOnRateLimit?.()) {
        this.failures = Math.max(this.failures, 4);
        this.limited = true; // no probe either: the workstation answers, it asks for a pause
        return; // the close follows; retry with a long delay
      }
      this.rejected = true;
      this.probe.stop();
      this.setStatus('rejected');
      this.options.onRejected?.(ack);
      return;
    }
    clearTimeout(this.attemptTimer);
    this.probe.stop();
    this.limited = false;
    // The live channel of this socket, when the bridge speaks it (`helloAck.live`): a stream is taken with
    // `connection.live.stream(streamId, {onData, onEnd})` once a request's answer gives its `streamId`.
    this.live = ack.live ? new LiveChannel({
      send: (bytes) => { if (this.ws !== ws || ws.readyState !== 1) return false; ws.send(bytes); return true; },
      bufferedAmount: () => ws.bufferedAmount,
      limits: ack.live,
    }) : null;
    const first = this.cursor === null;
    const gap = ack.resume === 'gap';
    if (first || gap || typeof ack.lastSeq !== 'number') this.cursor = ack.lastSeq || 0;
    this.failures = 0;
    this.ready = true;
    this.everConnected = true;
    // Requests whose answer never came are sent again with the same id: the bridge answers a repeated id once
    // (startThread, sendMessage, interrupt, approve) and read-only requests are safe to repeat.
    // (Not those sent behind the hello on this socket: the bridge answers them after this ack.)
    for (const p of this.pending.values()) if (p.sentOn !== ws) { ws.send(p.text); p.sentOn = ws; }
    this.setStatus('connected');
    this.options.onAck?.(ack, { first, gap });
  }

  dispatch(msg) {
    if (typeof msg.seq === 'number') {
      // A message at or below the cursor was handled already (a replay overlapping what came live). Pending
      // approvals, questions and queued messages are sent again on (re)subscribe with their original seq; the
      // store deduplicates them by id.
      if (msg.seq <= this.cursor && !RESENT.has(msg.kind)) return;
      if (msg.seq > this.cursor) this.cursor = msg.seq;
    } else if (msg.id !== undefined && msg.kind !== 'event') {
      const p = this.pending.get(msg.id);
      if (p) {
        this.pending.delete(msg.id);
        clearTimeout(p.timer);
        if (msg.kind === 'error') p.reject(new RequestError(msg.code, msg.message, msg.scope, typeof msg.machine === 'string' ? msg.machine : undefined));
        else p.resolve(msg);
        return;
      }
    }
    if (msg.kind === 'pong') return; // heard: lastHeard moved
    this.options.onMessage?.(msg);
  }

  /** A request id of this connection's (for a request sent again later with the same id: held.js). */
  newId() { return this.prefix + (++this.counter); }

  /** Sends a request; resolves with its answer, rejects with a RequestError. Survives reconnects. */
  /** options.id: the frame's id when the request names something by it (editQueued); else one of this connection's. */
  request(kind, fields = {}, { timeout = 0, id: named } = {}) {
    const id = named || this.newId();
    if (this.pending.has(id)) return Promise.reject(new RequestError('conflict', 'The same request is still waiting for its answer'));
    const text = JSON.stringify({ kind, id, ...fields });
    return new Promise((resolve, reject) => {
      const entry = { text, resolve, reject, timer: null, sentOn: null };
      if (timeout) {
        entry.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new RequestError('timeout', 'The workstation did not answer in time'));
        }, timeout);
      }
      this.pending.set(id, entry);
      if (this.ready && this.ws) { this.ws.send(text); entry.sentOn = this.ws; }
    });
  }

  sendAck() {
    if (!this.ready || !this.ws || this.cursor === null || this.cursor <= this.ackedSeq) return;
    this.ackedSeq = this.cursor;
    this.ws.send(JSON.stringify({ kind: 'ack', seq: this.cursor }));
  }

  scheduleReconnect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const offline = (typeof navigator !== 'undefined' && navigator.onLine === false) || this.failures >= OFFLINE_AFTER;
    this.setStatus(offline ? 'offline' : 'reconnecting');
    // Exponential backoff with jitter, capped: the first retry comes at once (a blip), none waits more than
    // MAX_DELAY; meanwhile the probe looks every half second whether the workstation answers again.
    const cap = Math.min(MAX_DELAY, BASE_DELAY * 2 ** Math.min(this.failures, 6));
    const delay = this.failures === 0 ? FIRST_RETRY + Math.random() * FIRST_RETRY : cap / 2 + Math.random() * cap / 2;
    this.timer = setTimeout(() => this.open(), delay);
    if (this.rejected || this.limited) this.probe.stop();
    else this.probe.start();
  }

  reconnectNow() {
    if (this.stopped || this.rejected) return;
    if (this.ws && (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)) return;
    this.failures = Math.min(this.failures, 1);
    this.open();
  }

  /**
   * Try now (the person's button, or the probe found the workstation answering): an attempt at once, replacing one
   * that has hung for a moment (a connection begun while the link was down waits for a lost SYN). `quiet`: the
   * probe's, which leaves an attempt begun less than a second ago alone.
   */
  tryNow({ quiet = false } = {}) {
    if (this.stopped || this.rejected) return;
    if (this.ws && this.ws.readyState === WebSocket.OPEN) return;
    if (this.ws && this.ws.readyState === WebSocket.CONNECTING) {
      if (Date.now() - this.attemptStarted < (quiet ? 1000 : 300)) return;
      this.drop(this.ws);
    }
    this.open();
  }

  /** Forgets a socket without waiting for its close (which may take minutes on a dead link). */
  drop(ws) {
    if (this.ws === ws) {
      this.ws = null;
      this.ready = false;
    }
    try { ws.close(); } catch (_) { /* already closing */ }
  }

  /**
   * The page became visible again or the network changed: a socket may be dead without knowing it. Ping an
   * open one (dropped and replaced when no pong comes); start a new attempt at once when there is none, or
   * when the current attempt has been hanging for a while.
   */
  check() {
    if (this.stopped || this.rejected) return;
    if (this.ws && this.ws.readyState === WebSocket.CONNECTING) {
      if (Date.now() - this.attemptStarted < 2000) return; // just started (e.g. pageshow right after load)
      this.drop(this.ws);
      this.failures = Math.min(this.failures, 1);
      this.open();
      return;
    }
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) { this.reconnectNow(); return; }
    if (this.ready) this.ping();
  }

  /** Pings a connected socket that has been quiet for a while (a link that died silently sends nothing). */
  keepAlive() {
    if (!this.ready || !this.ws || this.pinging) return;
    if (Date.now() - this.lastHeard >= QUIET_PING) this.ping();
  }

  ping() {
    if (this.pinging === this.ws) return;
    const ws = this.ws;
    const sent = Date.now();
    this.pinging = ws;
    ws.send(JSON.stringify({ kind: 'ping', nonce: String(sent) }));
    setTimeout(() => {
      if (this.pinging === ws) this.pinging = null;
      if (this.ws !== ws || this.lastHeard >= sent) return;
      // No answer: drop it and start over now.
      this.drop(ws);
      this.failures = 0;
      this.open();
    }, PONG_WAIT);
  }
}
