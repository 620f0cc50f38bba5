// The queue under the composer: the store keeps the line in the order the bridge's queueChanged gives it (a
// reorder or an edit from any phone), and a move swaps two neighbours.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThreadStore } from '../../Sources/BridgeWeb/Assets/threads.js';
import { moved } from '../../Sources/BridgeWeb/Assets/queued-list.js';

test('queueChanged replaces the line: its order, its texts, nothing it leaves out', () => {
  const store = new ThreadStore();
  const seen = [];
  store.watchThread('t', (c) => seen.push(c.type));
  store.applyMessage({ kind: 'messageQueued', threadId: 't', queuedId: 'q1', text: 'one' });
  store.applyMessage({ kind: 'messageQueued', threadId: 't', queuedId: 'q2', text: 'two' });
  store.applyMessage({ kind: 'messageQueued', threadId: 't', queuedId: 'q3', text: 'three' });
  store.applyMessage({ kind: 'queueChanged', threadId: 't', items: [{ queuedId: 'q3', text: 'three' }, { queuedId: 'q1', text: 'one, edited' }] });
  const line = [...store.get('t').queued.values()];
  assert.deepEqual(line.map((q) => [q.queuedId, q.text]), [['q3', 'three'], ['q1', 'one, edited']]);
  assert.equal(line[0].threadId, 't');
  // A messageQueued sent again (a late subscribe) neither moves nor reverts an item.
  store.applyMessage({ kind: 'messageQueued', threadId: 't', queuedId: 'q1', text: 'one' });
  assert.deepEqual([...store.get('t').queued.values()].map((q) => q.text), ['three', 'one, edited']);
  store.applyMessage({ kind: 'queueChanged', threadId: 't', items: [] });
  assert.equal(store.get('t').queued.size, 0);
  assert.ok(seen.filter((type) => type === 'queue').length >= 5);
  // Malformed items are left out, not shown.
  store.applyMessage({ kind: 'queueChanged', threadId: 't', items: [null, { text: 'no id' }, { queuedId: 'q9', text: 'ok' }] });
  assert.deepEqual([...store.get('t').queued.keys()], ['q9']);
});

test('a move swaps neighbours and stops at the ends', () => {
  assert.deepEqual(moved(['a', 'b', 'c'], 1, -1), ['b', 'a', 'c']);
  assert.deepEqual(moved(['a', 'b', 'c'], 1, 1), ['a', 'c', 'b']);
  assert.equal(moved(['a', 'b', 'c'], 0, -1), null);
  assert.equal(moved(['a', 'b', 'c'], 2, 1), null);
});
