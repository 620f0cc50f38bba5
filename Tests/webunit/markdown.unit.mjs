// The Markdown renderer (markdown.js) under a tiny DOM: agent output (hostile) only ever becomes text nodes and
// elements the renderer made; links only for http(s) and mailto.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installTinyDOM, serialize } from './tiny-dom.mjs';

installTinyDOM();
const { renderMarkdown, safeHref } = await import('../../Sources/BridgeWeb/Assets/markdown.js');

test('headings, emphasis, code and lists', () => {
  const html = serialize(renderMarkdown('# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n'));
  assert.match(html, /<h2>Title<\/h2>/); // one level down: the screen has its own h1
  assert.match(html, /<strong>bold<\/strong>/);
  assert.match(html, /<code>code<\/code>/);
  assert.match(html, /<ul><li>one<\/li><li>two<\/li><\/ul>/);
});

test('markup in the input stays text', () => {
  const html = serialize(renderMarkdown('<img src=x onerror=alert(1)> **<script>x</script>**'));
  assert.ok(!html.includes('<img') && !html.includes('<script'), html);
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), html);
});

test('only http(s) and mailto links are followed', () => {
  assert.equal(safeHref('https://example.org/a b'), 'https://example.org/a%20b');
  assert.equal(safeHref('mailto:a@b.c'), 'mailto:a@b.c');
  for (const bad of ['javascript:alert(1)', ' JAVASCRIPT:alert(1)', 'data:text/html,x', '/relative', '', null]) {
    assert.equal(safeHref(bad), null, String(bad));
  }
  const html = serialize(renderMarkdown('[ok](https://example.org) [bad](javascript:alert(1))'));
  assert.match(html, /<a href="https:\/\/example.org\/">ok<\/a>/);
  assert.ok(!html.includes('javascript:" '), html);
  assert.ok(!/<a href="javascript/.test(html), html);
});

test('a fenced block keeps its text verbatim', () => {
  const html = serialize(renderMarkdown('```sh\nrm -rf <dir> && echo *x*\n```\n'));
  assert.match(html, /<pre><code>rm -rf &lt;dir&gt; &amp;&amp; echo \*x\*<\/code><\/pre>/);
});
