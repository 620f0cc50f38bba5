// The store's part for what a turn needs from the phone: the agent's questions (inputRequest/inputResolved)
// and follow-ups held until the running turn ends (messageQueued/messageUnqueued). Kept on the thread as
// `inputs` (requestId → question) and `queued` (queuedId → message).

/** Applies one message; returns true when it was one of these kinds. */
export function applyExtra(store, msg) {
  switch (msg.kind) {
    case 'inputRequest': {
      const t = extras(store, msg.threadId);
      if (t.inputs.has(msg.requestId)) return true; // sent again on resubscribe
      const input = { ...msg, resolved: null };
      t.inputs.set(msg.requestId, input);
      const turn = store.turn(t, msg.turnId);
      turn.inputs = turn.inputs || [];
      turn.inputs.push(msg.requestId);
      store.emit(t, { type: 'input', input, turn, added: true });
      store.listChanged();
      return true;
    }
    case 'inputResolved': {
      const t = extras(store, msg.threadId);
      const input = t.inputs.get(msg.requestId);
      if (!input) return true;
      input.resolved = { action: msg.action, deviceId: msg.deviceId || null };
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
