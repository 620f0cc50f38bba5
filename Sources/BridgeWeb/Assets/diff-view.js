// Unified diffs, per file: added and removed lines coloured, long lines scroll, large files collapsed.
import { h } from './dom.js';

const COLLAPSE_LINES = 400;

/** Splits a unified diff (git's or plain ---/+++) into files. */
export function parseDiff(text) {
  const files = [];
  let file = null;
  const lines = String(text || '').replace(/\r\n/g, '\n').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const start = (path) => {
    file = { path, oldPath: null, newPath: null, lines: [], added: 0, removed: 0, binary: false, status: '' };
    files.push(file);
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('diff --git ')) {
      const m = /^diff --git a\/(.*?) b\/(.*)$/.exec(line);
      start(m ? m[2] : line.slice(11));
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1] && lines[i + 1].startsWith('+++ ') && (!file || file.lines.length)) {
      const newPath = stripPrefix(lines[i + 1].slice(4));
      const oldPath = stripPrefix(line.slice(4));
      if (!file || file.lines.some((l) => l.type !== 'meta')) start(newPath !== '/dev/null' ? newPath : oldPath);
    }
    if (!file) start('');
    if (line.startsWith('--- ') && lines[i + 1] && lines[i + 1].startsWith('+++ ')) {
      file.oldPath = stripPrefix(line.slice(4));
      file.newPath = stripPrefix(lines[i + 1].slice(4));
      if (file.oldPath === '/dev/null') file.status = 'added';
      else if (file.newPath === '/dev/null') file.status = 'deleted';
      if (!file.path || file.path === '') file.path = file.newPath !== '/dev/null' ? file.newPath : file.oldPath;
      i++;
      continue;
    }
    if (line.startsWith('@@')) { file.lines.push({ type: 'hunk', text: line }); continue; }
    const inHunk = file.lines.some((l) => l.type === 'hunk');
    if (!inHunk) {
      if (/^Binary files /.test(line)) file.binary = true;
      if (/^new file mode/.test(line)) file.status = 'added';
      if (/^deleted file mode/.test(line)) file.status = 'deleted';
      if (/^rename to /.test(line)) { file.status = 'renamed'; file.path = line.slice(10); }
      continue;
    }
    if (line.startsWith('+')) { file.added++; file.lines.push({ type: 'add', text: line }); }
    else if (line.startsWith('-')) { file.removed++; file.lines.push({ type: 'del', text: line }); }
    else if (line.startsWith('\\')) file.lines.push({ type: 'meta', text: line });
    else file.lines.push({ type: 'ctx', text: line });
  }
  return files.filter((f) => f.path || f.lines.length);
}

function stripPrefix(p) {
  const path = p.replace(/\t.*$/, '').trim();
  return path.startsWith('a/') || path.startsWith('b/') ? path.slice(2) : path;
}

function fillLines(pre, file) {
  const frag = document.createDocumentFragment();
  for (const line of file.lines) {
    const span = document.createElement('span');
    span.className = `dl ${line.type}`;
    span.textContent = `${line.text}\n`;
    frag.append(span);
  }
  pre.append(frag);
}

let serial = 0;

/**
 * One collapsible section per file: a toggle button (the path, its status, the counts; aria-expanded) and,
 * beside it rather than inside it, a "View" button when `onView(path)` is given and the file still exists.
 */
