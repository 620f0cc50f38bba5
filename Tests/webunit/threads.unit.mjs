// The app's picture of the threads (threads.js ThreadStore): the list, the live events, turns and items.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThreadStore, lastLine } from '../../Sources/BridgeWeb/Assets/threads.js';

const event = (threadId, type, data, turnId) => ({ kind: 'event', threadId, type, turnId, data });

test('the list is newest first and keeps only listed threads', () => {
  const store = new ThreadStore();
  store.applyList([
    { threadId: 'a', cwd: '/w/a', preview: 'first', updatedAt: 10 },
    { threadId: 'b', cwd: '/w/b', preview: 'second', name: 'Named', updatedAt: 20 },
  ]);
  store.ensure('hidden');
  assert.deepEqual(store.list().map((t) => t.id), ['b', 'a']);
  assert.equal(store.get('b').name, 'Named');
  assert.equal(store.get('a').cwd, '/w/a');
});

test('the list as last seen shows at once; the live first page replaces it, unlisting what it no longer holds', () => {
  const store = new ThreadStore();
  let drawn = 0;
  store.watchList(() => { drawn += 1; });
  store.applyList([{ threadId: 'gone', preview: 'deleted meanwhile', updatedAt: 30 }, { threadId: 'kept', preview: 'old', updatedAt: 10 }], { cached: true });
  assert.equal(drawn, 1, 'the first list is drawn at once, not 150 ms later');
  assert.equal(store.listCached, true);
  assert.deepEqual(store.list().map((t) => t.id), ['gone', 'kept']);
  store.applyList([{ threadId: 'kept', preview: 'old', updatedAt: 20 }, { threadId: 'new', preview: 'new one', updatedAt: 40 }], { first: true });
  assert.equal(drawn, 2, 'the live list too');
  assert.equal(store.listCached, false);
  assert.deepEqual(store.list().map((t) => t.id), ['new', 'kept']);
  assert.equal(store.get('kept').cached, false);
  // A later page (loadMore) unlists nothing.
  store.applyList([{ threadId: 'older', preview: 'p', updatedAt: 1 }]);
  assert.deepEqual(store.list().map((t) => t.id), ['new', 'kept', 'older']);
});

test('a turn streams: started, an item, its deltas, completed; watchers get change records', () => {
  const store = new ThreadStore();
  const changes = [];
  store.watchThread('t', (change) => changes.push(change.type));
  store.applyMessage(event('t', 'turn/started', { turn: { id: 'u1', status: 'inProgress' } }, 'u1'));
  assert.equal(store.isRunning(store.get('t')), true);
  store.applyMessage(event('t', 'item/started', { item: { id: 'i1', type: 'agentMessage', text: '' } }, 'u1'));
  store.applyMessage(event('t', 'item/agentMessage/delta', { itemId: 'i1', delta: 'Hel' }, 'u1'));
  store.applyMessage(event('t', 'item/agentMessage/delta', { itemId: 'i1', delta: 'lo' }, 'u1'));
  const thread = store.get('t');
  const item = thread.itemMap.get('i1').item;
  assert.equal(item.text, 'Hello');
  store.applyMessage(event('t', 'turn/completed', { turn: { id: 'u1', status: 'completed' } }, 'u1'));
  assert.equal(store.isRunning(thread), false);
  assert.equal(thread.lastTurnStatus, 'completed');
  assert.ok(changes.includes('turn') && changes.includes('item') && changes.includes('turnStatus'), changes.join());
});

test('a failed turn keeps its reason; an error that will be retried changes nothing', () => {
  const store = new ThreadStore();
  store.applyMessage(event('t', 'turn/started', { turn: { id: 'u1' } }, 'u1'));
  store.applyMessage(event('t', 'error', { willRetry: true, error: { message: 'later' } }, 'u1'));
  assert.equal(store.get('t').turns[0].error, null);
  store.applyMessage(event('t', 'bridge/turnFailed', { turnId: 'u1', reason: 'Codex stopped' }, 'u1'));
  const turn = store.get('t').turns[0];
  assert.deepEqual([turn.status, turn.error], ['failed', 'Codex stopped']);
});

test('lastLine is the last non-empty line', () => {
  assert.equal(lastLine('a\nb\n\n'), 'b');
});

test('a turn cut short by the bridge is said for a person; bridge/shuttingDown keeps the grace', () => {
  const store = new ThreadStore();
  store.applyMessage(event('t', 'turn/started', { turn: { id: 'u1' } }, 'u1'));
  store.applyMessage(event('t', 'bridge/shuttingDown', { threadId: 't', turnId: 'u1', graceSeconds: 30 }, 'u1'));
  assert.equal(store.get('t').turns[0].shuttingDown, 30);
  store.applyMessage(event('t', 'bridge/turnFailed', { turnId: 'u1', reason: 'bridge restarted' }, 'u1'));
  const turn = store.get('t').turns[0];
  assert.deepEqual([turn.status, turn.errorKind, turn.error], ['failed', 'workstationRestarted', '']);
});

