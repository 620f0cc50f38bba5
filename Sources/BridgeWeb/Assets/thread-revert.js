// "Revert" from a thread's More menu (BRIDGE.md `revertThread`): the person picks how many of the last turns to
// remove from what Codex remembers, and is told first that files are not reverted. Every phone then reads the
// thread again (`thread/reverted`) and says so in the thread (revertNote).
import { h } from './dom.js';
import { toast, describeError } from './ui.js';
import { userText } from './threads.js';

/** Most turns offered: the last ten. */
const MOST = 10;

/** The prompt that opened a turn, short, for the choice (text, never markup). */
function turnPrompt(thread, turn) {
  for (const id of turn.items) {
    const known = thread.itemMap.get(id);
    if (known && known.item.type === 'userMessage') {
      const text = userText(known.item).replace(/\s+/g, ' ').trim();
      return text.length > 60 ? `${text.slice(0, 59)}…` : text;
    }
  }
  return '';
}

/**
 * The question before Revert. `request(kind, fields)` sends the request; `onReverted()` after the bridge did it.
 * `open(thread)` offers the thread's last turns (focus on Cancel, the safe answer); returns {el, open, close}.
 */
export function revertForm({ request, onReverted }) {
  const choice = h('select', { id: 'revert-turns', name: 'turnId' });
  const yes = h('button', { type: 'submit', class: 'danger', text: 'Revert' });
  const no = h('button', { type: 'button', class: 'secondary', text: 'Cancel' });
  const nothing = h('p', { class: 'muted', hidden: true, text: 'No turn to revert yet.' });
  const field = h('div', { class: 'field' }, h('label', { class: 'form-label', htmlFor: 'revert-turns', text: 'Remove' }), choice);
  const el = h('form', { class: 'goal-form delete-form revert-form', hidden: true, dataset: { scope: 'operate' }, attrs: { 'aria-labelledby': 'revert-thread-title' } },
    h('p', { class: 'confirm-title', id: 'revert-thread-title', text: 'Revert the last turns?' }),
    h('p', { class: 'muted', text: 'Codex forgets them, on every device: they leave the conversation and the next answer is written without them.' }),
    h('p', { class: 'revert-files', text: 'Files are not reverted. What these turns changed on disk stays as it is (see Diff).' }),
    field, nothing,
    h('div', { class: 'confirm-actions' }, yes, no));
  const close = () => { el.hidden = true; };
  no.addEventListener('click', close);
  el.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!choice.value) return;
    yes.disabled = true;
    try {
      await request('revertThread', { turnId: choice.value });
      close();
      onReverted();
    } catch (err) {
      toast(`Not reverted: ${describeError(err)}`);
    } finally {
      yes.disabled = !choice.value;
    }
  });
  return {
    el,
    close,
    open(thread) {
      const turns = thread.turns.slice(-MOST);
      const options = [];
      for (let n = 1; n <= turns.length; n++) {
        const turn = turns[turns.length - n];
        const prompt = turnPrompt(thread, turn);
        const what = n === 1 ? 'The last turn' : `The last ${n} turns`;
        options.push(h('option', { value: turn.id, text: prompt ? `${what}, from “${prompt}”` : what }));
      }
      choice.replaceChildren(...options);
      field.hidden = !options.length;
      nothing.hidden = !!options.length;
      yes.disabled = !options.length;
      el.hidden = false;
      no.focus({ preventScroll: true });
    },
  };
}

/** The line a thread shows after it was reverted (here or on another device), until the screen closes. */
export function revertNote() {
  const el = h('p', { class: 'thread-note revert-note', hidden: true, attrs: { role: 'status' } });
  return {
    el,
    show() {
      el.hidden = false;
      el.textContent = 'This thread was reverted: Codex no longer remembers its later turns. Files were not changed.';
    },
  };
}
