// What the app remembers on this origin (localStorage, this origin only): for each bridge it paired with
// (by server id) the device token, and which bridge this origin reached last.

const KEY = 'codex-bridge/v1';
let memory = null; // used when localStorage is unavailable (some private modes)

function read() {
  try {
    const raw = localStorage.getItem(KEY);
    const data = raw ? JSON.parse(raw) : null;
    if (data && typeof data === 'object' && data.bridges) return data;
  } catch (_) {
    if (memory) return memory;
  }
  return memory || { bridges: {}, current: null };
}

function write(data) {
  memory = data;
  try { localStorage.setItem(KEY, JSON.stringify(data)); } catch (_) { /* memory only */ }
}

/** The bridge this origin talks to: {serverId, token, name, deviceId, fp} or null. */
export function currentBridge() {
  const data = read();
  const id = data.current;
  return id && data.bridges[id] && data.bridges[id].token ? { serverId: id, ...data.bridges[id] } : null;
}

export function saveBridge(serverId, fields) {
  const data = read();
  data.bridges[serverId] = { ...(data.bridges[serverId] || {}), ...fields };
  data.current = serverId;
  write(data);
}

/** Forgets the device token of a bridge (it was revoked); keeps its name so the app can say which one. */
export function forgetToken(serverId) {
  try { for (const key of [ANSWERS, LIST, DRAFTS]) localStorage.removeItem(key); } catch (_) { /* nothing kept */ }
  drafts = null;
  const data = read();
  if (data.bridges[serverId]) {
    delete data.bridges[serverId].token;
    delete data.bridges[serverId].deviceId;
  }
  write(data);
}

export function allBridges() {
  const data = read();
  return Object.entries(data.bridges).map(([serverId, b]) => ({ serverId, ...b }));
}

// The last line of each thread's answer as this phone last saw it (listThreads carries only the first prompt), so
// the list shows it again after a reload: threadId → line, the newest MAX_ANSWERS kept.
const ANSWERS = 'codex-bridge/answers/v1';
const MAX_ANSWERS = 200;
let answers = null;

function readAnswers() {
  if (answers) return answers;
  try {
    const raw = JSON.parse(localStorage.getItem(ANSWERS) || '{}');
    answers = raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
  } catch (_) { answers = {}; }
  return answers;
}

export function savedAnswer(threadId) {
  const line = readAnswers()[threadId];
  return typeof line === 'string' ? line : '';
}

export function saveAnswer(threadId, line) {
  const all = readAnswers();
  if (!line || all[threadId] === line) return;
  delete all[threadId]; // newest last
  all[threadId] = line;
  const ids = Object.keys(all);
  for (const id of ids.slice(0, Math.max(0, ids.length - MAX_ANSWERS))) delete all[id];
  try { localStorage.setItem(ANSWERS, JSON.stringify(all)); } catch (_) { /* memory only */ }
}

/** Small UI preferences (e.g. show hidden folders). */
export function pref(name, fallback) {
  const data = read();
  return data.prefs && name in data.prefs ? data.prefs[name] : fallback;
}

export function setPref(name, value) {
  const data = read();
  data.prefs = { ...(data.prefs || {}), [name]: value };
  write(data);
}

// The first page of the thread list as the bridge last answered it (listThreads' entries: ids, names, first
// prompts, folders, states; no credential), so a page load shows it at once, marked as refreshing, while the live
// one comes. Kept for one bridge, the one it came from; forgotten with the token.
const LIST = 'codex-bridge/list/v1';

export function savedList(serverId) {
  try {
    const raw = JSON.parse(localStorage.getItem(LIST) || 'null');
    return raw && raw.serverId === serverId && Array.isArray(raw.threads) ? raw.threads : null;
  } catch (_) { return null; }
}

export function saveList(serverId, threads) {
  try { localStorage.setItem(LIST, JSON.stringify({ serverId, threads })); } catch (_) { /* not kept */ }
}

// What the person was typing in each thread's composer and has not sent (issue 46 item 2: a reload, or iOS discarding
// the tab, keeps it): threadId → text, the newest MAX_DRAFTS kept, each at most MAX_DRAFT characters; forgotten with
// the token.
const DRAFTS = 'codex-bridge/drafts/v1';
const MAX_DRAFTS = 50;
const MAX_DRAFT = 20000;
let drafts = null;

function readDrafts() {
  if (drafts) return drafts;
  try {
    const raw = JSON.parse(localStorage.getItem(DRAFTS) || '{}');
    drafts = raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
  } catch (_) { drafts = {}; }
  return drafts;
}

export function savedDraft(threadId) {
  const text = readDrafts()[threadId];
  return typeof text === 'string' ? text : '';
}

/** Keeps `text` as the thread's draft ('' forgets it). */
export function saveDraft(threadId, text) {
  const all = readDrafts();
  const kept = String(text || '').slice(0, MAX_DRAFT);
  if ((all[threadId] || '') === kept) return;
  delete all[threadId]; // newest last
  if (kept.trim()) all[threadId] = kept;
  const ids = Object.keys(all);
  for (const id of ids.slice(0, Math.max(0, ids.length - MAX_DRAFTS))) delete all[id];
  try { localStorage.setItem(DRAFTS, JSON.stringify(all)); } catch (_) { /* memory only */ }
}
