// Housekeeping and settings from a thread's More menu (BRIDGE.md `compactThread`, `deleteThread`,
// `updateThreadSettings`): Compact (Codex summarises the context in a turn of its own), Delete (asks first: nothing
// undoes it) and Settings, a small form for the model, reasoning effort and approvals reviewer of the next turns;
// and an automatic review's note in the turn, with "Approve anyway" on a denial (`approveDeniedAction`).
import { h } from './dom.js';
import { toast, describeError } from './ui.js';
import { noticeView } from './plan-view.js';

/** Compact: the bridge's `compactThread`; the compaction then shows in the thread as a turn of its own. */
export async function compactThread({ request }) {
  try {
    await request('compactThread', {});
    return true;
  } catch (err) {
    toast(`Not compacted: ${describeError(err)}`);
    return false;
  }
}

/**
 * The question before Delete. `request(kind, fields)` sends the request; `onDeleted()` after the bridge did it.
 * `open()` shows it (focus on Cancel, the safe answer); returns {el, open, close}.
 */
export function deleteForm({ request, onDeleted }) {
  const yes = h('button', { type: 'submit', class: 'danger', text: 'Delete thread' });
  const no = h('button', { type: 'button', class: 'secondary', text: 'Cancel' });
  const el = h('form', { class: 'goal-form delete-form', hidden: true, dataset: { scope: 'operate' }, attrs: { 'aria-labelledby': 'delete-thread-title' } },
    h('p', { class: 'confirm-title', id: 'delete-thread-title', text: 'Delete this thread?' }),
    h('p', { class: 'muted', text: 'Its conversation is removed from the workstation for good, on every device. Files Codex changed stay as they are.' }),
    h('div', { class: 'confirm-actions' }, yes, no));
  const close = () => { el.hidden = true; };
  no.addEventListener('click', close);
  el.addEventListener('submit', async (e) => {
    e.preventDefault();
    yes.disabled = true;
    try {
      await request('deleteThread', {});
      close();
      onDeleted();
    } catch (err) {
      toast(`Not deleted: ${describeError(err)}`);
    } finally {
      yes.disabled = false;
    }
  });
  return { el, close, open() { el.hidden = false; no.focus({ preventScroll: true }); } };
}

const REVIEWERS = [['user', 'Ask me'], ['auto_review', 'Codex\'s auto-reviewer']];

/**
 * The Settings form: Model and Effort (the efforts follow the model; Codex's `listModels`), who answers
 * approvals, and the permissions of the next turns (`listPermissionProfiles`: a profile the workstation does not
 * allow is shown, not offered). `models()` resolves to the model list; `onSaved(fields)` after the bridge accepted the change.
 * `open(thread)` shows it with the thread's current settings.
 */
