// The app's picture of the bridge's threads, built from listThreads/readThread answers and the live event
// stream. Views watch it: the list listens for list changes, a thread screen for fine-grained change records
// of one thread (a new item, a delta, a status), so streaming text is appended, never re-rendered.
//
// Every field of a thread and of a turn is declared here, once (`newThread`, `newTurn`; sealed, so a field
// declared nowhere cannot appear). The store is the only writer. The modules that know a part of the stream
// (pending.js: approvals and questions; commands.js; thread-extras.js: the queue; thread-tools.js: Codex's
// tools) read a thread and return change records, which `commit(t, records)` applies in order:
//   {set: {field: value}}                  declared fields of the thread
//   {thread: id, set: {…}}                 …of another thread (a sub-agent's own)
//   {turn: turnId, set: {…}}               declared fields of a turn (made when new)
//   {turn: turnId, push: [list, value]}    a value added to one of the turn's lists (approvals, inputs)
//   {put: map, key, value}                 an entry of one of the thread's maps: added, merged into the one
//                                          there, or removed (value null)
//   {item: itemId, set: {…}}               fields of a known item
//   {notice: item, turn: turnId}           a small item of the turn (a bridge notice), added or merged
//   {emit: change, turn?: turnId, thread?: id}  a change record for the watchers (with the turn object)
//   {list: true}                           the list changed
import { pendingRecords } from './pending.js';
import { queueRecords, errorKind } from './thread-extras.js';
import { commandRecords } from './commands.js';
import { toolRecords, listRecords, answerRecords } from './thread-tools.js';
import { voiceRecords, voiceAnswerRecords } from './voice-items.js';
import { savedAnswer, saveAnswer } from './store.js';

const TERMINAL = new Set(['completed', 'interrupted', 'failed']);

/** A thread as the store keeps it: every field it can have. */
export function newThread(id, lastAnswer = '') {
  return Object.seal({
    id,
    machine: undefined, // the linked machine it runs on (issue 33); undefined: the home bridge
    // What the list shows.
    cwd: '', preview: '', name: '', lastAnswer, branch: undefined, updatedAt: 0,
    status: 'notLoaded', lastTurnStatus: null,
    listed: false, archived: undefined, cached: false, // cached: listed only by the list as last seen (store.js savedList)
    // Codex's settings and tools (thread-tools.js).
    model: undefined, effort: undefined, approvalsReviewer: undefined, collaborationMode: undefined,
    goal: undefined, tokenUsage: undefined, diff: '',
    parentThreadId: undefined, agentNickname: undefined, agentRole: undefined,
    subAgents: new Map(), // agentThreadId -> {status, nickname, role}
    // The conversation.
    turns: [], turnMap: new Map(), itemMap: new Map(), // itemMap: itemId -> {item, turnId}
    approvals: new Map(), inputs: new Map(), // approvalId / requestId -> the request (+ resolved), pending.js
    queued: new Map(), // queuedId -> a message waiting for the running turn to end
    commands: new Map(), // runId -> a `!command` run, commands.js
    // How much of it is known: read (readThread or seen from its start), and whether a revert made it stale.
    loaded: false, complete: false, stale: false,
    // Paged history: the cursor to the turns before the first one held (readTurns); null once the first is.
    olderTurns: null,
  });
}

/** A turn as the store keeps it. */
export function newTurn(id, status = 'inProgress') {
  return Object.seal({
    id, status, items: [], error: null, errorKind: undefined, sawStart: false,
    shuttingDown: undefined, // the bridge is stopping: seconds the turn has left
    shutdownAt: undefined, // ... and when they run out (Date.now() milliseconds)
    plan: undefined, // Codex's live plan (turn/plan/updated)
    approvals: [], inputs: [], // the ids of the approvals and questions asked in it
  });
}

function statusType(status) {
  if (!status) return null;
  return typeof status === 'string' ? status : status.type || null;
}

export class ThreadStore {
  constructor() {
    this.threads = new Map();
    this.listWatchers = new Set();
    this.threadWatchers = new Map(); // threadId -> Set(fn)
    this.listQueued = false;
    this.listLoaded = false;
    this.listCached = false; // the list shown is the one last seen, not yet the live one
    this.rateLimits = null; // the account's windows, as Codex last pushed them (account/rateLimits/updated)
  }

