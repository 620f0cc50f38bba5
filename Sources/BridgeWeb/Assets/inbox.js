// "Needs you" (issue 33): every approval and question that waits for an answer, across threads and machines,
// newest first. Read from the store (approvalRequest and inputRequest, the bridge sends the pending ones again
// on subscribe). No DOM here (Tests/webunit runs it in node).

/**
 * [{key, kind: 'approval'|'question', thread, item}] for everything unanswered, newest first: by the journal's
 * seq (the home bridge numbers what it relays from other machines too), then by arrival.
 */
export function pendingItems(store) {
  const items = [];
  for (const thread of store.threads.values()) {
    if (thread.archived) continue;
    for (const a of thread.approvals.values()) if (!a.resolved) items.push({ key: `a:${a.approvalId}`, kind: 'approval', thread, item: a });
    for (const q of (thread.inputs || new Map()).values()) if (!q.resolved) items.push({ key: `q:${q.requestId}`, kind: 'question', thread, item: q });
  }
  const order = (x) => [typeof x.item.seq === 'number' ? x.item.seq : 0, x.item.receivedAt || 0];
  return items.sort((x, y) => {
    const [sx, rx] = order(x);
    const [sy, ry] = order(y);
    return sy - sx || ry - rx;
  });
}
