// Renaming and archiving a thread from its More menu (BRIDGE.md `renameThread`, `archiveThread`): a small form with a
// visible label for the name; Archive takes the thread out of the list and goes back to it.
import { h } from './dom.js';
import { toast, describeError } from './ui.js';
import { threadTitle } from './thread-title.js';

/**
 * The form behind Rename. `request(kind, fields)` sends the request; `onRenamed(name)` after the bridge accepted it.
 * `open(current)` shows it filled with the current title; returns {el, open, close}.
 */
export function renameForm({ request, onRenamed }) {
  const field = h('input', { type: 'text', id: 'rename-thread', class: 'goal-input', maxLength: 200, attrs: { autocomplete: 'off', enterkeyhint: 'done' } });
  const save = h('button', { type: 'submit', class: 'primary', text: 'Save' });
  const cancel = h('button', { type: 'button', class: 'text-button', text: 'Cancel' });
  const el = h('form', { class: 'goal-form rename-form', hidden: true, dataset: { scope: 'operate' }, attrs: { 'aria-label': 'Rename' } },
    h('label', { class: 'form-label', htmlFor: 'rename-thread', text: 'Thread name' }), field, h('div', { class: 'goal-actions' }, save, cancel));
  const close = () => { el.hidden = true; };
  cancel.addEventListener('click', close);
  el.addEventListener('submit', async (e) => {
    e.preventDefault();
    // As the bridge wants it: 1–200 characters without control characters.
    const name = field.value.replace(/\p{Cc}+/gu, ' ').trim();
    if (!name) { field.focus(); return; }
    save.disabled = true;
    try {
      await request('renameThread', { name });
      close();
      onRenamed(name);
    } catch (err) {
      toast(`Not renamed: ${describeError(err)}`);
    } finally {
      save.disabled = false;
    }
  });
  return {
    el,
    close,
    open(current) {
      field.value = current || '';
      el.hidden = false;
      field.focus({ preventScroll: true });
      field.select();
    },
  };
}

/** Archive: the bridge's `archiveThread`; the thread leaves this phone's list at once. Returns true when done. */
export async function archiveThread({ request, store, thread }) {
  try {
    await request('archiveThread', {});
  } catch (err) {
    toast(`Not archived: ${describeError(err)}`);
    return false;
  }
  store.commit(thread, [{ set: { archived: true } }, { list: true }]);
  toast(`Archived “${(threadTitle(thread) || 'thread').slice(0, 60)}”.`, { follows: true }); // said as the app goes back to the list
  return true;
}
