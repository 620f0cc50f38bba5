// The fleet's state (fleet.js) and the store's machine labels (threads.js): issue 33.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fleet from '../../Sources/BridgeWeb/Assets/fleet.js';
import { ThreadStore } from '../../Sources/BridgeWeb/Assets/threads.js';

test('the helloAck sets the machines; machineChanged moves one, adds one, removes one', () => {
  fleet.setMachines([{ id: 'a', name: 'Desk', state: 'online' }, { id: 'b', name: '<img src=x>', state: 'pending' }, { bogus: 1 }], 'a');
  assert.equal(fleet.isFleet(), true);
  assert.deepEqual(fleet.machines().map((m) => m.id), ['a', 'b']);
  assert.equal(fleet.machineName('b'), '<img src=x>'); // kept as text: views set textContent
  assert.equal(fleet.isOffline('b'), true);
  assert.equal(fleet.applyMachineChanged({ kind: 'machineChanged', machine: { id: 'b', name: 'Build', state: 'online' } }), null);
  assert.equal(fleet.isOffline('b'), false);
  assert.equal(fleet.machineName('b'), 'Build');
  fleet.applyMachineChanged({ machine: { id: 'c', name: 'x'.repeat(500), state: 'online' } });
  assert.equal(fleet.machineName('c').length, 64);
  fleet.applyMachineChanged({ machine: { id: 'd', name: 'evil\u202Etxt.exe\u0007', state: 'online' } });
  assert.equal(fleet.machineName('d'), 'eviltxt.exe', 'no bidi override, no control character');
  assert.equal(fleet.applyMachineChanged({ machine: { id: 'c', name: 'C', state: 'offline' }, removed: true }), 'c');
  assert.equal(fleet.machine('c'), null);
  assert.equal(fleet.applyMachineChanged({ machine: { id: 'a', name: 'Desk', state: 'offline' }, removed: true }), null, 'the home bridge never leaves');
});

test('a bridge without the fleet is one machine, its own', () => {
  fleet.setMachines(undefined, 'solo', 'Solo');
  assert.equal(fleet.isFleet(), false);
  assert.equal(fleet.machineName('solo'), 'Solo');
  assert.equal(fleet.machineOf({ id: 't' }), 'solo');
});

test('a thread of a linked machine shows its folder under that machine\'s roots', () => {
  fleet.setMachines([{ id: 'a', name: 'A', state: 'online' }, { id: 'b', name: 'B', state: 'online', policy: { roots: ['/srv/a'] } }], 'a');
  assert.deepEqual(fleet.rootsFor({ machine: 'b' }, ['/home']), ['/srv/a']);
  assert.deepEqual(fleet.rootsFor({}, ['/home']), ['/home']);
});

test('the store labels threads with their machine and drops a removed machine\'s threads', () => {
  const store = new ThreadStore();
  store.applyList([{ threadId: 'h', cwd: '/w', updatedAt: 1, machine: { id: 'a', name: 'A' } },
    { threadId: 'r', cwd: '/v', updatedAt: 2, machine: { id: 'b', name: 'B' } }]);
  store.applyMessage({ kind: 'event', threadId: 'n', type: 'thread/started', data: {}, machine: { id: 'b', name: 'B' } });
  store.applyMessage({ kind: 'event', threadId: 'h2', type: 'thread/started', data: {} });
  assert.equal(store.get('r').machine, 'b');
  assert.equal(store.get('n').machine, 'b');
  assert.equal(store.get('h2').machine, undefined); // the home bridge's frames name no machine
  store.dropMachine('b');
  assert.deepEqual(store.list().map((t) => t.id).sort(), ['h', 'h2']);
});

test('the roots of a linked machine come from its policy in the fleet list, absolute paths only', () => {
  fleet.setMachines([
    { id: 'a', name: 'A', state: 'online' },
    { id: 'x', name: 'X', state: 'online', policy: { roots: ['/srv/x', 'relative', 7] } },
    { id: 'y', name: 'Y', state: 'offline' },
  ], 'a');
  assert.deepEqual(fleet.rootsOf('x'), ['/srv/x']);
  assert.equal(fleet.rootsOf('y'), null, 'never reached: not known');
  fleet.applyMachineChanged({ machine: { id: 'y', name: 'Y', state: 'online', policy: { roots: ['/srv/y'] } } });
  assert.deepEqual(fleet.rootsOf('y'), ['/srv/y']);
});

test('Needs you: unanswered approvals and questions of every thread, newest first', async () => {
  const { pendingItems } = await import('../../Sources/BridgeWeb/Assets/inbox.js');
  const store = new ThreadStore();
  store.applyMessage({ kind: 'approvalRequest', seq: 5, threadId: 'h', approvalId: 'ap1', type: 'command', command: 'ls' });
  store.applyMessage({ kind: 'inputRequest', seq: 9, threadId: 'r', requestId: 'q1', questions: [], machine: { id: 'b', name: 'B' } });
  store.applyMessage({ kind: 'approvalRequest', seq: 7, threadId: 'h', approvalId: 'ap2', type: 'command', command: 'pwd' });
  assert.deepEqual(pendingItems(store).map((x) => x.key), ['q:q1', 'a:ap2', 'a:ap1']);
  assert.equal(pendingItems(store)[0].thread.machine, 'b');
  store.applyMessage({ kind: 'approvalResolved', threadId: 'h', approvalId: 'ap2', decision: 'accept' });
  store.applyMessage({ kind: 'inputResolved', threadId: 'r', requestId: 'q1', action: 'accept' });
  assert.deepEqual(pendingItems(store).map((x) => x.key), ['a:ap1']);
  store.get('h').archived = true;
  assert.deepEqual(pendingItems(store), []);
});

test('a machine whose link the home bridge closed carries the reason, cleaned and short', () => {
  fleet.setMachines([{ id: 'a', name: 'Desk', state: 'online' }, { id: 'b', name: 'Build', state: 'offline', error: { code: 'bad_frame', message: `x${'y'.repeat(500)}\u0007` } }], 'a');
  const b = fleet.machine('b');
  assert.equal(b.problem.code, 'bad_frame');
  assert.equal(b.problem.message.length, 200);
  assert.match(fleet.problemText(b.name, b.problem), /^This bridge closed the link to Build: it sent something this bridge does not accept/);
  fleet.applyMachineChanged({ machine: { id: 'b', name: 'Build', state: 'online' } });
  assert.equal(fleet.machine('b').problem, null, 'gone once it works again');
});
