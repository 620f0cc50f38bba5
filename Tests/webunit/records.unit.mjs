// The thread store's shape (threads.js): every field of a thread and a turn declared in one place, and the change
// records the store's parts return (pending.js, commands.js, thread-extras.js, thread-tools.js) applied by it alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThreadStore, newThread, newTurn } from '../../Sources/BridgeWeb/Assets/threads.js';
import { commandRecords } from '../../Sources/BridgeWeb/Assets/commands.js';
import { queueRecords } from '../../Sources/BridgeWeb/Assets/thread-extras.js';
import { toolRecords, listRecords } from '../../Sources/BridgeWeb/Assets/thread-tools.js';

const event = (threadId, type, data, turnId) => ({ kind: 'event', threadId, type, turnId, data });

test('a thread and a turn have every field from the start; a field declared nowhere cannot be added', () => {
  const t = newThread('t');
  for (const field of ['machine', 'goal', 'collaborationMode', 'subAgents', 'inputs', 'queued', 'commands', 'approvals', 'archived', 'stale']) {
    assert.ok(field in t, field);
  }
  assert.throws(() => { t.somethingNew = 1; }, TypeError);
  const turn = newTurn('u');
  assert.deepEqual([turn.approvals, turn.inputs, turn.plan], [[], [], undefined]);
  assert.throws(() => { turn.extra = true; }, TypeError);
  const store = new ThreadStore();
  assert.throws(() => store.commit(store.ensure('t'), [{ set: { notAField: 1 } }]), TypeError);
  assert.throws(() => store.commit(store.ensure('t'), [{ put: 'notAMap', key: 'k', value: {} }]), TypeError);
});

test('the parts read a thread and return records; they change nothing themselves', () => {
  const t = newThread('t');
  const records = commandRecords(t, { kind: 'commandStarted', threadId: 't', runId: 'r1', command: 'ls', cwd: '/w' });
  assert.equal(t.commands.size, 0, 'nothing written by the part');
  assert.deepEqual(records.map((r) => Object.keys(r)[0]), ['put', 'put', 'emit']);
  assert.equal(commandRecords(t, { kind: 'event' }), null, 'not its kind');
  assert.equal(queueRecords(t, { kind: 'approvalRequest' }), null);
  assert.equal(toolRecords(t, { type: 'item/started', data: {} }), null);
  assert.deepEqual(listRecords({ goal: null, name: 'N', model: 'm' }), [{ set: { goal: null, name: 'N', model: 'm' } }]);
  const goal = toolRecords(t, { type: 'thread/goal/updated', data: { goal: { objective: 'Ship', status: 'active' } } });
  assert.equal(t.goal, undefined);
  assert.deepEqual(goal.map((r) => Object.keys(r)[0]), ['set', 'emit', 'list']);
});

test('a command run: one object from start to exit, its output kept, watchers told', () => {
  const store = new ThreadStore();
  const seen = [];
  store.watchThread('t', (c) => seen.push([c.type, c.added, c.output]));
  store.applyMessage({ kind: 'commandStarted', threadId: 't', runId: 'r1', command: 'ls', cwd: '/w' });
  const run = store.get('t').commands.get('r1');
  store.applyMessage({ kind: 'commandOutput', threadId: 't', runId: 'r1', data: 'a\n' });
  store.applyMessage({ kind: 'commandOutput', threadId: 't', runId: 'r1', data: 'b\n' });
  store.applyMessage({ kind: 'commandExited', threadId: 't', runId: 'r1', exitCode: 0 });
  assert.equal(store.get('t').commands.get('r1'), run, 'the card keeps the object it was made with');
  assert.deepEqual([run.command, run.output, run.running, run.exitCode], ['ls', 'a\nb\n', false, 0]);
  assert.deepEqual(seen, [['command', true, ''], ['command', false, 'a\n'], ['command', false, 'b\n'], ['command', false, '']]);
});

