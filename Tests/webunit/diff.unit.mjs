// The diff parser (diff-view.js parseDiff): git's and plain unified diffs into files with counts and status.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDiff } from '../../Sources/BridgeWeb/Assets/diff-view.js';

test('a git diff of two files: paths, counts, hunks', () => {
  const files = parseDiff([
    'diff --git a/a.txt b/a.txt', 'index 1..2 100644', '--- a/a.txt', '+++ b/a.txt', '@@ -1,2 +1,2 @@', ' same', '-old', '+new',
    'diff --git a/b.txt b/b.txt', 'new file mode 100644', '--- /dev/null', '+++ b/b.txt', '@@ -0,0 +1 @@', '+hello', '',
  ].join('\n'));
  assert.equal(files.length, 2);
  assert.deepEqual(files.map((f) => [f.path, f.added, f.removed, f.status]), [['a.txt', 1, 1, ''], ['b.txt', 1, 0, 'added']]);
  assert.deepEqual(files[0].lines.map((l) => l.type), ['hunk', 'ctx', 'del', 'add']);
});

test('a plain ---/+++ diff, a deletion, a rename and a binary file', () => {
  const plain = parseDiff('--- x.c\t2024-01-01\n+++ x.c\n@@ -1 +0,0 @@\n-gone\n\\ No newline at end of file\n');
  assert.equal(plain.length, 1);
  assert.equal(plain[0].path, 'x.c');
  assert.deepEqual(plain[0].lines.map((l) => l.type), ['hunk', 'del', 'meta']);
  const deleted = parseDiff('diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n');
  assert.equal(deleted[0].status, 'deleted');
  assert.equal(deleted[0].path, 'd');
  const renamed = parseDiff('diff --git a/old b/new\nsimilarity index 100%\nrename from old\nrename to new\n');
  assert.deepEqual([renamed[0].path, renamed[0].status], ['new', 'renamed']);
  const binary = parseDiff('diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n');
  assert.equal(binary[0].binary, true);
});

test('hostile input is data: CRLF, no trailing newline, nothing at all', () => {
  assert.deepEqual(parseDiff(''), []);
  assert.deepEqual(parseDiff(null), []);
  const crlf = parseDiff('--- a/<b>.txt\r\n+++ b/<b>.txt\r\n@@ -1 +1 @@\r\n-<script>\r\n+x');
  assert.equal(crlf[0].path, '<b>.txt');
  assert.deepEqual(crlf[0].lines.map((l) => l.text), ['@@ -1 +1 @@', '-<script>', '+x']);
});
