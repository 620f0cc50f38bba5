// Codex's collaboration-mode presets (collaboration-modes.js): the Plan toggle takes the plan preset's name and
// says what it applies, and without a plan preset there is nothing to offer; the account's tokens line (accountUsage).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planPreset } from '../../Sources/BridgeWeb/Assets/collaboration-modes.js';

test('the plan preset names the toggle and says what it applies', () => {
  const modes = [{ mode: 'plan', name: 'Plan', effort: 'medium' }, { mode: 'default', name: 'Default' }];
  assert.deepEqual(planPreset(modes), {
    label: 'Plan', title: 'Plan: Codex asks and proposes a plan instead of editing (medium reasoning effort)',
  });
  assert.equal(planPreset([{ mode: 'plan', name: 'Blueprint', model: 'm1' }]).title,
    'Blueprint: Codex asks and proposes a plan instead of editing (model m1)');
});

test('no plan preset, or a nameless one, offers nothing', () => {
  assert.equal(planPreset([{ mode: 'default', name: 'Default' }]), null);
  assert.equal(planPreset([{ mode: 'plan', name: '  ' }]), null);
  assert.equal(planPreset([]), null);
  assert.equal(planPreset(undefined), null);
});

test('the account\'s tokens in one line: in all, and today when the backend has today', async () => {
  const { tokenLine, localDate } = await import('../../Sources/BridgeWeb/Assets/thread-extras.js');
  const usage = { summary: { lifetimeTokens: 1234567 }, dailyUsageBuckets: [{ startDate: '2026-11-27', tokens: 5000 }, { startDate: '2026-11-28', tokens: 7000 }] };
  assert.equal(tokenLine(usage, '2026-11-28'), 'Tokens: 1.2M in all · 7.0k today');
  assert.equal(tokenLine(usage, '2026-11-29'), 'Tokens: 1.2M in all');
  assert.equal(tokenLine({ summary: {} }, '2026-11-28'), null);
  assert.equal(tokenLine(null, '2026-11-28'), null);
  assert.equal(localDate(new Date(2026, 0, 5)), '2026-01-05');
});
