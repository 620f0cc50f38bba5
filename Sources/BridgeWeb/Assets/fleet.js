// The fleet (issue 33): the machines this phone reaches through its home bridge. The app asks for it in its
// hello (`fleet: true`); the helloAck lists the machines (this bridge first) and `machineChanged` updates them.
// With one machine the app shows nothing of this. Names come from other machines: they are shown as text only,
// and kept short here. No DOM in this module (Tests/webunit runs it in node).

const MAX_NAME = 64;

let homeId = null;
let list = []; // [{id, name, state, roots}], the home bridge first
const watchers = new Set();

// Control characters and bidirectional marks and overrides: a name could otherwise reorder the text around it.
function shown(c) {
  const n = c.codePointAt(0);
  return !(n < 0x20 || (n >= 0x7f && n <= 0x9f) || n === 0x200e || n === 0x200f || (n >= 0x202a && n <= 0x202e) || (n >= 0x2066 && n <= 0x2069));
}

/**
 * Text from another machine (a name), as the app shows it: no control or bidi characters, at most `max`
 * characters; `fallback` when nothing is left.
 */
export function cleanName(given, fallback, max = MAX_NAME) {
  const name = typeof given === 'string' ? [...given.slice(0, 4 * max)].filter(shown).join('').trim() : '';
  return (name || fallback).slice(0, max);
}

/** The codes the home bridge closes a link with (`machines[].error`); anything else reads as a plain failure. */
const LINK_PROBLEMS = ['bad_frame', 'over_budget', 'too_large'];

/**
 * Why the home bridge last closed a machine's link (`error {code, message}`), cleaned (the message may repeat
 * what the other machine sent): `{code, message}`, or null when nothing is wrong.
 */
export function linkProblem(error) {
  if (!error || typeof error !== 'object') return null;
  const code = LINK_PROBLEMS.includes(error.code) ? error.code : 'failed';
  return { code, message: cleanName(error.message, code.replace('_', ' '), 200) };
}

/** A machine's problem as one sentence for a note. */
export function problemText(name, problem) {
  const why = problem.code === 'over_budget' ? 'it sent more than this bridge keeps for one machine' : 'it sent something this bridge does not accept';
  return `This bridge closed the link to ${name}: ${why} (${problem.message}). It tries again in a while.`;
}

function clean(m) {
  if (!m || typeof m !== 'object' || typeof m.id !== 'string' || !m.id) return null;
  const name = cleanName(m.name, m.id);
  const state = ['online', 'offline', 'pending'].includes(m.state) ? m.state : 'offline';
  // What the machine allows (`policy.roots`, as it last told its link); null until it was reached.
  const givenRoots = m.policy && Array.isArray(m.policy.roots) ? m.policy.roots : null;
  const roots = givenRoots ? givenRoots.filter((p) => typeof p === 'string' && p.startsWith('/') && p.length < 4096) : null;
  return { id: m.id, name, state, roots, problem: linkProblem(m.error) };
}

function changed() { for (const fn of watchers) fn(); }

/** The helloAck's `machines` and `server.id` (a bridge without the fleet sends none: one machine, this one). */
export function setMachines(machines, serverId, serverName) {
  homeId = typeof serverId === 'string' && serverId ? serverId : homeId;
  const given = Array.isArray(machines) ? machines.map(clean).filter(Boolean) : [];
  list = given.length ? given : homeId ? [{ id: homeId, name: serverName || 'This workstation', state: 'online', roots: null, problem: null }] : [];
  changed();
}

/**
 * A `machineChanged` event: the machine's new state (added when new). Returns the id of a machine that left
 * the fleet (`removed`: its threads go), else null.
 */
export function applyMachineChanged(msg) {
  const m = clean(msg && msg.machine);
  if (!m) return null;
  const at = list.findIndex((x) => x.id === m.id);
  if (msg.removed === true) {
    if (m.id === homeId) return null;
    if (at >= 0) list.splice(at, 1);
    changed();
    return m.id;
  }
  if (at >= 0) list[at] = m;
  else list.push(m);
  changed();
  return null;
}

export function watchFleet(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

/** More than one machine: the app labels threads with their machine and offers a machine picker. */
export function isFleet() { return list.length > 1; }

export function machines() { return list.slice(); }

export function home() { return homeId; }

/** A thread's machine id (a thread with none is the home bridge's). */
export function machineOf(thread) { return (thread && thread.machine) || homeId; }

export function isHome(id) { return !id || id === homeId; }

export function machine(id) { return list.find((m) => m.id === (id || homeId)) || null; }

/** A machine's name as the app shows it; an unknown id is shown as it is (never as markup: callers set text). */
export function machineName(id) {
  const m = machine(id);
  return m ? m.name : String(id || 'the workstation').slice(0, MAX_NAME);
}

export function isOffline(id) {
  const m = machine(id);
  return !!m && m.state !== 'online';
}

/** The folders a linked machine allows (its `policy.roots` in the fleet list; null: never reached yet). */
export function rootsOf(id) {
  const m = machine(id);
  return m && m.roots ? m.roots.slice() : null;
}

/** The roots a thread's folder is shown under: its machine's (`homeRoots` for this bridge's own threads). */
export function rootsFor(thread, homeRoots) {
  const id = machineOf(thread);
  return isHome(id) ? homeRoots || [] : rootsOf(id) || [];
}
