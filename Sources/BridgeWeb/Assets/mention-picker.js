// `@` in the composer: typing @ and part of a file name lists the thread's matching files (searchFiles, confined
// by the bridge to the thread's folder); tapping one replaces the @word with the file's path, which is how
// Codex's own composer mentions a file (the model reads the path in the text).
import { h } from './dom.js';

const WORD = /(^|\s)@([^\s@]{1,64})$/;

/** input: the textarea; search(query) → Promise<{files}>; onLayout(): the composer changed height. */
export function mentionPicker(input, search, onLayout) {
  const list = h('ul', { class: 'mention-list', hidden: true, attrs: { role: 'listbox', 'aria-label': 'Files' } });
  let timer = null;
  let asked = 0;

  function close() {
    list.hidden = true;
    list.replaceChildren();
    onLayout();
  }

  function current() {
    const upto = input.value.slice(0, input.selectionStart ?? input.value.length);
    const m = WORD.exec(upto);
    return m ? { query: m[2], start: upto.length - m[2].length - 1, end: upto.length } : null;
  }

  function choose(path, at) {
    const before = input.value.slice(0, at.start);
    const after = input.value.slice(at.end);
    input.value = `${before}${path} ${after}`;
    const caret = before.length + path.length + 1;
    input.setSelectionRange(caret, caret);
    input.dispatchEvent(new Event('input'));
    input.focus();
    close();
  }

  async function lookUp() {
    const at = current();
    if (!at) { close(); return; }
    const ticket = ++asked;
    let files = [];
    try { files = (await search(at.query)).files || []; } catch { files = []; }
    if (ticket !== asked) return; // a newer query is on its way
    if (!files.length) { close(); return; }
    list.replaceChildren(...files.map((f) => h('li', { attrs: { role: 'option' } },
      h('button', { type: 'button', class: 'mention', text: String(f.path), on: { click: () => { const now = current(); if (now) choose(String(f.path), now); } } }))));
    list.hidden = false;
    onLayout();
  }

  input.addEventListener('input', () => {
    clearTimeout(timer);
    if (!current()) { if (!list.hidden) close(); return; }
    timer = setTimeout(lookUp, 150);
  });
  input.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !list.hidden) { e.preventDefault(); close(); } });
  return { el: list, close };
}
