// The preview link on the host this page reached the bridge by (preview.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previewAddress } from '../../Sources/BridgeWeb/Assets/preview.js';

test('the preview link keeps its port, path and ticket and takes the page host', () => {
  const url = 'https://ana-desk.local:9100/.codex-bridge/open?ticket=abc.def';
  assert.equal(previewAddress(url, { hostname: 'ana-desk.tailnet.ts.net' }), 'https://ana-desk.tailnet.ts.net:9100/.codex-bridge/open?ticket=abc.def');
  assert.equal(previewAddress('http://127.0.0.1:9100/.codex-bridge/open?ticket=x.y', { hostname: '192.168.1.5' }), 'http://192.168.1.5:9100/.codex-bridge/open?ticket=x.y');
});

test('a command output names local ports as URLs, each once', async () => {
  const { localPorts } = await import('../../Sources/BridgeWeb/Assets/preview.js');
  const output = '  VITE v5 ready\n  ➜  Local:   http://localhost:5173/\n  ➜  Network: http://192.168.1.5:5173/\n'
    + 'Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...\nagain http://127.0.0.1:5173 and http://[::1]:3000.\n'
    + 'not these: http://localhost:70000/ http://localhost:51730x http://example.com:80/ localhost:4000';
  assert.deepEqual(localPorts(output), [5173, 8000, 3000]);
  assert.deepEqual(localPorts(''), []);
});