test('queued messages come and go; a kind nobody knows makes no thread', () => {
  const store = new ThreadStore();
  store.applyMessage({ kind: 'messageQueued', threadId: 't', queuedId: 'q1', text: 'later' });
  store.applyMessage({ kind: 'messageQueued', threadId: 't', queuedId: 'q1', text: 'later' });
  assert.deepEqual([...store.get('t').queued.keys()], ['q1']);
  assert.equal(store.get('t').listed, true);
  store.applyMessage({ kind: 'messageUnqueued', threadId: 't', queuedId: 'q1', reason: 'sent' });
  assert.equal(store.get('t').queued.size, 0);
  store.applyMessage({ kind: 'somethingNew', threadId: 'x' });
  assert.equal(store.get('x'), undefined);
});

test('a plan, a notice and a sub-agent arrive through records', () => {
  const store = new ThreadStore();
  const seen = [];
  store.watchThread('t', (c) => seen.push(c.type));
  store.applyMessage(event('t', 'turn/started', { turn: { id: 'u1' } }, 'u1'));
  store.applyMessage(event('t', 'turn/plan/updated', { plan: [{ step: 'Read', status: 'in_progress' }, { bad: 1 }] }, 'u1'));
  store.applyMessage(event('t', 'model/rerouted', { fromModel: 'a', toModel: 'b' }, 'u1'));
  store.applyMessage(event('t', 'bridge/subAgent', { agentThreadId: 'c', agentNickname: 'Ada', status: 'running' }, 'u1'));
  const t = store.get('t');
  assert.deepEqual(t.turns[0].plan.steps, [{ step: 'Read', status: 'inProgress' }]);
  const notice = [...t.itemMap.values()].map((x) => x.item).find((i) => i.type === 'bridgeNotice');
  assert.equal(notice.text, 'Model rerouted: a → b');
  assert.deepEqual(t.subAgents.get('c'), { status: 'running', nickname: 'Ada', role: null });
  assert.deepEqual([store.get('c').parentThreadId, store.get('c').agentNickname, store.get('c').listed], ['t', 'Ada', true]);
  assert.deepEqual(seen, ['turn', 'turnStatus', 'plan', 'item', 'subAgents']);
});

test('a readThread answer: the thread, then the goal, usage and plans the bridge adds', () => {
  const store = new ThreadStore();
  store.applyThreadAnswer('t', {
    thread: { id: 't', cwd: '/w', turns: [{ id: 'u1', status: 'completed', items: [{ id: 'm1', type: 'agentMessage', text: 'Done.' }] }] },
    goal: { objective: 'Ship', status: 'active' },
    tokenUsage: { total: { totalTokens: 5 } },
    plans: [{ turnId: 'u1', plan: [{ step: 'One', status: 'completed' }] }],
  });
  const t = store.get('t');
  assert.deepEqual([t.loaded, t.cwd, t.goal.objective, t.tokenUsage.total.totalTokens], [true, '/w', 'Ship', 5]);
  assert.equal(t.turns[0].plan.steps[0].step, 'One');
});

test('after a resume answered "gap", what comes live before the thread is read again is kept (issue 46 item 2)', () => {
  const store = new ThreadStore();
  const delta = (seq, text) => ({ ...event('t', 'item/agentMessage/delta', { itemId: 'm1', delta: text }, 'u1'), seq });
  const answer = (text, throughSeq) => ({
    thread: { id: 't', turns: [{ id: 'u1', status: 'inProgress', items: [
      { id: 'p1', type: 'userMessage', content: [{ type: 'text', text: 'count' }] },
      { id: 'm1', type: 'agentMessage', text, status: 'inProgress' }] }] },
    throughSeq,
  });
  store.applyThreadAnswer('t', answer('a ', 10));
  store.applyMessage(delta(11, 'b '));
  store.invalidate(); // the bridge could not replay: the thread is read again
  // Live, before that answer: one delta it holds already (30), one it does not (31).
  store.applyMessage(delta(30, 'f '));
  store.applyMessage(delta(31, 'g '));
  store.applyThreadAnswer('t', answer('a b c d e f ', 30));
  const t = store.get('t');
  assert.equal(t.itemMap.get('m1').item.text, 'a b c d e f g ');
  assert.deepEqual(t.turns.map((turn) => turn.items), [['p1', 'm1']]);
  store.applyMessage(delta(31, 'g ')); // a repeat changes nothing
  store.applyMessage(delta(32, 'h '));
  assert.equal(t.itemMap.get('m1').item.text, 'a b c d e f g h ');
});
