// The session with the bridge: what this phone knows about it and the one live connection to it. It owns the
// credentials (kept by store.js), a pairing in progress, the bridge's policy and facts (its name, this device's id,
// its push key), the thread list's paging cursor and the connection; it feeds the thread store and says what
// changed. Screens read all of it through the session (`session.request`, `session.policy`, …), never through a
// copy taken once: a new pairing or a new credential replaces the connection under them.
//
// Events (`on(type, fn)` returns a function that stops listening):
//   status (s)          the connection's state: connecting, connected, reconnecting, offline, pending, rejected, unpaired
//   reload              the picture may have changed under the screen (first handshake, a gap, new scopes)
//   fleet               a machine of the fleet changed
//   notice (text, opts) something to tell the person (a toast)
//   paired              a pairing code was redeemed
//   pending (pending)   the workstation must confirm this pairing first
//   pairingFailed (message)  the code did not work (still paired with the bridge known before, if `credentials`)
//   refused (message)   the bridge refused this phone's credential (unpaired, or another reason)
import * as saved from './store.js';
import { Connection, RequestError } from './connection.js';
import { deviceName } from './pairing.js';
import { setScopes, may, scopeRequestEnded } from './scopes.js';
import { describeError } from './ui.js';
import { sendPresence, resyncPush } from './push.js';
import { setMachines, applyMachineChanged, machine, machines, isOffline, machineName } from './fleet.js';
import { HeldMessages } from './held.js';

const PAIRING_ERRORS = {
  unauthorized: 'That code did not work: it is wrong, already used or expired. Run codex-bridge pair for a new one.',
  rate_limited: 'Too many failed attempts from this network: wait a minute, then try again.',
  pairing_denied: 'The workstation denied this pairing. Ask its owner, then scan a new code.',
  pairing_expired: 'Nobody confirmed the pairing on the workstation in time. Scan a new code to try again.',
};

