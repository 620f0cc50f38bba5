// The Devices screen's words (device-words.js): every request kind the bridge knows has words, scopes are said as
// what they let a device do, a platform as a person says it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ACTIONS, SCOPE_MAY, actionWords, mayText, platformWords } from '../../Sources/BridgeWeb/Assets/device-words.js';
import { ALL_SCOPES } from '../../Sources/BridgeWeb/Assets/scopes.js';

test('every request kind of the bridge is said in words on the Devices screen', () => {
  const swift = readFileSync(new URL('../../Sources/BridgeProtocol/Requests/RequestKind.swift', import.meta.url), 'utf8');
  const kinds = [...swift.matchAll(/^\s*case ([a-zA-Z, ]+)$/gm)].flatMap((m) => m[1].split(',').map((k) => k.trim())).filter(Boolean);
  assert.ok(kinds.length > 50, `${kinds.length} kinds read`);
  assert.deepEqual(kinds.filter((k) => !ACTIONS[k]), []);
  assert.equal(actionWords({ kind: 'runCommand', outcome: 'ok' }), 'Ran a command');
  assert.equal(actionWords({ kind: 'gitPush', outcome: 'forbidden' }), 'Pushed (refused: not allowed for this device)');
  assert.equal(actionWords({ kind: 'someNewKind', outcome: 'ok' }), 'Some new kind'); // a newer bridge's: words all the same
});

test('scopes as what a device may do; platforms as a person says them', () => {
  assert.deepEqual(ALL_SCOPES.filter((s) => !SCOPE_MAY[s]), []);
  assert.equal(mayText(['observe', 'approve']), 'see threads, their changes and files, and answer approvals and questions');
  assert.equal(mayText(['publish']), 'push and open pull requests');
  assert.equal(mayText([]), 'nothing');
  assert.deepEqual(['web', 'bridge', 'watchos', undefined].map(platformWords), ['Web app', 'Linked bridge', 'watchos', '']);
});
