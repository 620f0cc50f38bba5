// The context meter's words (context-meter.js), from Codex's tokenUsage.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeContext, tokens } from '../../Sources/BridgeWeb/Assets/context-meter.js';

test('token counts are compact', () => {
  assert.deepEqual([tokens(950), tokens(12345), tokens(1234), tokens(2_500_000), tokens(-1)], ['950', '12k', '1.2k', '2.5M', '0']);
});

test('how much context is left, in one number; the rest for a tooltip', () => {
  const usage = { total: { totalTokens: 48_100 }, last: { totalTokens: 16_000 }, modelContextWindow: 128_000 };
  assert.deepEqual(describeContext(usage), { left: 87, text: '87% context left', detail: '16k of 128k tokens in context · 48k tokens used in this thread' });
  const noWindow = describeContext({ total: { totalTokens: 10 }, last: { totalTokens: 5 } });
  assert.equal(noWindow.left, null);
  assert.equal(noWindow.text, '5 tokens in context');
  assert.equal(describeContext(null), null);
  assert.equal(describeContext({ last: {} }), null);
});
