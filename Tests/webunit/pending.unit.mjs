// Approvals and questions, one kind of pending item (pending.js): kept once however often they are sent, placed in
// their turn, answered with who and when; what a running turn waits for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThreadStore } from '../../Sources/BridgeWeb/Assets/threads.js';
import { KINDS, unanswered, waitingFor, threadWaitingFor, pendingRecords } from '../../Sources/BridgeWeb/Assets/pending.js';

test('an approval and a question: kept once, in their turn, watchers told once', () => {
  const store = new ThreadStore();
  const seen = [];
  store.watchThread('t', (c) => seen.push([c.type, !!c.added]));
  store.applyMessage({ kind: 'event', threadId: 't', type: 'turn/started', turnId: 'u1', data: { turn: { id: 'u1' } } });
  const approval = { kind: 'approvalRequest', threadId: 't', turnId: 'u1', approvalId: 'a1', type: 'command', command: 'ls' };
  const question = { kind: 'inputRequest', threadId: 't', turnId: 'u1', requestId: 'q1', questions: [] };
  for (const msg of [approval, question, approval, question]) store.applyMessage(msg); // sent again on resubscribe
  const t = store.get('t');
  assert.deepEqual([t.turns[0].approvals, t.turns[0].inputs], [['a1'], ['q1']]);
  assert.deepEqual([unanswered(t, KINDS.approval), unanswered(t, KINDS.question)], [1, 1]);
  assert.equal(waitingFor(t, t.turns[0]), 'Waiting for your approval');
  assert.deepEqual(seen.filter(([type]) => type === 'approval' || type === 'input'), [['approval', true], ['input', true]]);
});

test('answered: the same object says who and when; the turn waits no more', () => {
  const store = new ThreadStore();
  store.applyMessage({ kind: 'approvalRequest', threadId: 't', turnId: 'u1', approvalId: 'a1', type: 'command' });
  store.applyMessage({ kind: 'inputRequest', threadId: 't', turnId: 'u1', requestId: 'q1', questions: [] });
  const t = store.get('t');
  const approval = t.approvals.get('a1');
  store.applyMessage({ kind: 'approvalResolved', threadId: 't', approvalId: 'a1', decision: 'accept', deviceId: 'd1', deviceName: 'Ana', at: 5 });
  assert.equal(t.approvals.get('a1'), approval, 'the card holds this object');
  assert.deepEqual(approval.resolved, { decision: 'accept', deviceId: 'd1', deviceName: 'Ana', at: 5, elsewhere: false });
  assert.equal(waitingFor(t, t.turns[0]), 'Waiting for your answer');
  store.applyMessage({ kind: 'inputResolved', threadId: 't', requestId: 'q1', action: 'decline', answeredElsewhere: true });
  assert.deepEqual([t.inputs.get('q1').resolved.action, t.inputs.get('q1').resolved.elsewhere], ['decline', true]);
  assert.equal(waitingFor(t, t.turns[0]), null);
  assert.equal(unanswered(t, KINDS.question), 0);
});

test('an answer to a request never seen changes nothing; other kinds are not pending items', () => {
  const store = new ThreadStore();
  store.applyMessage({ kind: 'approvalResolved', threadId: 't', approvalId: 'nope', decision: 'accept' });
  assert.equal(store.get('t').approvals.size, 0);
  assert.equal(pendingRecords(store.get('t'), { kind: 'commandStarted' }, 'u'), null);
});

test('a thread row says what it waits for from the person: an approval before a question, nothing once answered', () => {
  const store = new ThreadStore();
  store.applyMessage({ kind: 'inputRequest', threadId: 't', turnId: 'u1', requestId: 'q1', questions: [] });
  const t = store.get('t');
  assert.equal(threadWaitingFor(t), 'Waiting for your answer');
  store.applyMessage({ kind: 'approvalRequest', threadId: 't', turnId: 'u1', approvalId: 'a1', type: 'command' });
  assert.equal(threadWaitingFor(t), 'Waiting for your approval');
  store.applyMessage({ kind: 'approvalResolved', threadId: 't', approvalId: 'a1', decision: 'accept' });
  store.applyMessage({ kind: 'inputResolved', threadId: 't', requestId: 'q1', action: 'accept' });
  assert.equal(threadWaitingFor(t), null);
});
