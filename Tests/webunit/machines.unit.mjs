// The Machines screen's rules (machines.js): issue 33, the admin's linked workstations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkedMachine, nearbyMachine, nearbyAddress, pairingLink, typedName, nearbyFields, STATES } from '../../Sources/BridgeWeb/Assets/machines.js';

test('a linked machine is cleaned: text from another machine keeps no control or bidi character', () => {
  assert.deepEqual(linkedMachine({ id: 'b', name: 'Build\u202E box\u0007', address: '10.0.0.2:9099', state: 'revoked', addedAt: 5 }),
    { id: 'b', name: 'Build box', address: '10.0.0.2:9099', state: 'revoked', addedAt: 5, problem: null });
  assert.equal(linkedMachine({ id: 'b', name: '', state: 'weird' }).name, 'b', 'no name: its id');
  assert.equal(linkedMachine({ id: 'b', state: 'weird' }).state, 'offline', 'an unknown state is not shown as online');
  assert.equal(linkedMachine({ id: 'b', address: 'x'.repeat(1000) }).address.length, 300);
  assert.equal(linkedMachine({ name: 'no id' }), null);
  for (const state of ['offline', 'pending', 'revoked']) assert.ok(STATES[state].note, `${state} says what it means`);
  assert.match(STATES.revoked.note, /link it again/);
});

test('a nearby bridge needs a host and a port; its name falls back to the host', () => {
  assert.deepEqual(nearbyMachine({ name: '<b>x</b>', host: 'fe80::1', port: 9099, tls: true, fingerprint: 'ab' }),
    { id: null, name: '<b>x</b>', host: 'fe80::1', port: 9099, tls: true, fingerprint: 'ab' });
  assert.equal(nearbyMachine({ host: 'box.local', port: 9099 }).name, 'box.local');
  assert.equal(nearbyMachine({ name: 'x', port: 9099 }), null);
  assert.equal(nearbyMachine({ name: 'x', host: 'h', port: 70000 }), null);
  assert.equal(nearbyAddress(nearbyMachine({ host: 'fe80::1', port: 1 })), '[fe80::1]:1');
  assert.equal(nearbyAddress(nearbyMachine({ host: 'box.local', port: 2 })), 'box.local:2');
});

test('a pasted pairing link: the link itself, or the url of the whole `pair --json` output', () => {
  assert.equal(pairingLink('  codex-bridge://pair?v=1&code=X \n'), 'codex-bridge://pair?v=1&code=X');
  assert.equal(pairingLink('{"code": "X", "url": "codex-bridge://pair?v=1", "webUrl": "http://h/#pair=v1"}'), 'codex-bridge://pair?v=1');
  assert.equal(pairingLink('{"webUrl": "http://h/#pair=v1"}'), 'http://h/#pair=v1');
  assert.equal(pairingLink('{not json'), '{not json', 'the bridge says what is wrong with it');
  assert.equal(pairingLink(''), '');
});

test('a typed name: trimmed, at most 64 characters, no control character', () => {
  assert.deepEqual(typedName('  Build box '), { name: 'Build box', error: '' });
  assert.equal(typedName('').name, '');
  assert.ok(typedName('x'.repeat(65)).error);
  assert.ok(typedName('a\tb').error);
  assert.equal(typedName('é'.repeat(64)).error, '');
});

test('addMachine for a nearby bridge: its host and port, its fingerprint pinned when it has one', () => {
  const n = nearbyMachine({ name: 'B', host: '192.168.1.9', port: 9099, tls: true, fingerprint: 'sha256:ab' });
  assert.deepEqual(nearbyFields(n, '7K3QZ9M2XA', 'Build'), { host: '192.168.1.9', port: 9099, code: '7K3QZ9M2XA', fingerprint: 'sha256:ab', name: 'Build' });
  assert.deepEqual(nearbyFields(nearbyMachine({ host: 'h', port: 1 }), 'C', ''), { host: 'h', port: 1, code: 'C' });
});

test('why the home bridge closed a link is shown cleaned, with its code', () => {
  const m = linkedMachine({ id: 'b', name: 'Build', state: 'offline', error: { code: 'over_budget', message: 'more than 256 approvals\u202E\u001b]52;c;x\u0007 open' } });
  assert.deepEqual(m.problem, { code: 'over_budget', message: 'more than 256 approvals]52;c;x open' });
  assert.equal(linkedMachine({ id: 'b', error: { code: 'made_up', message: 5 } }).problem.code, 'failed');
  assert.equal(linkedMachine({ id: 'b', error: 'x' }).problem, null);
});