export function settingsForm({ request, models, onSaved }) {
  const model = h('select', { id: 'thread-model', name: 'model' });
  const effort = h('select', { id: 'thread-effort', name: 'effort' });
  const reviewer = h('select', { id: 'thread-reviewer', name: 'approvalsReviewer' }, REVIEWERS.map(([value, text]) => h('option', { value, text })));
  const permissions = h('select', { id: 'thread-permissions', name: 'permissionProfile' });
  const save = h('button', { type: 'submit', class: 'primary', text: 'Save' });
  const cancel = h('button', { type: 'button', class: 'text-button', text: 'Cancel' });
  const field = (id, label, control) => h('div', { class: 'field' }, h('label', { class: 'form-label', htmlFor: id, text: label }), control);
  const el = h('form', { class: 'goal-form settings-form', hidden: true, dataset: { scope: 'operate' }, attrs: { 'aria-label': 'Thread settings' } },
    h('p', { class: 'muted', text: 'For the next turns of this thread.' }),
    field('thread-model', 'Model', model), field('thread-effort', 'Effort', effort), field('thread-reviewer', 'Approvals', reviewer),
    field('thread-permissions', 'Permissions', permissions),
    h('div', { class: 'goal-actions' }, save, cancel));
  let list = [];
  let current = {};
  const close = () => { el.hidden = true; };
  cancel.addEventListener('click', close);

  function fillEfforts(chosen) {
    const m = list.find((x) => x.id === model.value);
    const efforts = (m && m.efforts) || [];
    effort.replaceChildren(...efforts.map((e) => h('option', { value: e, text: e })));
    if (efforts.includes(chosen)) effort.value = chosen;
    else if (m && m.defaultEffort && efforts.includes(m.defaultEffort)) effort.value = m.defaultEffort;
    effort.disabled = efforts.length === 0;
  }
  model.addEventListener('change', () => fillEfforts(effort.value));

  function fillPermissions(profiles) {
    const named = { ':read-only': 'Read only', ':workspace': 'Workspace (edit files here)', ':danger-full-access': 'Full access' };
    const options = profiles.map((p) => h('option', {
      value: p.id, disabled: !p.allowed, text: `${named[p.id] || p.id}${p.allowed ? '' : ' (not allowed here)'}`,
    }));
    permissions.replaceChildren(h('option', { value: '', text: 'As they are' }), ...options);
    permissions.value = '';
  }

  el.addEventListener('submit', async (e) => {
    e.preventDefault();
    const fields = {};
    if (model.value && model.value !== current.shownModel) fields.model = model.value;
    if (effort.value && (effort.value !== current.shownEffort || fields.model)) fields.effort = effort.value;
    if (reviewer.value !== (current.approvalsReviewer || 'user')) fields.approvalsReviewer = reviewer.value;
    if (permissions.value) fields.permissionProfile = permissions.value;
    if (!Object.keys(fields).length) { close(); return; }
    save.disabled = true;
    try {
      await request('updateThreadSettings', fields);
      close();
      onSaved(fields);
    } catch (err) {
      toast(`Settings not changed: ${describeError(err)}`);
    } finally {
      save.disabled = false;
    }
  });

  return {
    el,
    close,
    async open(thread) {
      current = { model: thread.model || '', effort: thread.effort || '', approvalsReviewer: thread.approvalsReviewer || 'user' };
      el.hidden = false;
      save.disabled = true;
      // Its options are known already: shown at once, and a choice made while the rest loads is kept.
      reviewer.value = current.approvalsReviewer;
      const listed = request('listPermissionProfiles', {}).then((a) => a.profiles || [], () => []);
      try { list = await models(); } catch (_) { list = []; }
      fillPermissions(await listed);
      save.disabled = false;
      const options = list.map((m) => h('option', { value: m.id, text: m.displayName || m.id }));
      // A model Codex does not list (a custom provider's) stays selectable as it is.
      if (current.model && !list.some((m) => m.id === current.model)) options.unshift(h('option', { value: current.model, text: current.model }));
      model.replaceChildren(...options);
      model.value = current.model || (list.find((m) => m.isDefault) || list[0] || {}).id || '';
      fillEfforts(current.effort);
      // What it showed (the thread's settings, or Codex's defaults when this phone does not know them): only a
      // change is sent.
      current.shownModel = model.value;
      current.shownEffort = effort.value;
      model.focus({ preventScroll: true });
    },
  };
}

/**
 * An automatic review in its turn: the note (thread-tools.js), and on a denial "Approve anyway" (scope approve),
 * which overrides it once (`approveDeniedAction`); every phone then says so (`bridge/deniedActionApproved`).
 */
export function autoReviewView(item, ctx) {
  const note = noticeView(item);
  const approve = h('button', { type: 'button', class: 'text-button approve-anyway', text: 'Approve anyway', dataset: { scope: 'approve' },
    attrs: { title: 'Tell Codex you approve this exact action; it may try it again' } });
  const said = h('span', { class: 'review-override' });
  const el = h('div', { class: 'auto-review' }, note.el, approve, said);
  approve.addEventListener('click', async () => {
    approve.disabled = true;
    try { await ctx.approveDenied(item.reviewId); }
    catch (err) { approve.disabled = false; toast(`Not approved: ${describeError(err)}`); }
  });
  function render(it) {
    approve.hidden = !it.denied || !it.reviewId || !!it.overridden;
    said.textContent = it.overridden
      ? (it.overriddenBy && it.overriddenBy === ctx.deviceId() ? 'You approved it; Codex may try it again.' : 'Approved by a person; Codex may try it again.')
      : '';
  }
  render(item);
  return { el, update(it) { note.update(it); render(it); }, delta() {} };
}
