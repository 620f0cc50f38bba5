// Issue 34 in the app's store (threads.js, thread-tools.js): a deleted thread leaves the list and tells its screen,
// the account's rate limits (threadId "*") make no thread, Codex's settings and automatic reviews are kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThreadStore } from '../../Sources/BridgeWeb/Assets/threads.js';

const event = (threadId, type, data, turnId) => ({ kind: 'event', threadId, type, turnId, data });

test('thread/deleted takes the thread out of the list and tells its screen', () => {
  const store = new ThreadStore();
  store.applyList([{ threadId: 'a', updatedAt: 1 }, { threadId: 'b', updatedAt: 2 }]);
  const changes = [];
  store.watchThread('a', (change) => changes.push(change.type));
  store.applyMessage(event('a', 'thread/deleted', { threadId: 'a' }));
  assert.deepEqual(store.list().map((t) => t.id), ['b']);
  assert.equal(store.get('a'), undefined);
  assert.deepEqual(changes, ['deleted']);
  store.applyMessage(event('a', 'thread/deleted', { threadId: 'a' })); // the answer and the event: once is enough
  assert.deepEqual(changes, ['deleted']);
});

test('the account\'s rate limits name no thread and make none', () => {
  const store = new ThreadStore();
  store.applyMessage(event('*', 'account/rateLimits/updated', { rateLimits: { limitId: 'codex', primary: { usedPercent: 40 } } }));
  assert.equal(store.get('*'), undefined);
  assert.deepEqual(store.list(), []);
  assert.equal(store.rateLimits.primary.usedPercent, 40);
});

test('settings and automatic reviews are kept on the thread', () => {
  const store = new ThreadStore();
  store.applyMessage(event('t', 'turn/started', { turn: { id: 'u1' } }, 'u1'));
  store.applyMessage(event('t', 'thread/settings/updated', { threadSettings: { model: 'm2', effort: 'high', approvalsReviewer: 'auto_review' } }));
  const t = store.get('t');
  assert.deepEqual([t.model, t.effort, t.approvalsReviewer], ['m2', 'high', 'auto_review']);
  const review = { reviewId: 'r1', action: { type: 'command', command: 'rm -rf build', cwd: '/w' } };
  store.applyMessage(event('t', 'item/autoApprovalReview/started', { ...review, review: { status: 'inProgress' } }, 'u1'));
  store.applyMessage(event('t', 'item/autoApprovalReview/completed',
    { ...review, review: { status: 'denied', riskLevel: 'high', rationale: 'Deletes files.' } }, 'u1'));
  const items = [...t.itemMap.values()].map((x) => x.item).filter((i) => i.type === 'autoReview');
  assert.equal(items.length, 1);
  assert.equal(items[0].text, 'Auto-review denied “rm -rf build”, high risk: Deletes files.');
  assert.match(items[0].noticeKind, /review-denied/);
  assert.deepEqual([items[0].reviewId, items[0].denied, items[0].overridden], ['r1', true, undefined]);
  // A person overrode it (approveDeniedAction, on any phone).
  store.applyMessage(event('t', 'bridge/deniedActionApproved', { threadId: 't', reviewId: 'r1', deviceId: 'd1' }));
  assert.deepEqual([items[0].overridden, items[0].overriddenBy], [true, 'd1']);
});

test('thread/reverted drops the thread\'s picture and tells its screen to read it again', () => {
  const store = new ThreadStore();
  store.applySnapshot({ id: 'a', turns: [
    { id: 't1', status: 'completed', items: [{ id: 'u1', type: 'userMessage', content: [{ type: 'text', text: 'one' }] }] },
    { id: 't2', status: 'completed', items: [{ id: 'u2', type: 'userMessage', content: [{ type: 'text', text: 'two' }] }] },
  ] });
  const changes = [];
  store.watchThread('a', (change) => changes.push(change.type));
  store.applyMessage(event('a', 'thread/reverted', { threadId: 'a' }));
  assert.deepEqual(changes, ['reverted']);
  const t = store.get('a');
  assert.equal(t.loaded, false);
  // The next readThread answer is the whole picture: the reverted turn does not stay.
  store.applySnapshot({ id: 'a', turns: [{ id: 't1', status: 'completed', items: [] }] });
  assert.deepEqual(t.turns.map((turn) => turn.id), ['t1']);
  assert.equal(t.itemMap.has('u2'), false);
});