  // -- watching --------------------------------------------------------------------------------------------
  watchList(fn) {
    this.listWatchers.add(fn);
    return () => this.listWatchers.delete(fn);
  }

  watchThread(id, fn) {
    if (!this.threadWatchers.has(id)) this.threadWatchers.set(id, new Set());
    const set = this.threadWatchers.get(id);
    set.add(fn);
    return () => set.delete(fn);
  }

  /**
   * The list is redrawn at most every 150 ms, however many events arrive (a streaming turn sends thousands);
   * `now`: at once (the list's first answer: nothing to batch, and the person waits for it).
   */
  listChanged(now = false) {
    if (now) {
      clearTimeout(this.listQueued);
      this.listQueued = 0;
      for (const fn of this.listWatchers) fn();
      return;
    }
    if (this.listQueued) return;
    this.listQueued = setTimeout(() => {
      this.listQueued = 0;
      for (const fn of this.listWatchers) fn();
    }, 150);
  }

  emit(thread, change) {
    if (this.quiet) return; // applying readThread's picture: one 'reset' follows
    const set = this.threadWatchers.get(thread.id);
    if (set) for (const fn of set) fn(change);
  }

  // -- reading ---------------------------------------------------------------------------------------------
  ensure(id) {
    let t = this.threads.get(id);
    if (!t) {
      t = newThread(id, savedAnswer(id));
      this.threads.set(id, t);
    }
    return t;
  }

  get(id) { return this.threads.get(id); }

  /** A deleted thread (deleteThread here or elsewhere): out of the list; an open screen is told `deleted`. */
  forget(id) {
    const t = this.threads.get(id);
    if (!t) return;
    this.threads.delete(id);
    this.emit(t, { type: 'deleted' });
    this.listChanged();
  }

