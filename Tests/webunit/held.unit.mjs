// Messages for a linked machine that cannot be reached (held.js, issue 46 item 1): held in order while it is away,
// sent one after another with their first ids when it is back, held again when it goes away in between, refused
// when it leaves the fleet; and the probe that brings a lost connection back (probe.js): its plan, and that only an
// answer after a silence counts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeldMessages } from '../../Sources/BridgeWeb/Assets/held.js';
import { Probe, probeInterval } from '../../Sources/BridgeWeb/Assets/probe.js';

/** A fake session: `state` says which machines are online; each request is recorded and answered by `answer`. */
function fixture(answer = () => ({ kind: 'accepted' })) {
  const state = { m1: false };
  const sent = [];
  let n = 0;
  const held = new HeldMessages({
    request: async (kind, fields, { id }) => {
      sent.push([kind, fields.text, id]);
      const out = answer(fields, sent.length);
      if (out instanceof Error) throw out;
      return out;
    },
    newId: () => `id${++n}`,
    online: (id) => state[id] === true,
  });
  return { state, sent, held };
}

const unreachable = () => Object.assign(new Error('m1 is unreachable'), { code: 'machine_unavailable' });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test('messages to an unreachable machine wait, and go in order with their ids when it is back', async () => {
  const { state, sent, held } = fixture();
  let shown = 0;
  const one = held.send('m1', 'sendMessage', { text: 'one' }, { onHeld: () => shown++ });
  const two = held.send('m1', 'sendMessage', { text: 'two' }, { onHeld: () => shown++ });
  await settle();
  assert.deepEqual(sent, [], 'nothing goes while it is away');
  assert.equal(shown, 2);
  assert.equal(held.waiting('m1'), 2);
  state.m1 = true;
  await held.flush('m1');
  assert.deepEqual(sent, [['sendMessage', 'one', 'id1'], ['sendMessage', 'two', 'id2']]);
  assert.deepEqual(await one, { kind: 'accepted' });
  await two;
  assert.equal(held.waiting('m1'), 0);
});

test('a message refused as unreachable is held, and the ones after it wait behind it', async () => {
  let away = true;
  const { state, sent, held } = fixture(() => (away ? unreachable() : { kind: 'accepted' }));
  state.m1 = true; // the phone has not heard yet that it went away
  const one = held.send('m1', 'sendMessage', { text: 'one' });
  await settle();
  state.m1 = false;
  const two = held.send('m1', 'sendMessage', { text: 'two' });
  assert.equal(held.waiting('m1'), 2);
  // Back, then away again after the first went: the second waits on.
  away = false;
  state.m1 = true;
  const flushing = held.flush('m1');
  state.m1 = false;
  await flushing;
  await one;
  assert.equal(held.waiting('m1'), 1);
  state.m1 = true;
  await held.flush('m1');
  await two;
  // Each attempt of a message carries its first id (the machine answers it once); the second went once, after it.
  assert.deepEqual([...new Set(sent.map(([, text, id]) => `${text}:${id}`))], ['one:id1', 'two:id2']);
  assert.deepEqual(sent.at(-1), ['sendMessage', 'two', 'id2']);
  assert.equal(sent.filter(([, text]) => text === 'two').length, 1);
});

test('another refusal is the message\'s answer; a machine that leaves refuses what waited', async () => {
  const { state, held } = fixture((fields) => (fields.text === 'bad' ? Object.assign(new Error('no'), { code: 'bad_request' }) : { kind: 'accepted' }));
  const bad = held.send('m1', 'sendMessage', { text: 'bad' });
  const good = held.send('m1', 'sendMessage', { text: 'good' });
  state.m1 = true;
  await held.flush('m1');
  await assert.rejects(bad, { code: 'bad_request' });
  await good;
  state.m1 = false;
  const lost = held.send('m1', 'sendMessage', { text: 'lost' });
  held.drop('m1', Object.assign(new Error('gone'), { code: 'not_found' }));
  await assert.rejects(lost, { code: 'not_found' });
  assert.equal(held.waiting('m1'), 0);
});

test('the probe looks every half second, then every second, then every five', () => {
  assert.equal(probeInterval(0), 500);
  assert.equal(probeInterval(119_000), 500);
  assert.equal(probeInterval(121_000), 1000);
  assert.equal(probeInterval(599_000), 1000);
  assert.equal(probeInterval(3_600_000), 5000);
});

test('the probe calls back when the workstation answers after a silence, not while it answers all along', async () => {
  const answers = [false, false, true, true, false, true];
  let backs = 0;
  const probe = new Probe('http://bridge.test/healthz', () => backs++, async (url) => {
    assert.match(url, /^http:\/\/bridge\.test\/healthz\?t=/);
    if (!answers.shift()) throw new TypeError('refused');
    return { ok: true };
  });
  probe.start();
  try {
    const seen = [];
    for (let i = 0; i < 6; i++) { await probe.look(); seen.push(backs); }
    assert.deepEqual(seen, [0, 0, 1, 1, 1, 2]);
  } finally {
    probe.stop();
  }
  assert.equal(probe.running, false);
});