function randomId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export class Session {
  /** store: the ThreadStore this session feeds. */
  constructor(store) {
    this.store = store;
    this.conn = null;
    this.credentials = null; // {serverId, token, static?, clientId?}
    this.pairing = null; // {code, name?} while a pairing code is being redeemed
    this.policy = { roots: [] };
    this.serverName = '';
    this.deviceId = null;
    this.pushPublicKey = null; // the bridge's VAPID key (helloAck.server.pushPublicKey); null: no push
    this.previewPort = null; // where this bridge's previews open (helloAck.previewPort); null: it serves none
    this.nextCursor = null; // listThreads' cursor for the next (older) page
    this.listError = null; // why the list could not be read, in words
    this.status = 'connecting';
    this.listeners = new Map(); // type -> Set(fn)
    // Messages for a linked machine that cannot be reached now wait here, in order, and go when it is back.
    this.held = new HeldMessages({ request: (kind, fields, options) => this.request(kind, fields, options), newId: () => this.conn.newId(),
      online: (id) => !isOffline(id) });
    document.addEventListener('visibilitychange', () => { if (this.connected) sendPresence(this); });
  }

  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    const set = this.listeners.get(type);
    set.add(fn);
    return () => set.delete(fn);
  }

  emit(type, ...args) {
    for (const fn of this.listeners.get(type) || []) fn(...args);
  }

  get connected() { return !!(this.conn && this.conn.ready); }

  get token() { return this.credentials && this.credentials.token; }

  /** The connection gave up a few attempts: the workstation cannot be reached now. */
  get unreachable() { return !!(this.conn && this.conn.status === 'offline'); }

  /** Try now: a connection attempt at once (the person's button; see Connection.tryNow). */
  tryNow() { this.conn?.tryNow(); }

  /** Sends a request on the current connection (it waits for the handshake); see Connection.request. */
  request(kind, fields, options) { return this.conn.request(kind, fields, options); }

  setStatus(s) {
    this.status = s;
    this.emit('status', s);
  }

  // -- starting, pairing ----------------------------------------------------------------------------------
  /** The credential this origin kept, if none is known yet; returns whether there is one. */
  restore() {
    if (!this.credentials) this.credentials = saved.currentBridge();
    if (!this.credentials) return false;
    this.serverName = this.credentials.name || '';
    // The list as last seen, at once (marked as refreshing) while the connection and the live list come.
    const known = saved.savedList(this.credentials.serverId);
    if (known && !this.store.listLoaded) this.store.applyList(known, { cached: true });
    return true;
  }

  /** A pairing code to redeem (typed, or from a link); `connect()` redeems it. */
  beginPairing(code, name, serverName) {
    this.pairing = { code, name };
    if (serverName !== undefined) this.serverName = serverName;
  }

  /** A static token from a link: kept as this origin's credential. Returns whether a connection was running. */
  useToken(fragment) {
    const id = fragment.serverId || 'default';
    this.credentials = { serverId: id, token: fragment.token, static: true, clientId: randomId() };
    saved.saveBridge(id, { token: this.credentials.token, name: fragment.name, static: true, clientId: this.credentials.clientId });
    if (!this.conn) return false;
    this.serverName = fragment.name || this.serverName; // a link opened in a running page: start over with it
    this.store.threads.clear();
    this.connect();
    return true;
  }

  /** The person cancelled a pairing that waits for the workstation: back to the bridge known before, if any. */
  cancelPairing() {
    this.stop();
    this.pairing = null;
    if (this.credentials) this.connect();
  }

  stop() {
    if (this.conn) this.conn.stop();
    this.conn = null;
  }

  connect() {
    if (this.conn) this.conn.stop();
    this.conn = new Connection({
      helloFields: () => this.helloFields(),
      onStatus: (s) => this.setStatus(s),
      onAck: (ack, how) => this.onAck(ack, how),
      onMessage: (msg) => this.onMessage(msg),
      onRejected: (ack) => this.onRejected(ack),
      onPending: (pending) => { if (this.pairing) { this.setStatus('pending'); this.emit('pending', pending); } },
      stopOnRateLimit: () => !!this.pairing, // a code is not retried: the person types another one
    });
    this.conn.start();
  }

  // Every hello asks for the fleet (issue 33): the machines linked to this bridge, their threads in one list.
  helloFields() {
    const { pairing, credentials } = this;
    if (pairing) return { token: pairing.code, device: { name: pairing.name || deviceName(), platform: 'web' }, fleet: true };
    if (credentials.static) return { token: credentials.token, clientId: credentials.clientId, fleet: true };
    return { token: credentials.token, fleet: true };
  }

  // -- the connection's news ------------------------------------------------------------------------------
  onAck(ack, { first, gap }) {
    const { store } = this;
    const server = ack.server || {};
    this.serverName = server.name || this.serverName;
    this.deviceId = ack.deviceId || null;
    this.pushPublicKey = typeof server.pushPublicKey === 'string' ? server.pushPublicKey : null;
    this.previewPort = Number.isInteger(ack.previewPort) ? ack.previewPort : null;
    setScopes(ack.scopes);
    setMachines(ack.machines, server.id, server.name);
    for (const m of machines()) if (m.state === 'online' && this.held.waiting(m.id)) this.held.flush(m.id);
    // A machine unlinked while this phone was away: its threads go as they would have live.
    for (const id of new Set([...store.threads.values()].map((t) => t.machine).filter(Boolean))) if (!machine(id)) store.dropMachine(id);
    sendPresence(this);
    resyncPush(this, this.pushPublicKey);
    if (ack.policy && typeof ack.policy === 'object') this.policy = { roots: [], ...ack.policy };
    const facts = { name: this.serverName, deviceId: this.deviceId };
    let paired = false;
    if (this.pairing) {
      const id = server.id || 'default';
      this.credentials = { serverId: id, token: ack.deviceToken || this.pairing.code };
      saved.saveBridge(id, { token: this.credentials.token, ...facts, pairedAt: Date.now() });
      this.pairing = null;
      paired = true;
    } else if (this.credentials && server.id && this.credentials.serverId !== server.id) {
      // The same credential now answers under another id (the state was moved): remember it under that id.
      const { token, static: isStatic, clientId } = this.credentials;
      saved.saveBridge(server.id, { token, ...facts, static: isStatic, clientId });
      this.credentials.serverId = server.id;
    } else if (this.credentials) {
      saved.saveBridge(this.credentials.serverId, facts);
    }
    if (paired) this.emit('paired');
    // Every thread's events (the list is live); a paired device's subscription is remembered by the bridge.
    // (A first connection asks from now on: the bridge then sends the approvals and questions still open, which a
    // replay would not; the list and readThread give the rest.)
    if (!(ack.restoredSubscriptions || []).includes('*')) this.subscribeAll({ resume: !first && !gap });
    if (first || gap) {
      if (gap) store.invalidate();
      this.refreshList();
      this.emit('reload');
    }
  }

  onMessage(msg) {
    if (msg.kind === 'machineChanged') return this.onMachineChanged(msg);
    if (msg.kind === 'scopeRequestEnded') {
      this.emit('notice', scopeRequestEnded(msg)); // the asking card says it too (scopes.js)
      return undefined;
    }
    if (msg.kind === 'scopesChanged') {
      const couldObserve = may('observe');
      setScopes(msg.scopes);
      this.emit('notice', `This device may now: ${(msg.scopes || []).join(', ') || 'nothing'}`);
      // Observing again: the bridge dropped this connection's subscriptions when it could not; what happened
      // meanwhile is replayed from the cursor.
      if (!couldObserve && may('observe')) {
        this.subscribeAll({ resume: true });
        this.refreshList();
      }
      this.emit('reload');
      return undefined;
    }
    this.store.applyMessage(msg);
    return undefined;
  }

  /**
   * A machine of the fleet went online or offline, was linked, or left (unlinked or revoked: its threads go).
   * Back online (or new): the list is asked again for its threads, and the messages held for it go (held.js).
   */
  onMachineChanged(msg) {
    const name = msg.machine && machineName(msg.machine.id);
    const removed = applyMachineChanged(msg);
    if (removed) {
      this.store.dropMachine(removed);
      this.held.drop(removed, new RequestError('not_found', `${name} is no longer linked to this workstation`));
    } else if (msg.machine && msg.machine.state === 'online') {
      this.refreshList();
      this.held.flush(msg.machine.id);
    }
    this.store.listChanged();
    this.emit('fleet');
  }

  onRejected(ack) {
    const code = ack.error && ack.error.code;
    this.stop();
    this.setStatus('rejected');
    if (this.pairing) {
      this.pairing = null;
      const message = PAIRING_ERRORS[code] || `Pairing failed: ${(ack.error && ack.error.message) || code}`;
      if (this.credentials) this.connect(); // still paired with the bridge this phone knew: keep using it
      this.emit('pairingFailed', message);
      return;
    }
    if (code === 'unauthorized') {
      if (this.credentials) saved.forgetToken(this.credentials.serverId);
      this.credentials = null;
      this.store.threads.clear();
      this.emit('refused', 'This phone was unpaired; scan a new code.');
    } else {
      this.emit('refused', `The workstation refused the connection: ${(ack.error && ack.error.message) || code}`);
    }
  }

  /**
   * Every thread's events; `resume`: from this connection's cursor on (`afterSeq`: what came since is replayed
   * before the answer; without it the events between the cursor and the subscription would be missing). If the
   * bridge no longer has them all (`gap`), the threads are read again.
   */
  subscribeAll({ resume = false } = {}) {
    const after = resume && this.conn ? this.conn.cursor : null;
    this.request('subscribe', { threadId: '*', ...(typeof after === 'number' ? { afterSeq: after } : {}) }).then((answer) => {
      if (answer.resume !== 'gap') return;
      this.store.invalidate();
      this.refreshList();
      this.emit('reload');
    }).catch(() => {});
  }

  // -- the thread list --------------------------------------------------------------------------------------
  async refreshList() {
    try {
      const answer = await this.request('listThreads', { limit: 50 });
      this.nextCursor = answer.nextCursor || null;
      this.listError = null;
      this.store.applyList(answer.threads || [], { first: true });
      if (this.credentials) saved.saveList(this.credentials.serverId, answer.threads || []);
    } catch (err) {
      if (err.code === 'closed') return;
      this.listError = describeError(err);
      this.store.listChanged();
    }
  }

  async loadMore() {
    if (!this.nextCursor) return;
    try {
      const answer = await this.request('listThreads', { limit: 50, cursor: this.nextCursor });
      this.nextCursor = answer.nextCursor || null;
      this.store.applyList(answer.threads || []);
    } catch (err) {
      this.emit('notice', `Could not list threads: ${err.message}`);
    }
  }
}