  /** Threads newest first (an archived one no more). */
  list() {
    return [...this.threads.values()].filter((t) => t.listed && !t.archived).sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** The last line of a thread's answer, kept for the list (and for the next page load). */
  setLastAnswer(t, text) {
    const line = lastLine(text);
    if (!line) return;
    t.lastAnswer = line;
    saveAnswer(t.id, line);
  }

  isRunning(t) {
    const last = t.turns[t.turns.length - 1];
    if (last) return !TERMINAL.has(last.status);
    return t.status === 'active';
  }

  // -- answers -----------------------------------------------------------------------------------------------
  /**
   * listThreads' entries. `cached`: the list as last seen (store.js savedList), shown until the live one comes;
   * the live first page (`first`) then unlists what it no longer holds.
   */
  applyList(threads, { cached = false, first = false } = {}) {
    const firstShown = !this.listLoaded;
    if (first && this.listCached) {
      const live = new Set(threads.map((s) => s.threadId));
      for (const t of this.threads.values()) if (t.cached && !live.has(t.id)) t.listed = false;
    }
    if (!cached) {
      this.listCached = false;
      for (const t of this.threads.values()) t.cached = false;
    } else this.listCached = true;
    for (const s of threads) {
      const t = this.ensure(s.threadId);
      if (cached && t.listed) continue; // known live already
      t.listed = true;
      t.cached = cached;
      if (s.machine && typeof s.machine.id === 'string') t.machine = s.machine.id; // a fleet session labels every entry
      if (s.cwd) t.cwd = s.cwd;
      if (s.preview && !t.preview) t.preview = s.preview;
      if (typeof s.name === 'string' && s.name) t.name = s.name; // issue 28 item 4: the bridge lists the name
      if (s.status && !t.turns.length) t.status = s.status;
      if (s.updatedAt) t.updatedAt = Math.max(t.updatedAt, s.updatedAt);
      this.commit(t, listRecords(s));
    }
    this.listLoaded = true;
    this.listChanged(firstShown || first);
  }

  /**
   * Merges readThread's thread object with what arrived live. `fresh`: drop the live picture first (gap). `seq`
   * (readThread's): the running turn's items hold the text streamed up to it; their deltas at or below it are
   * in the snapshot already.
   */
  applySnapshot(snapshot, { fresh = false, seq = null, requests = null } = {}) {
    const t = this.ensure(snapshot.id);
    t.listed = true;
    if (snapshot.cwd) t.cwd = snapshot.cwd;
    if (snapshot.preview) t.preview = snapshot.preview;
    if (snapshot.name) t.name = snapshot.name;
    if (snapshot.gitInfo && typeof snapshot.gitInfo.branch === 'string' && snapshot.gitInfo.branch) t.branch = snapshot.gitInfo.branch;
    if (snapshot.updatedAt) t.updatedAt = Math.max(t.updatedAt, snapshot.updatedAt);
    if (snapshot.status && statusType(snapshot.status)) t.status = statusType(snapshot.status);
    if (fresh || t.stale) { t.turns = []; t.turnMap.clear(); t.itemMap.clear(); }
    t.stale = false;
    const turns = [];
    const seen = new Set();
    for (const st of snapshot.turns || []) {
      seen.add(st.id);
      const live = t.turnMap.get(st.id);
      const turn = live || newTurn(st.id, st.status);
      if (!live || !live.sawStart) {
        // Items the snapshot knows that the live stream did not show: before the live ones, in its order.
        const ids = [];
        for (const item of st.items || []) {
          if (!item || !item.id) continue;
          const existing = t.itemMap.get(item.id);
          const streaming = typeof seq === 'number' && item.status === 'inProgress' && !TERMINAL.has(st.status);
          if (existing) {
            if (!existing.item.done && TERMINAL.has(st.status)) Object.assign(existing.item, item, { done: true });
            else if (streaming && !existing.item.done) soFar(existing.item, item, seq);
          } else {
            // Codex records an item once it is complete: only one still marked inProgress may change (the
            // bridge adds the running turn's items with their text so far, from its journal).
            const copy = { ...item, done: TERMINAL.has(st.status) || item.status !== 'inProgress' };
            if (streaming) { liveField(copy); copy.asOf = seq; }
            t.itemMap.set(item.id, { item: copy, turnId: st.id });
            ids.push(item.id);
          }
        }
        turn.items = [...ids, ...turn.items.filter((id) => !ids.includes(id))];
      }
      if (!TERMINAL.has(turn.status) || (TERMINAL.has(st.status) && !live)) turn.status = st.status;
      if (st.error && !turn.error) { turn.error = st.error.message || String(st.error); turn.errorKind = errorKind(st.error); }
      if (!live) t.turnMap.set(st.id, turn);
      turns.push(turn);
    }
    // Turns held that the snapshot lacks: older pages stay before it, live ones after.
    const firstSeen = t.turns.findIndex((turn) => seen.has(turn.id));
    const before = firstSeen < 0 ? [] : t.turns.slice(0, firstSeen).filter((turn) => !seen.has(turn.id));
    for (const turn of t.turns) if (!seen.has(turn.id) && !before.includes(turn)) turns.push(turn);
    t.turns = [...before, ...turns];
    const last = turns[turns.length - 1];
    if (last) t.lastTurnStatus = last.status;
    if (!t.preview) t.preview = firstPrompt(t) || '';
    const answer = lastAgentText(t);
    if (answer) this.setLastAnswer(t, answer);
    // The thread's approvals and questions with their answers (journaled by the bridge): each stays in its turn.
    if (Array.isArray(requests)) {
      this.quiet = true;
      try {
        for (const frame of requests) {
          if (!frame || frame.threadId !== t.id) continue;
          // A request of a turn the snapshot does not hold (an older page of history) would make a phantom turn.
          if ((frame.kind === 'approvalRequest' || frame.kind === 'inputRequest') && frame.turnId && !t.turnMap.has(frame.turnId)) continue;
          this.applyMessage(frame);
        }
      }
      finally { this.quiet = false; }
    }
    t.loaded = true;
    this.emit(t, { type: 'reset' });
    this.listChanged();
  }

  /** A `readThread` answer: Codex's thread with what arrived live, then what the bridge adds (thread-tools.js). */
  applyThreadAnswer(threadId, answer) {
    const t = this.ensure(threadId);
    // Before the 'reset' the snapshot emits: the view shows the way to older turns with the rest.
    if (!t.loaded || t.stale) t.olderTurns = typeof answer.olderTurns === 'string' ? answer.olderTurns : null;
    this.applySnapshot(answer.thread, { seq: typeof answer.throughSeq === 'number' ? answer.throughSeq : null, requests: answer.requests });
    this.commit(t, [...answerRecords(t, answer), ...voiceAnswerRecords(answer)]);
  }

  /**
   * A `readTurns` answer: the page of turns before the first one held, put before it (complete history: their
   * items are done), with the approvals and questions asked in them; one 'older' change names the turns added.
   */
  applyOlderTurns(threadId, page) {
    const t = this.ensure(threadId);
    const added = [];
    for (const st of page.turns || []) {
      if (!st || !st.id || t.turnMap.has(st.id)) continue;
      const turn = newTurn(st.id, st.status);
      for (const item of st.items || []) {
        if (!item || !item.id || t.itemMap.has(item.id)) continue;
        t.itemMap.set(item.id, { item: { ...item, done: true }, turnId: st.id });
        turn.items.push(item.id);
      }
      if (st.error) { turn.error = st.error.message || String(st.error); turn.errorKind = errorKind(st.error); }
      t.turnMap.set(st.id, turn);
      added.push(turn);
    }
    t.turns = [...added, ...t.turns];
    t.olderTurns = typeof page.olderTurns === 'string' ? page.olderTurns : null;
    this.quiet = true;
    try {
      for (const frame of page.requests || []) if (frame && frame.threadId === t.id) this.applyMessage(frame);
    }
    finally { this.quiet = false; }
    this.emit(t, { type: 'older', turns: added });
  }

  // -- the live stream ---------------------------------------------------------------------------------------
  applyMessage(msg) {
    // A frame relayed from a linked machine names it (issue 33); the home bridge's frames name none.
    if (typeof msg.threadId === 'string' && msg.machine && typeof msg.machine.id === 'string') this.ensure(msg.threadId).machine = msg.machine.id;
    if (msg.kind === 'event') return this.applyEvent(msg);
    // A kind none of the parts knows makes no thread: they read a blank one when the thread is new.
    const t = this.threads.get(msg.threadId) || newThread(msg.threadId);
    const records = pendingRecords(t, msg, this.turnKey(t, msg.turnId)) || commandRecords(t, msg) || queueRecords(t, msg);
    if (records) this.commit(this.ensure(msg.threadId), records);
    return undefined;
  }

  /** The id a message's turn goes by: its own, else the thread's last turn (or 'unknown' before any). */
  turnKey(t, turnId) {
    if (turnId) return turnId;
    return t.turns.length ? t.turns[t.turns.length - 1].id : 'unknown';
  }

  turn(t, turnId, create = true) {
    turnId = this.turnKey(t, turnId);
    let turn = t.turnMap.get(turnId);
    if (!turn && create) {
      turn = newTurn(turnId);
      t.turnMap.set(turnId, turn);
      t.turns.push(turn);
      this.emit(t, { type: 'turn', turn });
    }
    return turn;
  }

  item(t, turnId, itemId, type) {
    const known = t.itemMap.get(itemId);
    if (known) return known.item;
    const turn = this.turn(t, turnId);
    const item = { id: itemId, type, done: false };
    t.itemMap.set(itemId, { item, turnId: turn.id });
    placeCards(t, turn, itemId);
    turn.items.push(itemId);
    this.emit(t, { type: 'item', turn, item });
    return item;
  }

  applyEvent(msg) {
    const data = msg.data || {};
    // Names no thread (account/rateLimits/updated, BRIDGE.md): the account's, kept beside the threads.
    if (msg.threadId === '*') {
      // Sparse: merged into the last one (BRIDGE.md).
      if (msg.type === 'account/rateLimits/updated') { this.rateLimits = { ...(this.rateLimits || {}), ...(data.rateLimits || {}) }; this.listChanged(); }
      return;
    }
    if (msg.type === 'thread/deleted') { this.forget(msg.threadId); return; }
    const t = this.ensure(msg.threadId);
    t.listed = true;
    t.updatedAt = Math.max(t.updatedAt, Date.now() / 1000);
    const turnId = msg.turnId || data.turnId || (data.turn && data.turn.id);
    switch (msg.type) {
      case 'thread/started': {
        const th = data.thread || {};
        if (th.cwd) t.cwd = th.cwd;
        if (th.preview) t.preview = th.preview;
        if (typeof th.model === 'string' && th.model) t.model = th.model; // the Settings form starts from it
        if (th.gitInfo && typeof th.gitInfo.branch === 'string' && th.gitInfo.branch) t.branch = th.gitInfo.branch;
        if (!t.turns.length) t.complete = true; // seen from its first event: no readThread needed
        t.loaded = t.loaded || t.complete;
        this.emit(t, { type: 'status' });
        break;
      }
      case 'turn/started': {
        const turn = this.turn(t, turnId);
        turn.sawStart = true;
        turn.status = (data.turn && data.turn.status) || 'inProgress';
        t.status = 'active';
        this.emit(t, { type: 'turnStatus', turn });
        break;
      }
      case 'turn/completed': {
        const turn = this.turn(t, turnId);
        turn.status = (data.turn && data.turn.status) || 'completed';
        if (data.turn && data.turn.error) { turn.error = data.turn.error.message || 'failed'; turn.errorKind = errorKind(data.turn.error); }
        t.lastTurnStatus = turn.status;
        t.status = 'idle';
        this.settle(t, turn);
        this.emit(t, { type: 'turnStatus', turn });
        break;
      }
      case 'bridge/shuttingDown': { // the bridge was told to stop: the turn has graceSeconds to finish
        const turn = this.turn(t, turnId || data.turnId);
        turn.shuttingDown = typeof data.graceSeconds === 'number' ? data.graceSeconds : 0;
        turn.shutdownAt = Date.now() + turn.shuttingDown * 1000; // what the footer counts down to
        this.emit(t, { type: 'turnStatus', turn });
        break;
      }
      case 'bridge/turnFailed': {
        const turn = this.turn(t, turnId || data.turnId);
        turn.status = 'failed';
        // The bridge itself went away (restarted, or stopped before the turn was done): said for a person, with Retry.
        const restarted = data.reason === 'bridge restarted' || data.reason === 'bridge stopped';
        turn.errorKind = restarted ? 'workstationRestarted' : turn.errorKind;
        turn.error = restarted ? '' : data.reason || 'Codex stopped during this turn';
        t.lastTurnStatus = 'failed';
        t.status = 'idle';
        this.settle(t, turn);
        this.emit(t, { type: 'turnStatus', turn });
        break;
      }
      case 'error': {
        if (data.willRetry) break;
        const turn = this.turn(t, turnId);
        turn.error = (data.error && data.error.message) || 'error';
        turn.errorKind = errorKind(data.error);
        this.emit(t, { type: 'turnStatus', turn });
        break;
      }
      case 'thread/status/changed': {
        const s = statusType(data.status);
        if (s) t.status = s;
        this.emit(t, { type: 'status' });
        break;
      }
      case 'thread/name/updated': {
        if (data.name || data.threadName) t.name = data.name || data.threadName;
        this.emit(t, { type: 'status' });
        break;
      }
      case 'item/started':
      case 'item/completed': {
        const src = data.item;
        if (!src || !src.id) break;
        const known = t.itemMap.get(src.id);
        const done = msg.type === 'item/completed';
        if (known) {
          const item = known.item;
          // A started item keeps the text streamed so far; a completed one is authoritative.
          if (done) { Object.assign(item, src, { done: true }); delete item.live; }
          else for (const [k, v] of Object.entries(src)) if (!(k in item) || item[k] === undefined) item[k] = v;
          this.emit(t, { type: 'itemUpdate', item });
        } else {
          const turn = this.turn(t, turnId);
          const item = { ...src, done };
          t.itemMap.set(src.id, { item, turnId: turn.id });
          placeCards(t, turn, src.id);
          turn.items.push(src.id);
          this.emit(t, { type: 'item', turn, item });
        }
        if (src.type === 'userMessage' && !t.preview) { t.preview = userText(src); this.emit(t, { type: 'status' }); }
        if (src.type === 'agentMessage' && done && typeof src.text === 'string') this.setLastAnswer(t, src.text);
        break;
      }
      case 'item/agentMessage/delta':
      case 'item/commandExecution/outputDelta':
      case 'item/reasoning/summaryTextDelta':
      case 'item/reasoning/textDelta':
      case 'item/plan/delta': {
        const type = DELTA_TYPES[msg.type];
        this.delta(t, turnId, data, type, DELTA_FIELDS[type], msg.seq);
        break;
      }
      case 'turn/diff/updated':
        t.diff = data.diff || '';
        this.emit(t, { type: 'diff' });
        break;
      case 'thread/reverted': // revertThread (BRIDGE.md): the turns from the reverted one on are gone; read it again
        t.loaded = false;
        t.complete = false;
        t.stale = true;
        this.emit(t, { type: 'reverted' });
        break;
      case 'thread/tokenUsage/updated': // Codex's count for the thread (context-meter.js)
        t.tokenUsage = data.tokenUsage || null;
        this.emit(t, { type: 'usage' });
        break;
      default:
        this.commit(t, voiceRecords(t, msg, turnId) || toolRecords(t, msg, turnId));
        break;
    }
    this.listChanged();
  }

  /** Applies change records (see the top of this file) to `t`, in order. */
  commit(t, records) {
    for (const r of records || []) {
      if (r.emit) this.emit(r.thread ? this.ensure(r.thread) : t, 'turn' in r ? { ...r.emit, turn: this.turn(t, r.turn) } : r.emit);
      else if (r.list) this.listChanged();
      else if (r.put) this.put(t[r.put], r.key, r.value);
      else if (r.notice) this.notice(t, r.turn, r.notice, r.before);
      else if ('item' in r) { const known = t.itemMap.get(r.item); if (known) Object.assign(known.item, r.set); }
      else if ('turn' in r) {
        const turn = this.turn(t, r.turn);
        if (r.set) Object.assign(turn, r.set);
        if (r.push && !turn[r.push[0]].includes(r.push[1])) turn[r.push[0]].push(r.push[1]);
      } else if (r.thread) Object.assign(this.ensure(r.thread), r.set);
      else if (r.set) Object.assign(t, r.set);
    }
  }

  put(map, key, value) {
    if (!(map instanceof Map)) throw new TypeError('no such map on a thread');
    const known = map.get(key);
    if (value === null) map.delete(key);
    else if (known && typeof known === 'object' && known !== value) Object.assign(known, value);
    else map.set(key, value);
  }

  /**
   * A small item of the bridge's in a turn (a review, a reroute, a hook): added, or its text changed. `before`: an
   * item it came before (readThread's voice parts); one that starts its turn puts it last in the turn before.
   */
  notice(t, turnId, fields, before) {
    const known = t.itemMap.get(fields.id);
    if (known) {
      Object.assign(known.item, fields);
      this.emit(t, { type: 'itemUpdate', item: known.item });
      return;
    }
    const at = placeBefore(t, before);
    const turn = at ? at.turn : this.turn(t, turnId);
    const item = { type: 'bridgeNotice', done: true, ...fields };
    t.itemMap.set(fields.id, { item, turnId: turn.id });
    if (at) turn.items.splice(at.index, 0, fields.id);
    else turn.items.push(fields.id);
    this.emit(t, { type: 'item', turn, item });
  }

  /** A turn that ended (or died) leaves no item streaming. */
  settle(t, turn) {
    for (const id of turn.items) {
      const entry = t.itemMap.get(id);
      if (entry && !entry.item.done) {
        entry.item.done = true;
        if (entry.item.status === 'inProgress') entry.item.status = turn.status === 'completed' ? 'completed' : 'failed';
        this.emit(t, { type: 'itemUpdate', item: entry.item });
      }
    }
  }

  delta(t, turnId, data, type, field, seq) {
    if (!data.itemId || typeof data.delta !== 'string') return;
    const item = this.item(t, turnId, data.itemId, type);
    if (item.done) return; // the completed item already holds the whole text
    if (typeof seq === 'number' && typeof item.asOf === 'number' && seq <= item.asOf) return; // in readThread's text
    item[field] = (item[field] || '') + data.delta;
    // Before readThread answers, remember which seq brought which piece (soFar keeps the ones after its seq).
    if (!t.loaded && typeof seq === 'number') (item.live ||= []).push([seq, data.delta.length]);
    this.emit(t, { type: 'delta', item, field, delta: data.delta });
  }

  /** A machine left the fleet (unlinked or revoked): its threads leave the list. */
  dropMachine(machineId) {
    for (const [id, t] of this.threads) if (t.machine === machineId) this.threads.delete(id);
    this.listChanged();
  }

  /**
   * After a gap nothing is known for sure: every thread's turns go now and it is read again when shown. Now, not when
   * its readThread answers: what arrives live meanwhile is then merged with that answer as on a page load (the pieces
   * after its `throughSeq` kept), not thrown away with the old picture (issue 46 item 2).
   */
  invalidate() {
    for (const t of this.threads.values()) {
      t.turns = [];
      t.turnMap.clear();
      t.itemMap.clear();
      t.loaded = false;
      t.complete = false;
      t.stale = false;
    }
  }
}

const DELTA_TYPES = {
  'item/agentMessage/delta': 'agentMessage',
  'item/commandExecution/outputDelta': 'commandExecution',
  'item/reasoning/summaryTextDelta': 'reasoning',
  'item/reasoning/textDelta': 'reasoning',
  'item/plan/delta': 'plan',
};
// The field each item type's deltas append to.
const DELTA_FIELDS = { agentMessage: 'text', commandExecution: 'aggregatedOutput', reasoning: 'liveText', plan: 'text' };

/**
 * An item starts in `turn`: its approvals and questions that are about no item shown (a question's tool call is
 * none) and have no place yet stay before it, where they came (conversation.js; readThread's `beforeItemId`).
 */
function placeCards(t, turn, itemId) {
  for (const [map, ids] of [[t.approvals, turn.approvals], [t.inputs, turn.inputs]]) {
    for (const id of ids) {
      const card = map.get(id);
      if (card && !card.beforeItemId && !(card.itemId && t.itemMap.has(card.itemId))) card.beforeItemId = itemId;
    }
  }
}

/**
 * Where an item that came before item `before` goes: just before it in its turn, or last in the turn before when it
 * starts its turn (a turn's first item, its message, heads it); null when `before` is no item held.
 */
function placeBefore(t, before) {
  const entry = before && t.itemMap.get(before);
  const turn = entry && t.turnMap.get(entry.turnId);
  const index = turn ? turn.items.indexOf(before) : -1;
  if (index < 0) return null;
  const previous = t.turns[t.turns.indexOf(turn) - 1];
  if (index === 0 && previous) return { turn: previous, index: previous.items.length };
  return { turn, index };
}

/** A streaming reasoning item keeps its text in `liveText` (where its deltas go), not in Codex's parts. */
function liveField(item) {
  if (item.type !== 'reasoning') return;
  item.liveText = [...(item.summary || []), ...(item.content || [])].filter((x) => typeof x === 'string' && x).join('\n\n');
  delete item.summary;
  delete item.content;
}

/**
 * A streaming item seen live since the page loaded meets readThread's copy (the text up to `seq`): the text is
 * the snapshot's plus the live pieces that came after `seq`, each piece once.
 */
function soFar(live, snap, seq) {
  const field = DELTA_FIELDS[live.type];
  const log = live.live || [];
  delete live.live;
  if (!field) return;
  const copy = { ...snap };
  liveField(copy);
  const text = String(live[field] || '');
  const logged = log.reduce((n, [, length]) => n + length, 0);
  if (logged !== text.length) return; // text from elsewhere: keep the live picture
  const seen = log.reduce((n, [s, length]) => n + (s <= seq ? length : 0), 0);
  live[field] = String(copy[field] || '') + text.slice(seen);
  live.asOf = log.reduce((n, [s]) => Math.max(n, s), seq); // everything up to here is in the text now
}

export function userText(item) {
  if (typeof item.text === 'string') return item.text;
  return (item.content || []).map((c) => (c && c.type === 'text' ? c.text : '')).filter(Boolean).join('\n');
}

/**
 * The last line of an agent's answer as a list card shows it: the last line with words in it, without the
 * Markdown marks around it (headings, list bullets, quotes, emphasis, code ticks, link targets); '' when there is none.
 */
export function lastLine(text) {
  const lines = String(text || '').split('\n').map((l) => l.trim()).filter((l) => l && !/^(```|~~~|[-*_=|: ]+$)/.test(l));
  const line = lines.length ? lines[lines.length - 1] : '';
  return line.replace(/^(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)+/, '').replace(/\[([^\]]*)\]\([^)\s]*\)/g, '$1').replace(/\*\*|__|`/g, '').slice(0, 300);
}

function lastAgentText(t) {
  for (let i = t.turns.length - 1; i >= 0; i--) {
    const ids = t.turns[i].items;
    for (let j = ids.length - 1; j >= 0; j--) {
      const entry = t.itemMap.get(ids[j]);
      if (entry && entry.item.type === 'agentMessage' && entry.item.done && entry.item.text) return entry.item.text;
    }
  }
  return '';
}

function firstPrompt(t) {
  for (const turn of t.turns) {
    for (const id of turn.items) {
      const entry = t.itemMap.get(id);
      if (entry && entry.item.type === 'userMessage') return userText(entry.item);
    }
  }
  return '';
}
