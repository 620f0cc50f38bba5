// Requests behind the hello (issue 36, P10's round trips): what a screen asked for before the socket opened goes
// out right behind the hello (the bridge answers it after its helloAck, in order), is not sent a second time at the
// ack, and is sent again at the ack when the hello was a pairing that waited for the workstation (which ignores
// what came behind it). A fake WebSocket stands in for the browser's; the bridge's side is tested in
// Tests/integration/test_handshake_pipelining.py.
import assert from 'node:assert/strict';
import { test } from 'node:test';

class FakeSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static opened = [];
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.readyState = FakeSocket.CONNECTING;
    FakeSocket.opened.push(this);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() { this.readyState = 3; }
  open() { this.readyState = FakeSocket.OPEN; this.onopen(); }
  receive(message) { this.onmessage({ data: JSON.stringify(message) }); }
}

// Only what connection.js touches; set only here (Node has none of these) and only for this file's connections.
globalThis.WebSocket ??= FakeSocket;
globalThis.location ??= { protocol: 'http:', host: 'bridge.test' };
globalThis.document ??= { visibilityState: 'visible', addEventListener() {}, removeEventListener() {} };
globalThis.addEventListener ??= () => {};
globalThis.removeEventListener ??= () => {};
const { Connection } = await import('../../Sources/BridgeWeb/Assets/connection.js');

const ack = { kind: 'helloAck', version: 1, ok: true, lastSeq: 0 };

function connection() {
  const c = new Connection({ helloFields: () => ({ token: 't' }), url: 'ws://bridge.test/' });
  c.start();
  return { c, ws: FakeSocket.opened.at(-1) };
}

test('a request made before the socket opened goes right behind the hello, and once', async () => {
  const { c, ws } = connection();
  try {
    const list = c.request('listThreads', { limit: 50 });
    assert.deepEqual(ws.sent, [], 'nothing before the socket is open');
    ws.open();
    assert.deepEqual(ws.sent.map((f) => f.kind), ['hello', 'listThreads']);
    ws.receive(ack);
    assert.deepEqual(ws.sent.map((f) => f.kind), ['hello', 'listThreads'], 'not sent again at the ack');
    ws.receive({ kind: 'threads', id: ws.sent[1].id, threads: [] });
    assert.deepEqual(await list, { kind: 'threads', id: ws.sent[1].id, threads: [] });
    // After the ack a request goes out at once.
    const read = c.request('readThread', { threadId: 'a' });
    assert.equal(ws.sent.at(-1).kind, 'readThread');
    ws.receive({ kind: 'thread', id: ws.sent.at(-1).id });
    await read;
  } finally {
    c.stop(); // its timer would keep the test process alive
  }
});

test('behind a pairing that waits for the workstation, a request is sent again at the ack', async () => {
  const { c, ws } = connection();
  try {
    const list = c.request('listThreads', { limit: 50 });
    ws.open();
    ws.receive({ kind: 'pairingPending', deviceId: 'd1', check: '1234', expiresAt: 0 });
    ws.receive({ ...ack, deviceId: 'd1', deviceToken: 'x' });
    assert.deepEqual(ws.sent.map((f) => f.kind), ['hello', 'listThreads', 'listThreads']);
    assert.equal(ws.sent[1].id, ws.sent[2].id, 'the same id: the bridge answers it once');
    ws.receive({ kind: 'threads', id: ws.sent[2].id, threads: [] });
    await list;
  } finally {
    c.stop(); // its timer would keep the test process alive
  }
});

test('a request whose answer never came is sent again on the next socket, behind its hello', async () => {
  const { c, ws } = connection();
  try {
    ws.open();
    ws.receive(ack);
    const list = c.request('listThreads', { limit: 50 });
    const id = ws.sent.at(-1).id;
    ws.onclose({ code: 1006 });
    c.open(); // the reconnect, now rather than after the backoff
    const next = FakeSocket.opened.at(-1);
    assert.notEqual(next, ws);
    next.open();
    assert.deepEqual(next.sent.map((f) => [f.kind, f.id]), [['hello', undefined], ['listThreads', id]]);
    next.receive(ack);
    assert.equal(next.sent.length, 2, 'not a third time at the ack');
    next.receive({ kind: 'threads', id, threads: [] });
    await list;
  } finally {
    c.stop(); // its timer would keep the test process alive
  }
});

test('Try now replaces an attempt that hangs, and leaves a fresh one or an open socket alone', () => {
  const { c, ws } = connection();
  try {
    c.tryNow();
    assert.equal(FakeSocket.opened.at(-1), ws, 'an attempt begun a moment ago is left to finish');
    c.attemptStarted = Date.now() - 5000; // a SYN lost while the link was down
    c.tryNow({ quiet: true });
    const next = FakeSocket.opened.at(-1);
    assert.notEqual(next, ws, 'a new attempt at once');
    assert.equal(ws.readyState, 3, 'the hung one is dropped');
    next.open();
    next.receive(ack);
    c.tryNow();
    assert.equal(FakeSocket.opened.at(-1), next, 'a working socket is kept');
  } finally {
    c.stop();
  }
});