export function renderDiff(text, onView) {
  const files = parseDiff(text);
  const root = h('div', { class: 'diff' });
  if (!files.length) {
    root.append(h('p', { class: 'empty', text: 'No changes.' }));
    return root;
  }
  const total = files.reduce((n, f) => n + f.lines.length, 0);
  for (const file of files) {
    const big = file.lines.length > COLLAPSE_LINES || (files.length > 1 && total > COLLAPSE_LINES * 3);
    const id = `diff-file-${++serial}`;
    // A file without lines (an empty new file, a rename or mode change alone) says so in words: an empty
    // scrollable <pre> is nothing to read, and named while empty it is what axe calls aria-prohibited-attr.
    // The lines' block is a named group, so a screen reader says whose lines it reads.
    const pre = !file.binary && !file.lines.length
      ? h('p', { class: 'diff-note muted', id, text: withoutLines(file) })
      : h('pre', { class: 'diff-lines', tabIndex: 0, id, hidden: big, attrs: { role: 'group', 'aria-label': `Changes of ${file.path || 'the file'}` } });
    if (file.binary) pre.append(h('span', { class: 'dl meta', text: 'Binary file' }));
    if (!big && file.lines.length) fillLines(pre, file); // a collapsed big file is built when first opened
    const toggle = h('button', { type: 'button', class: 'diff-toggle', attrs: { 'aria-expanded': String(!big), 'aria-controls': id } },
      h('span', { class: 'diff-path', text: file.path || '(unnamed)' }),
      file.status ? h('span', { class: 'chip', text: file.status }) : null,
      h('span', { class: 'diff-counts' },
        h('span', { class: 'plus', text: `+${file.added}` }), ' ', h('span', { class: 'minus', text: `−${file.removed}` })));
    const section = h('section', { class: ['diff-file', !big && 'open'] });
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      section.classList.toggle('open', open);
      pre.hidden = !open;
      if (open && !pre.firstChild) fillLines(pre, file);
    });
    const view = onView && file.path && file.status !== 'deleted'
      ? h('button', { type: 'button', class: 'text-button diff-view', text: 'View', attrs: { 'aria-label': `View ${file.path}` }, on: { click: () => onView(file.path) } })
      : null;
    section.append(h('div', { class: 'diff-file-head' }, toggle, view), pre);
    root.append(section);
  }
  return root;
}

/** What a file whose diff has no lines changed, in words. */
function withoutLines(file) {
  if (file.status === 'added') return 'A new empty file.';
  if (file.status === 'deleted') return 'An empty file, deleted.';
  if (file.status === 'renamed') return 'Renamed; its lines are unchanged.';
  return 'Its lines are unchanged (its mode or name changed).';
}

function relative(path, base) {
  const b = String(base || '').replace(/\/+$/, '');
  return b && path.startsWith(`${b}/`) ? path.slice(b.length + 1) : path;
}

/** A file change of a fileChange item ({path, kind: {type}, diff}) as unified lines. */
function changeLines(change) {
  const kind = (change.kind && (change.kind.type || change.kind)) || 'update';
  const text = String(change.diff || '').replace(/\n$/, '');
  if (!text) return [];
  const lines = text.split('\n');
  if (kind === 'add') return lines.map((l) => ({ type: 'add', text: `+${l}` }));
  if (kind === 'delete') return lines.map((l) => ({ type: 'del', text: `-${l}` }));
  return lines.map((l) => ({
    type: l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('\\') ? 'meta' : 'ctx',
    text: l,
  }));
}

/** The changes of a fileChange item or approval: one collapsible entry per file, paths relative to `base`. */
export function renderChanges(changes, base, { openSmall = false } = {}) {
  const list = h('div', { class: 'changes' });
  const all = (changes || []).filter((c) => c && typeof c.path === 'string');
  const total = all.reduce((n, c) => n + changeLines(c).length, 0);
  for (const change of all) {
    const kind = (change.kind && (change.kind.type || change.kind)) || 'update';
    const lines = changeLines(change);
    const file = { lines, added: lines.filter((l) => l.type === 'add').length, removed: lines.filter((l) => l.type === 'del').length };
    const details = h('details', { class: 'change', open: openSmall && total <= 60 });
    const moved = change.kind && change.kind.move_path ? ` → ${relative(change.kind.move_path, base)}` : '';
    details.append(h('summary', null,
      h('span', { class: `chip kind-${kind}`, text: kind }),
      h('code', { class: 'change-path', text: relative(change.path, base) + moved }),
      h('span', { class: 'diff-counts' }, h('span', { class: 'plus', text: `+${file.added}` }), ' ', h('span', { class: 'minus', text: `−${file.removed}` }))));
    const pre = h('pre', { class: 'diff-lines', tabIndex: 0 });
    if (details.open) fillLines(pre, file);
    else details.addEventListener('toggle', () => { if (details.open && !pre.firstChild) fillLines(pre, file); });
    details.append(pre);
    list.append(details);
  }
  return list;
}
