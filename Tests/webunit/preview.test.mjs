// The preview's address, built from the ticket alone on the bridge's preview port and the page's host (preview.js;
// issue 44 item 4: a linked bridge's answer chose the tab's port, path and fragment, and replaced the phone's
// credential with `#pair=`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previewAddress } from '../../Sources/BridgeWeb/Assets/preview.js';

const TICKET = 'AAAAAAAAAAAAAAAA.abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFG';

test('the preview address is the ticket on the preview port of the host this page reached', () => {
  assert.equal(previewAddress(TICKET, 9100, { origin: 'https://ana-desk.tailnet.ts.net:9099' }),
    `https://ana-desk.tailnet.ts.net:9100/.codex-bridge/open?ticket=${TICKET}`);
  assert.equal(previewAddress('x.y', 9100, { origin: 'http://192.168.1.5:9099' }), 'http://192.168.1.5:9100/.codex-bridge/open?ticket=x.y');
  assert.equal(previewAddress('x.y', 9100, { origin: 'http://[fd7a:115c::5]:9099' }), 'http://[fd7a:115c::5]:9100/.codex-bridge/open?ticket=x.y');
});

test('nothing but a ticket of its shape reaches the address, and only on a port the bridge named', () => {
  const here = { origin: 'http://192.168.1.5:9099' };
  for (const ticket of [`x#pair=v1&code=EVIL`, 'x.y#pair=v1', 'x.y&next=/', 'x.y/../../', 'http://evil/', 'x', '.y', 'x.', 'x.y.z', '',
    'x y.z', `${'a'.repeat(65)}.b`, null, undefined, 42, { toString: () => 'x.y' }]) {
    assert.throws(() => previewAddress(ticket, 9100, here), /ticket/, String(ticket));
  }
  for (const port of [null, undefined, 0, 65536, 9100.5, '9100', -1]) {
    assert.throws(() => previewAddress('x.y', port, here), /serves no previews/, String(port));
  }
});

test('a command output names local ports as URLs, each once', async () => {
  const { localPorts } = await import('../../Sources/BridgeWeb/Assets/preview.js');
  const output = '  VITE v5 ready\n  ➜  Local:   http://localhost:5173/\n  ➜  Network: http://192.168.1.5:5173/\n'
    + 'Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...\nagain http://127.0.0.1:5173 and http://[::1]:3000.\n'
    + 'not these: http://localhost:70000/ http://localhost:51730x http://example.com:80/ localhost:4000';
  assert.deepEqual(localPorts(output), [5173, 8000, 3000]);
  assert.deepEqual(localPorts(''), []);
});
