// A thread's goal (Codex's thread/goal): a line under the thread's title, a chip on its row in the list, and a small
// form to set or clear it (setGoal / clearGoal).
import { h } from './dom.js';

const STATUS = {
  active: ['running', 'Active'], paused: ['paused', 'Paused'], blocked: ['failed', 'Blocked'],
  usageLimited: ['failed', 'Usage limit'], budgetLimited: ['failed', 'Budget used up'], complete: ['ok', 'Complete'],
};

export function goalStatus(goal) {
  return STATUS[goal.status] || ['', goal.status];
}

/** "1.2k of 5k tokens", or "1.2k tokens" without a budget; '' when Codex reported no use. */
export function budgetText(goal) {
  if (typeof goal.tokensUsed !== 'number') return '';
  const used = `${compact(goal.tokensUsed)}`;
  return typeof goal.tokenBudget === 'number' ? `${used} of ${compact(goal.tokenBudget)} tokens` : `${used} tokens`;
}

function compact(n) {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return String(n);
}

/** The chip a thread's row shows for its goal (null without one). */
export function goalChip(goal) {
  if (!goal) return null;
  const [cls, label] = goalStatus(goal);
  return h('span', { class: `chip goal-chip ${cls}`, attrs: { title: `Goal: ${goal.objective}` }, text: `Goal: ${label}` });
}

/** The goal line under a thread's title; `update(goal)`. */
export function goalLine() {
  const objective = h('span', { class: 'goal-objective' });
  const chip = h('span', { class: 'chip' });
  const budget = h('span', { class: 'goal-budget' });
  const el = h('div', { class: 'goal-line', hidden: true, attrs: { role: 'group', 'aria-label': 'Goal' } },
    h('span', { class: 'goal-label', text: 'Goal' }), objective, chip, budget);
  return {
    el,
    update(goal) {
      el.hidden = !goal;
      if (!goal) return;
      const [cls, label] = goalStatus(goal);
      objective.textContent = goal.objective;
      chip.className = `chip ${cls}`;
      chip.textContent = label;
      budget.textContent = budgetText(goal);
      budget.hidden = !budget.textContent;
    },
  };
}

/**
 * The form behind Goal in the thread's More menu, its fields with visible labels. `request(kind, fields)` sends
 * setGoal/clearGoal; `onError(err)`; `onShow()` once it is shown, `onHide()` once it is put away (the thread screen
 * keeps the view where the person reads). `toggle(goal)` shows it filled with the current goal, or hides it.
 */
export function goalForm({ request, onError, onShow = () => {}, onHide = () => {} }) {
  const objective = h('textarea', { id: 'goal-objective', class: 'goal-input', rows: 2, placeholder: 'What should Codex achieve?', attrs: { maxlength: '4000' } });
  const budget = h('input', { type: 'number', id: 'goal-budget', class: 'goal-budget-input', placeholder: 'e.g. 50000', attrs: { min: '1', step: '1', inputmode: 'numeric' } });
  const set = h('button', { type: 'submit', class: 'primary', text: 'Set goal' });
  const clear = h('button', { type: 'button', class: 'secondary', text: 'Clear goal', hidden: true });
  const cancel = h('button', { type: 'button', class: 'text-button', text: 'Cancel' });
  const el = h('form', { class: 'goal-form', hidden: true, dataset: { scope: 'operate' }, attrs: { 'aria-label': 'Goal' } },
    h('label', { class: 'form-label', htmlFor: 'goal-objective', text: 'Objective' }), objective,
    h('label', { class: 'form-label', htmlFor: 'goal-budget', text: 'Token budget (optional)' }), budget,
    h('div', { class: 'goal-actions' }, set, clear, cancel));
  const close = () => { if (el.hidden) return; el.hidden = true; onHide(); };
  cancel.addEventListener('click', close);
  el.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = objective.value.trim();
    if (!text) { objective.focus(); return; }
    const fields = { objective: text };
    if (budget.value) fields.tokenBudget = Number(budget.value);
    set.disabled = true;
    try { await request('setGoal', fields); close(); } catch (err) { onError(err); } finally { set.disabled = false; }
  });
  clear.addEventListener('click', async () => {
    clear.disabled = true;
    try { await request('clearGoal', {}); close(); } catch (err) { onError(err); } finally { clear.disabled = false; }
  });
  return {
    el,
    close,
    toggle(goal) {
      if (!el.hidden) { close(); return; }
      objective.value = goal ? goal.objective : '';
      budget.value = goal && typeof goal.tokenBudget === 'number' ? String(goal.tokenBudget) : '';
      clear.hidden = !goal;
      el.hidden = false;
      onShow();
      objective.focus({ preventScroll: true });
    },
  };
}
