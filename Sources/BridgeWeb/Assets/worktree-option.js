// New thread → Options: "New worktree" and its "Branch": the thread then runs in a git worktree of its own on a
// new branch (startThread's `worktree`), so several tasks in one repository do not touch each other's files.
import { h } from './dom.js';

/** The two fields, for the Options section of the new-thread form. */
export function worktreeFields() {
  const branch = h('input', { type: 'text', name: 'worktreeBranch', disabled: true, placeholder: 'e.g. fix/dates', attrs: { autocapitalize: 'off', autocorrect: 'off', spellcheck: 'false', autocomplete: 'off' } });
  const box = h('input', { type: 'checkbox', name: 'worktree' });
  box.addEventListener('change', () => {
    branch.disabled = !box.checked;
    if (box.checked) branch.focus();
  });
  return h('div', { class: 'worktree-option' },
    h('label', { class: 'toggle' }, box, h('span', { text: 'New worktree' })),
    h('label', { class: 'field' }, h('span', { text: 'Branch' }), branch));
}

/** The `worktree` member for startThread from the form's data, or an error line when the branch is missing. */
export function worktreeRequest(data) {
  if (!data.get('worktree')) return { worktree: null };
  const branch = String(data.get('worktreeBranch') || '').trim();
  if (!branch) return { error: 'Name the branch for the new worktree.' };
  return { worktree: { branch } };
}
