// Paged history (issue 36): a readThread answer with its newest turns and a cursor, earlier pages put before them
// (threads.js), and which far turns a long conversation collapses (turn-window.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThreadStore } from '../../Sources/BridgeWeb/Assets/threads.js';
import { turnsToCollapse, distanceFromViewport, turnLine, firstDrawn } from '../../Sources/BridgeWeb/Assets/turn-window.js';

const turn = (id, text) => ({ id, status: 'completed', items: [
  { type: 'userMessage', id: `${id}-u`, content: [{ type: 'text', text }] },
  { type: 'agentMessage', id: `${id}-a`, text: `answer ${text}` },
] });

test('a page of earlier turns goes before the newest ones, with its requests; the cursor moves on', () => {
  const store = new ThreadStore();
  const seen = [];
  store.watchThread('t', (c) => seen.push(c.type === 'older' ? `older:${c.turns.map((x) => x.id)}` : c.type));
  store.applyThreadAnswer('t', { thread: { id: 't', turns: [turn('u3', 'three'), turn('u4', 'four')] }, olderTurns: 'c1',
    requests: [{ kind: 'approvalRequest', threadId: 't', turnId: 'u1', approvalId: 'a1', type: 'command' }] });
  const t = store.get('t');
  assert.deepEqual(t.turns.map((x) => x.id), ['u3', 'u4']);
  assert.equal(t.olderTurns, 'c1');
  assert.equal(t.approvals.size, 0, 'an approval of a turn not held yet makes no phantom turn');
  // A live turn arrives meanwhile: it stays last.
  store.applyMessage({ kind: 'event', threadId: 't', type: 'turn/started', turnId: 'u5', data: { turn: { id: 'u5' } } });
  store.applyOlderTurns('t', { threadId: 't', turns: [turn('u1', 'one'), turn('u2', 'two'), turn('u3', 'three')], olderTurns: undefined,
    requests: [{ kind: 'approvalRequest', threadId: 't', turnId: 'u1', approvalId: 'a1', type: 'command' },
      { kind: 'approvalResolved', threadId: 't', approvalId: 'a1', decision: 'accept' }] });
  assert.deepEqual(t.turns.map((x) => x.id), ['u1', 'u2', 'u3', 'u4', 'u5']);
  assert.equal(t.olderTurns, null, 'the first turn is held');
  assert.deepEqual(t.turns[0].approvals, ['a1']);
  assert.equal(t.itemMap.get('u1-a').item.done, true);
  assert.deepEqual(seen.filter((x) => x.startsWith('older')), ['older:u1,u2'], 'one change names the turns added');
});

test('a snapshot read again keeps the earlier pages before it', () => {
  const store = new ThreadStore();
  store.applyThreadAnswer('t', { thread: { id: 't', turns: [turn('u3', 'three')] }, olderTurns: 'c1' });
  store.applyOlderTurns('t', { threadId: 't', turns: [turn('u1', 'one'), turn('u2', 'two')], olderTurns: 'c0' });
  store.applySnapshot({ id: 't', turns: [turn('u3', 'three'), turn('u4', 'four')] });
  const t = store.get('t');
  assert.deepEqual(t.turns.map((x) => x.id), ['u1', 'u2', 'u3', 'u4']);
  assert.equal(t.olderTurns, 'c0');
});

test('far turns collapse, farthest first, until the bound holds; near and running ones never', () => {
  const entries = [
    { id: 'a', items: 100, distance: 5000, running: false },
    { id: 'b', items: 100, distance: 3000, running: false },
    { id: 'c', items: 100, distance: 0, running: false },
    { id: 'd', items: 100, distance: 900, running: true },
    { id: 'e', items: 100, distance: 300, running: false },
  ];
  assert.deepEqual(turnsToCollapse(entries, 250, 800), ['a', 'b']);
  assert.deepEqual(turnsToCollapse(entries, 1000, 800), []);
  assert.deepEqual(turnsToCollapse(entries, 0, 800), ['a', 'b'], 'what is near stays, over the bound');
  assert.equal(distanceFromViewport({ top: -500, bottom: -100 }, 800), 100);
  assert.equal(distanceFromViewport({ top: 1000, bottom: 1200 }, 800), 200);
  assert.equal(distanceFromViewport({ top: -10, bottom: 10 }, 800), 0);
  assert.equal(turnLine('fix\n the   bug', 20), 'fix the bug · 20 items');
  assert.equal(turnLine('', 1), 'Turn · 1 item');
  assert.equal(turnLine('x'.repeat(200), 2).length, 90 + ' · 2 items'.length);
});

test('a conversation drawn at its end: the last turns holding enough items whole, and every running turn', () => {
  const ended = (items) => ({ items, running: false });
  assert.equal(firstDrawn([ended(20), ended(20), ended(20), ended(20)], 40), 2, 'two turns of 20 fill 40');
  assert.equal(firstDrawn([ended(20), ended(20), ended(19)], 40), 0, 'short of 40 after two: the one before too');
  assert.equal(firstDrawn([ended(2), ended(3)], 40), 0, 'a short thread is drawn whole');
  assert.equal(firstDrawn([], 40), 0);
  assert.equal(firstDrawn([ended(50), { items: 1, running: true }, ended(50)], 40), 1, 'a running turn is never a line');
  assert.equal(firstDrawn([ended(50), ended(1)], 40), 0);
});
