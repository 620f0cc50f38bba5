// The messages waiting for the running turn to end, under the composer: each one's text with Edit, Earlier,
// Later and Cancel. The line is the bridge's (`queueChanged` keeps the store's `queued` map in its order), so what
// another phone or the workstation changes shows here too; a move or an edit that lost a race is said and the
// line the bridge sends next is shown.
import { h } from './dom.js';
import { toast, describeError } from './ui.js';

/** The ids in `ids` with the one at `index` moved by `by` places (-1 earlier, 1 later); null at an end. */
export function moved(ids, index, by) {
  const to = index + by;
  if (index < 0 || index >= ids.length || to < 0 || to >= ids.length) return null;
  const out = ids.slice();
  [out[index], out[to]] = [out[to], out[index]];
  return out;
}

/** A short form of a message for a button's accessible name. */
const short = (text) => String(text || '').slice(0, 40);

/** session and thread: the screen's. Returns {el, render(change)}. */
export function queuedList({ session, thread }) {
  const threadId = thread.id;
  const el = h('ul', { class: 'queued-list', hidden: true, attrs: { 'aria-label': 'Waiting to be sent' } });
  let editing = null; // the queuedId whose text is being edited, and what was typed: kept across renders
  let draft = null;

  async function ask(kind, fields) {
    try { await session.request(kind, fields); return true; }
    catch (err) {
      // Started or cancelled meanwhile (not_found), or the line changed under the move (conflict): the next
      // queueChanged shows the line as it is.
      toast(err.code === 'not_found' || err.code === 'conflict' ? 'The queue changed meanwhile: try again' : describeError(err));
      return false;
    }
  }

  function move(ids, index, by) {
    const order = moved(ids, index, by);
    if (order) ask('reorderQueued', { threadId, ids: order });
  }

  function editor(q) {
    const box = h('textarea', { class: 'queued-edit', rows: 2, value: draft ?? String(q.text || ''), attrs: { 'aria-label': `New text for: ${short(q.text)}` } });
    box.addEventListener('input', () => { draft = box.value; });
    const save = h('button', { type: 'button', class: 'text-button', text: 'Save' });
    const keep = h('button', { type: 'button', class: 'text-button', text: 'Keep' });
    save.addEventListener('click', async () => {
      const text = box.value.trim();
      if (!text) { toast('A queued message needs some text (Cancel takes it back)'); return; }
      save.disabled = true;
      if (await ask('editQueued', { threadId, queuedId: q.queuedId, text })) { editing = null; draft = null; }
      save.disabled = false;
      render();
    });
    keep.addEventListener('click', () => { editing = null; draft = null; render(); });
    if (draft === null) setTimeout(() => box.focus(), 0);
    return [box, h('div', { class: 'queued-actions' }, save, keep)];
  }

  function row(q, index, ids) {
    const label = short(q.text);
    const button = (text, name, onClick, hidden) => h('button', { type: 'button', class: 'text-button', text, hidden, attrs: { 'aria-label': `${name}: ${label}` }, on: { click: onClick } });
    const cancel = button('Cancel', 'Cancel queued', async (e) => {
      e.currentTarget.disabled = true;
      try { await session.request('cancelQueued', { threadId, queuedId: q.queuedId }); }
      catch (err) { if (err.code !== 'not_found') toast(describeError(err)); }
    });
    const body = editing === q.queuedId ? editor(q) : [
      h('span', { class: 'queued-text', text: String(q.text || '') }),
      h('div', { class: 'queued-actions' },
        button('Edit', 'Edit queued', () => { editing = q.queuedId; draft = null; render(); }),
        button('Earlier', 'Send earlier', () => move(ids, index, -1), index === 0),
        button('Later', 'Send later', () => move(ids, index, 1), index === ids.length - 1),
        cancel),
    ];
    return h('li', { class: 'queued', dataset: { queuedId: q.queuedId } },
      h('span', { class: 'queued-label', text: `Queued ${index + 1}` }), body);
  }

  /** `change`: the store's `queue` record (a failed start is said). */
  function render(change) {
    const queued = [...thread.queued.values()];
    if (editing && !thread.queued.has(editing)) { editing = null; draft = null; }
    const ids = queued.map((q) => q.queuedId);
    el.replaceChildren(...queued.map((q, index) => row(q, index, ids)));
    el.hidden = queued.length === 0;
    if (change && change.unqueued && change.unqueued.reason === 'failed') toast(`A queued message could not start: ${change.unqueued.message || 'unknown reason'}`);
  }

  return { el, render };
}
