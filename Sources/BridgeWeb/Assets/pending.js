// What a turn waits for from a person: Codex's approvals (approvalRequest/approvalResolved) and its questions
// (inputRequest/inputResolved, request_user_input or an MCP form). Both are one kind of thing, a pending item: it
// arrives in a turn (again on every resubscribe and in readThread's answer, so it is kept once), waits, and is
// answered by someone, somewhere. KINDS says how each is named; the store keeps them in the thread's `approvals`
// and `inputs` maps and each turn's lists of the same name (threads.js). No DOM here (Tests/webunit).

export const KINDS = {
  approval: { key: 'a', request: 'approvalRequest', resolved: 'approvalResolved', id: 'approvalId', map: 'approvals', change: 'approval',
    answer: (msg) => ({ decision: msg.decision }) },
  question: { key: 'q', request: 'inputRequest', resolved: 'inputResolved', id: 'requestId', map: 'inputs', change: 'input',
    answer: (msg) => ({ action: msg.action, answers: msg.answers || null, content: msg.content || null }) },
};

const BY_MESSAGE = new Map(Object.values(KINDS).flatMap((k) => [[k.request, [k, false]], [k.resolved, [k, true]]]));

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

/**
 * The change records (threads.js) for an approval's or a question's request or answer in thread `t`; null for any
 * other message. `turnId`: the id of the turn it belongs to (the store's turnKey).
 */
export function pendingRecords(t, msg, turnId) {
  const found = BY_MESSAGE.get(msg.kind);
  if (!found) return null;
  const [kind, isAnswer] = found;
  const id = msg[kind.id];
  const known = t[kind.map].get(id);
  if (isAnswer) {
    // An answer to a request this phone never saw changes nothing (a question's still lists its thread).
    const records = kind === KINDS.question ? [{ set: { listed: true } }] : [];
    if (!known) return records;
    return [...records,
      { put: kind.map, key: id, value: { resolved: answeredBy(msg, kind.answer(msg)) } },
      { emit: { type: kind.change, [kind.change]: known } },
      { list: true }];
  }
  const item = known || { ...msg, resolved: null, receivedAt: Date.now() };
  const records = [{ set: { listed: true } }];
  if (!known) records.push({ put: kind.map, key: id, value: item });
  const turn = t.turnMap.get(turnId);
  records.push({ turn: turnId, set: {} }); // the turn it is in (made when new)
  if (turn && turn[kind.map].includes(id)) return records; // sent again on resubscribe, or in readThread's answer
  return [...records, // (again, when a re-read thread's turn came without it)
    { turn: turnId, push: [kind.map, id] },
    { emit: { type: kind.change, [kind.change]: item, added: true }, turn: turnId },
    { list: true }];
}

/** How many of a thread's items of `kind` nobody answered yet. */
export function unanswered(t, kind) {
  let n = 0;
  for (const x of t[kind.map].values()) if (!x.resolved) n++;
  return n;
}

/** What a running turn waits for from a person (an approval, an answer), or null while Codex works. */
export function waitingFor(t, turn) {
  const open = (kind) => turn[kind.map].some((id) => { const x = t[kind.map].get(id); return x && !x.resolved; });
  if (open(KINDS.approval)) return 'Waiting for your approval';
  if (open(KINDS.question)) return 'Waiting for your answer';
  return null;
}

/** What thread `t` waits for from a person, whichever turn asked: for its row in the thread list. */
export function threadWaitingFor(t) {
  if (unanswered(t, KINDS.approval)) return 'Waiting for your approval';
  if (unanswered(t, KINDS.question)) return 'Waiting for your answer';
  return null;
}
