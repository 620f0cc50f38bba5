// The store's part for follow-ups held until the running turn ends (messageQueued/messageUnqueued/queueChanged,
// kept in the thread's `queued` map in the line's order), and how a turn's failure and the account's usage are said.

import { tokens } from './context-meter.js';

/** The change records (threads.js) for a queued message or its leaving the queue; null for any other message. */
export function queueRecords(t, msg) {
  if (msg.kind === 'messageQueued') {
    return [{ set: { listed: true } }, ...(t.queued.has(msg.queuedId) ? [] : [{ put: 'queued', key: msg.queuedId, value: { ...msg } }]), { emit: { type: 'queue' } }];
  }
  if (msg.kind === 'messageUnqueued') return [{ set: { listed: true } }, { put: 'queued', key: msg.queuedId, value: null }, { emit: { type: 'queue', unqueued: msg } }];
  // The whole line after any change, in the order the messages will start (a reorder, an edit, from anywhere).
  if (msg.kind === 'queueChanged' && Array.isArray(msg.items)) {
    const items = msg.items.filter((item) => item && typeof item.queuedId === 'string');
    return [{ set: { listed: true } }, ...[...t.queued.keys()].map((key) => ({ put: 'queued', key, value: null })),
      ...items.map((item) => ({ put: 'queued', key: item.queuedId, value: { ...item, threadId: msg.threadId } })), { emit: { type: 'queue' } }];
  }
  return null;
}

/** Codex's own kind of an error (`codexErrorInfo`: a name, or an object named by its one key), or null. */
export function errorKind(error) {
  const info = error && error.codexErrorInfo;
  if (typeof info === 'string') return info;
  if (info && typeof info === 'object') return Object.keys(info)[0] || null;
  return null;
}

const ERROR_TITLES = {
  usageLimitExceeded: 'Usage limit reached',
  unauthorized: 'Not signed in to Codex',
  contextWindowExceeded: 'The conversation is too long for the model',
  serverOverloaded: 'The model is overloaded',
  httpConnectionFailed: 'Could not reach the model',
  responseStreamConnectionFailed: 'Lost the connection to the model',
  internalServerError: 'The model service failed',
  badRequest: 'The model refused the request',
  sandboxError: 'Sandbox error',
  workstationRestarted: 'The workstation restarted while Codex was working',
};

/** Why a turn failed, in words: Codex's kind when it gave one, else "Failed"/"Stopped"/"Error". */
export function failureTitle(turn, fallback) {
  return (turn.errorKind && ERROR_TITLES[turn.errorKind]) || fallback;
}

/** Codex's rate limits (`usage`) as one line per window, e.g. "5 h window: 42% used, resets 14:05". */
/** The windows in one short line for the thread list ("Usage: 5 h 12% · 7 d 3%"), or null when none is known. */
export function usageLine(rateLimits) {
  const parts = [];
  for (const w of Object.values(rateLimits || {})) {
    if (!w || typeof w !== 'object' || typeof w.usedPercent !== 'number') continue;
    parts.push(`${windowSpan(w.windowDurationMins) || 'window'} ${Math.round(w.usedPercent)}%`);
  }
  return parts.length ? `Usage: ${parts.join(' · ')}` : null;
}

/**
 * The account's tokens (`accountUsage`) in one short line for the thread list ("Tokens: 1.2M in all · 7.0k today"),
 * or null when it says nothing. `today`: the local date as `YYYY-MM-DD` (a day's bucket is the backend's).
 */
export function tokenLine(usage, today) {
  if (!usage || typeof usage !== 'object') return null;
  const parts = [];
  const lifetime = usage.summary && usage.summary.lifetimeTokens;
  if (Number.isFinite(lifetime)) parts.push(`${tokens(lifetime)} in all`);
  const days = Array.isArray(usage.dailyUsageBuckets) ? usage.dailyUsageBuckets : [];
  const day = days.find((d) => d && d.startDate === today && Number.isFinite(d.tokens));
  if (day) parts.push(`${tokens(day.tokens)} today`);
  return parts.length ? `Tokens: ${parts.join(' · ')}` : null;
}

/** The local date as the backend's buckets name days: `YYYY-MM-DD`. */
export function localDate(now = new Date()) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

function windowSpan(mins) {
  if (typeof mins !== 'number') return null;
  return mins % 1440 === 0 ? `${mins / 1440} d` : mins % 60 === 0 ? `${mins / 60} h` : `${mins} min`;
}

export function describeUsage(rateLimits) {
  const lines = [];
  for (const [name, w] of Object.entries(rateLimits || {})) {
    if (!w || typeof w !== 'object' || typeof w.usedPercent !== 'number') continue;
    const span = windowSpan(w.windowDurationMins) || name;
    const reset = typeof w.resetsAt === 'number' ? `, resets ${new Date(w.resetsAt * 1000).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' })}` : '';
    lines.push(`${span} window: ${Math.round(w.usedPercent)}% used${reset}`);
  }
  return lines.length ? lines.join('\n') : 'No rate limits reported.';
}
