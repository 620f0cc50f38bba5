// The store's part for what a turn needs from the phone: the agent's questions (inputRequest/inputResolved)
// and follow-ups held until the running turn ends (messageQueued/messageUnqueued). Kept on the thread as
// `inputs` (requestId → question) and `queued` (queuedId → message).

/** Who answered an approval or a question, and when: what the card keeps saying after reloads. */
export function answeredBy(msg, fields) {
  return {
    ...fields,
    deviceId: msg.deviceId || null,
    deviceName: typeof msg.deviceName === 'string' ? msg.deviceName : null,
    at: typeof msg.at === 'number' ? msg.at : null,
    elsewhere: msg.answeredElsewhere === true,
  };
}

/** Applies one message; returns true when it was one of these kinds. */
export function applyExtra(store, msg) {
  switch (msg.kind) {
    case 'inputRequest': {
      const t = extras(store, msg.threadId);
      let input = t.inputs.get(msg.requestId);
      if (!input) {
        input = { ...msg, resolved: null, receivedAt: Date.now() };
        t.inputs.set(msg.requestId, input);
      }
      const turn = store.turn(t, msg.turnId);
      turn.inputs = turn.inputs || [];
      if (turn.inputs.includes(msg.requestId)) return true; // sent again on resubscribe, or in readThread's answer
      turn.inputs.push(msg.requestId);
      store.emit(t, { type: 'input', input, turn, added: true });
      store.listChanged();
      return true;
    }
    case 'inputResolved': {
      const t = extras(store, msg.threadId);
      const input = t.inputs.get(msg.requestId);
      if (!input) return true;
      input.resolved = answeredBy(msg, { action: msg.action, answers: msg.answers || null, content: msg.content || null });
      store.emit(t, { type: 'input', input });
      store.listChanged();
      return true;
    }
    case 'messageQueued': {
      const t = extras(store, msg.threadId);
      if (!t.queued.has(msg.queuedId)) t.queued.set(msg.queuedId, { ...msg });
      store.emit(t, { type: 'queue' });
      return true;
    }
    case 'messageUnqueued': {
      const t = extras(store, msg.threadId);
      t.queued.delete(msg.queuedId);
      store.emit(t, { type: 'queue', unqueued: msg });
      return true;
    }
    default: return false;
  }
}

function extras(store, threadId) {
  const t = store.ensure(threadId);
  t.listed = true;
  if (!t.inputs) t.inputs = new Map();
  if (!t.queued) t.queued = new Map();
  return t;
}

/** Questions nobody answered yet. */
export function pendingInputs(t) {
  let n = 0;
  for (const i of (t.inputs || new Map()).values()) if (!i.resolved) n++;
  return n;
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
export function describeUsage(rateLimits) {
  const lines = [];
  for (const [name, w] of Object.entries(rateLimits || {})) {
    if (!w || typeof w !== 'object' || typeof w.usedPercent !== 'number') continue;
    const span = typeof w.windowDurationMins === 'number'
      ? (w.windowDurationMins % 1440 === 0 ? `${w.windowDurationMins / 1440} d` : w.windowDurationMins % 60 === 0 ? `${w.windowDurationMins / 60} h` : `${w.windowDurationMins} min`)
      : name;
    const reset = typeof w.resetsAt === 'number' ? `, resets ${new Date(w.resetsAt * 1000).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' })}` : '';
    lines.push(`${span} window: ${Math.round(w.usedPercent)}% used${reset}`);
  }
  return lines.length ? lines.join('\n') : 'No rate limits reported.';
}
