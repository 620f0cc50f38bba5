// "Needs you" (issue 33): every approval and question that waits for an answer, across threads and machines,
// newest first. Read from the store (approvalRequest and inputRequest, the bridge sends the pending ones again
// on subscribe; pending.js). No DOM here (Tests/webunit runs it in node).
import { KINDS } from './pending.js';

/**
 * [{key, kind: 'approval'|'question', thread, item}] for everything unanswered, newest first: by the journal's
 * seq (the home bridge numbers what it relays from other machines too), then by arrival.
 */
export function pendingItems(store) {
  const items = [];
  for (const thread of store.threads.values()) {
    if (thread.archived) continue;
    for (const [name, kind] of Object.entries(KINDS)) {
      for (const item of thread[kind.map].values()) if (!item.resolved) items.push({ key: `${kind.key}:${item[kind.id]}`, kind: name, thread, item });
    }
  }
  const order = (x) => [typeof x.item.seq === 'number' ? x.item.seq : 0, x.item.receivedAt || 0];
  return items.sort((x, y) => {
    const [sx, rx] = order(x);
    const [sy, ry] = order(y);
    return sy - sx || ry - rx;
  });
}