test('readThread mid-turn: the text so far, then live pieces after its seq, each once (issue 37 item 2)', () => {
  const store = new ThreadStore();
  const delta = (seq, text) => ({ ...event('t', 'item/agentMessage/delta', { itemId: 'i1', delta: text }, 'u1'), seq });
  // A reload: live pieces arrive (seq 11, 12) before readThread answers as of seq 11.
  store.applyMessage(delta(11, 'C'));
  store.applyMessage(delta(12, 'D'));
  const snapshot = { id: 't', turns: [{ id: 'u1', status: 'inProgress', items: [
    { id: 'q', type: 'userMessage', content: [{ type: 'text', text: 'count' }] },
    { id: 'i1', type: 'agentMessage', text: 'ABC', status: 'inProgress' },
  ] }] };
  store.applySnapshot(snapshot, { seq: 11 });
  const thread = store.get('t');
  const item = thread.itemMap.get('i1').item;
  assert.equal(item.text, 'ABCD');
  assert.equal(item.done, false);
  assert.deepEqual(thread.turns[0].items, ['q', 'i1']);
  store.applyMessage(delta(12, 'D')); // a piece the page already had
  store.applyMessage(delta(13, 'E'));
  assert.equal(item.text, 'ABCDE');
  // Another thread first read mid-turn: its later deltas at or below the snapshot's seq are dropped.
  store.applySnapshot({ id: 'v', turns: [{ id: 'u2', status: 'inProgress', items: [
    { id: 'r', type: 'reasoning', summary: ['thinking'], status: 'inProgress' },
    { id: 'j', type: 'agentMessage', text: 'so far', status: 'inProgress' }] }] }, { seq: 20 });
  store.applyMessage({ ...event('v', 'item/agentMessage/delta', { itemId: 'j', delta: ' far' }, 'u2'), seq: 20 });
  store.applyMessage({ ...event('v', 'item/agentMessage/delta', { itemId: 'j', delta: ' and on' }, 'u2'), seq: 21 });
  store.applyMessage({ ...event('v', 'item/reasoning/summaryTextDelta', { itemId: 'r', delta: ' more' }, 'u2'), seq: 22 });
  assert.equal(store.get('v').itemMap.get('j').item.text, 'so far and on');
  assert.equal(store.get('v').itemMap.get('r').item.liveText, 'thinking more');
});

test('readThread requests: answered approvals and questions join their turns, quietly; none makes a phantom turn (issue 37 item 4)', () => {
  const store = new ThreadStore();
  const changes = [];
  store.watchThread('t', (change) => changes.push(change.type));
  const snapshot = { id: 't', turns: [{ id: 'u1', status: 'completed', items: [{ id: 'c1', type: 'commandExecution', status: 'completed' }] }] };
  const requests = [
    { kind: 'approvalRequest', seq: 3, approvalId: 'ap-1', threadId: 't', turnId: 'u1', itemId: 'c1', type: 'command', command: 'ls' },
    { kind: 'approvalResolved', seq: 4, approvalId: 'ap-1', threadId: 't', decision: 'accept', deviceId: 'd1', deviceName: 'Ana', at: 1800000000 },
    { kind: 'inputRequest', seq: 5, requestId: 'in-1', threadId: 't', turnId: 'u1', type: 'userInput', questions: [] },
    { kind: 'inputResolved', seq: 6, requestId: 'in-1', threadId: 't', action: 'accept', answers: { colour: ['Blue'] }, at: 1800000001 },
    { kind: 'approvalRequest', seq: 1, approvalId: 'ap-0', threadId: 't', turnId: 'u0', type: 'command', command: 'old' },
  ];
  store.applySnapshot(snapshot, { requests });
  const t = store.get('t');
  assert.deepEqual(changes, ['reset']);
  assert.deepEqual(t.turns.map((turn) => turn.id), ['u1']);
  assert.equal(store.isRunning(t), false);
  assert.deepEqual(t.turns[0].approvals, ['ap-1']);
  assert.deepEqual(t.approvals.get('ap-1').resolved, { decision: 'accept', deviceId: 'd1', deviceName: 'Ana', at: 1800000000, elsewhere: false });
  assert.deepEqual(t.inputs.get('in-1').resolved.answers, { colour: ['Blue'] });
  // Read again (a reload, a gap): attached once.
  store.applySnapshot(snapshot, { requests, fresh: true });
  assert.deepEqual(t.turns[0].approvals, ['ap-1']);
  assert.deepEqual(t.turns[0].inputs, ['in-1']);
});

test('rate limits pushed by Codex are merged and shown in one line', async () => {
  const { usageLine } = await import('../../Sources/BridgeWeb/Assets/thread-extras.js');
  const store = new ThreadStore();
  store.applyEvent({ kind: 'event', seq: 1, threadId: '*', type: 'account/rateLimits/updated', data: { rateLimits: { limitId: 'codex', primary: { usedPercent: 12.4, windowDurationMins: 300 } } } });
  store.applyEvent({ kind: 'event', seq: 2, threadId: '*', type: 'account/rateLimits/updated', data: { rateLimits: { secondary: { usedPercent: 3, windowDurationMins: 10080 } } } });
  assert.equal(usageLine(store.rateLimits), 'Usage: 5 h 12% · 7 d 3%');
  assert.equal(usageLine(null), null);
  assert.equal(store.threads.size, 0);
});

test('a thread is named by the name Codex keeps, else its first message, first line; its row says the rest in a line', async () => {
  const { threadTitle, rowPreview } = await import('../../Sources/BridgeWeb/Assets/thread-title.js');
  const prompt = '  fix the date parser  \n\n It assumes   local time;\nuse UTC. ';
  assert.equal(threadTitle({ preview: prompt }), 'fix the date parser');
  assert.equal(rowPreview({ preview: prompt }), 'It assumes local time; use UTC.');
  assert.equal(threadTitle({ name: 'Dates in UTC', preview: prompt }), 'Dates in UTC');
  assert.equal(rowPreview({ name: 'Dates in UTC', preview: prompt }), 'fix the date parser It assumes local time; use UTC.');
  assert.equal(rowPreview({ name: 'Dates in UTC', preview: prompt, lastAnswer: 'Done: UTC.' }), 'Done: UTC.');
  assert.equal(threadTitle({ name: '  ', preview: '' }), '');
  assert.equal(rowPreview({ preview: 'one line' }), '');
});
