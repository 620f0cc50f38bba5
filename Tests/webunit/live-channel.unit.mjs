// The web app's side of the live channel (live-channel.js, issue 45 item 3): the frame format of BRIDGE.md,
// data split by maxFrame, a stream the bridge paused waits for its resume, a full socket waits for its low mark,
// a slow consumer pauses the bridge and resumes it, and an end (either side, or the connection) ends the stream.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FRAME, LiveChannel, decodeFrame, encodeFrame } from '../../Sources/BridgeWeb/Assets/live-channel.js';

const limits = { maxFrame: 16, highWater: 40, lowWater: 20 };
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function fixture({ buffered = () => 0, wait } = {}) {
  const sent = [];
  const channel = new LiveChannel({
    send: (bytes) => { sent.push(decodeFrame(bytes)); return true; },
    bufferedAmount: buffered, limits, wait,
  });
  return { sent, channel };
}

test('a frame is its 6-byte big-endian header and its payload', () => {
  assert.deepEqual([...encodeFrame(FRAME.data, 0x01020304, new Uint8Array([9, 8]))], [1, 0, 1, 2, 3, 4, 9, 8]);
  assert.deepEqual([...encodeFrame(FRAME.pause, 7)], [1, 1, 0, 0, 0, 7]);
  const frame = decodeFrame(new Uint8Array([1, 3, 0, 0, 1, 0]).buffer);
  assert.equal(frame.type, FRAME.end);
  assert.equal(frame.streamId, 256);
  assert.equal(decodeFrame(new Uint8Array([1, 0, 0])), null); // short
  assert.equal(decodeFrame(new Uint8Array([2, 0, 0, 0, 0, 1, 5])), null); // another version
  assert.equal(decodeFrame(new Uint8Array([1, 9, 0, 0, 0, 1])), null); // a later type: ignored
});

test('data is split into frames of at most maxFrame, in order', async () => {
  const { sent, channel } = fixture();
  const stream = channel.stream(3);
  assert.equal(await stream.send(Uint8Array.from({ length: 25 }, (_, i) => i)), true);
  assert.deepEqual(sent.map((f) => [f.type, f.streamId, f.payload.byteLength]), [[0, 3, 10], [0, 3, 10], [0, 3, 5]]);
  assert.deepEqual(sent.flatMap((f) => [...f.payload]), [...Array(25).keys()]);
});

test('a stream the bridge paused waits for its resume', async () => {
  const { sent, channel } = fixture();
  const stream = channel.stream(1);
  channel.receive(encodeFrame(FRAME.pause, 1));
  let done = false;
  const sending = stream.send(new Uint8Array([1])).then(() => { done = true; });
  await settle();
  assert.equal(sent.length, 0);
  assert.equal(done, false);
  channel.receive(encodeFrame(FRAME.resume, 1));
  await sending;
  assert.equal(sent.length, 1);
});

test('a socket holding more than highWater waits until it is at lowWater', async () => {
  let buffered = 50;
  const waits = [];
  const { sent, channel } = fixture({
    buffered: () => buffered,
    wait: async (ms) => { waits.push(ms); buffered -= 10; },
  });
  await channel.stream(1).send(new Uint8Array([1]));
  assert.deepEqual(waits, [10, 10, 10]); // 50 -> 40 -> 30 -> 20
  assert.equal(sent.length, 1);
});

test('a consumer that falls behind pauses the bridge above highWater and resumes it at lowWater', async () => {
  const { sent, channel } = fixture();
  const pending = [];
  channel.stream(2, { onData: () => new Promise((resolve) => pending.push(resolve)) });
  for (let i = 0; i < 5; i++) channel.receive(encodeFrame(FRAME.data, 2, new Uint8Array(10)));
  assert.deepEqual(sent.map((f) => f.type), [FRAME.pause]); // 50 unread > 40
  for (let i = 0; i < 3; i++) pending.shift()();
  await settle();
  assert.deepEqual(sent.map((f) => f.type), [FRAME.pause, FRAME.resume]); // 20 unread
});

test('an end from the bridge, from the page or the connection ends the stream once', async () => {
  const { sent, channel } = fixture();
  const ends = [];
  const a = channel.stream(1, { onEnd: () => ends.push(1) });
  channel.stream(2, { onEnd: () => ends.push(2) });
  const c = channel.stream(3, { onEnd: () => ends.push(3) });
  channel.receive(encodeFrame(FRAME.pause, 1));
  const waiting = a.send(new Uint8Array([1]));
  channel.receive(encodeFrame(FRAME.end, 1));
  assert.equal(await waiting, false);
  c.end();
  assert.deepEqual(sent.map((f) => [f.type, f.streamId]), [[FRAME.end, 3]]);
  channel.close();
  channel.close();
  assert.deepEqual(ends, [1, 3, 2]);
  assert.equal(await c.send(new Uint8Array([1])), false);
});
