// The preview link on the host this page reached the bridge by (preview.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previewAddress } from '../../Sources/BridgeWeb/Assets/preview.js';

test('the preview link keeps its port, path and ticket and takes the page host', () => {
  const url = 'https://ana-desk.local:9100/.codex-bridge/open?ticket=abc.def';
  assert.equal(previewAddress(url, { hostname: 'ana-desk.tailnet.ts.net' }), 'https://ana-desk.tailnet.ts.net:9100/.codex-bridge/open?ticket=abc.def');
  assert.equal(previewAddress('http://127.0.0.1:9100/.codex-bridge/open?ticket=x.y', { hostname: '192.168.1.5' }), 'http://192.168.1.5:9100/.codex-bridge/open?ticket=x.y');
});
