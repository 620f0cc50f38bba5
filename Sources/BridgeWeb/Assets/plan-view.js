// Plans on the phone: a turn's live checklist (Codex's update_plan, kept after the turn), the proposed plan of a
// plan-mode turn (Markdown, with "Implement this plan"), the composer's Plan toggle, and Codex's notices as small
// inline notes. Agent text is shown as text: the Markdown renderer builds DOM nodes, never HTML strings.
import { h } from './dom.js';
import { planPreset } from './collaboration-modes.js';
import { renderMarkdown } from './markdown.js';

const STEP_WORDS = { completed: 'done', inProgress: 'in progress', pending: 'to do' };

/** The "Plan" checklist at the top of a turn; `update(plan)` replaces its steps in place. */
export function planChecklist() {
  const explanation = h('p', { class: 'plan-explanation', hidden: true });
  const list = h('ol', { class: 'plan-steps', attrs: { 'aria-label': 'Plan' } });
  const count = h('span', { class: 'plan-count' });
  const el = h('section', { class: 'turn-plan', attrs: { 'aria-label': 'Plan' } },
    h('div', { class: 'plan-title' }, h('span', { text: 'Plan' }), count), explanation, list);
  return {
    el,
    update(plan) {
      const steps = (plan && plan.steps) || [];
      explanation.textContent = (plan && plan.explanation) || '';
      explanation.hidden = !explanation.textContent;
      const done = steps.filter((s) => s.status === 'completed').length;
      count.textContent = steps.length ? `${done} of ${steps.length} done` : '';
      list.replaceChildren(...steps.map((s) => h('li', { class: `plan-step ${s.status}` },
        h('span', { class: 'plan-mark', attrs: { 'aria-hidden': 'true' } }),
        h('span', { class: 'plan-step-text', text: s.step }),
        h('span', { class: 'visually-hidden', text: ` (${STEP_WORDS[s.status] || s.status})` }))));
    },
  };
}

/**
 * A proposed plan (a `plan` item: plan mode's answer), streamed as text and shown as Markdown once complete, with
 * "Implement this plan" (a follow-up in default mode) when `ctx.implementPlan` is given.
 */
export function proposedPlanView(item, ctx) {
  const body = h('div', { class: 'plan-body' });
  const implement = h('button', { type: 'button', class: 'primary implement-plan', text: 'Implement this plan', hidden: true, dataset: { scope: 'operate' } });
  implement.addEventListener('click', async () => {
    implement.disabled = true;
    try { await ctx.implementPlan(); implement.hidden = true; } finally { implement.disabled = false; }
  });
  const el = h('div', { class: 'plan proposed-plan' }, h('p', { class: 'plan-head', text: 'Proposed plan' }), body, implement);
  let streamed = null;
  function fill(it) {
    if (it.done) {
      streamed = null;
      body.replaceChildren(renderMarkdown(it.text || ''));
      implement.hidden = !ctx.implementPlan;
    } else {
      streamed = document.createTextNode(it.text || '');
      body.replaceChildren(h('div', { class: 'stream-tail' }, streamed));
    }
    if (ctx.onLayout) ctx.onLayout();
  }
  fill(item);
  return {
    el,
    update: fill,
    delta(_field, text) { if (streamed) streamed.appendData(text); },
  };
}

/** A small note in a turn: Codex rerouted the model, a hook ran. */
export function noticeView(item) {
  const text = h('span', { text: item.text || '' });
  const el = h('p', { class: `notice ${String(item.noticeKind || '').split(' ').map((k) => `notice-${k}`).join(' ')}` }, text);
  return {
    el,
    update(it) { text.textContent = it.text || ''; el.className = `notice ${String(it.noticeKind || '').split(' ').map((k) => `notice-${k}`).join(' ')}`; },
    delta() {},
  };
}

/**
 * The composer's Plan toggle: pressed, the next message runs in plan mode. `modes` (a promise of Codex's presets,
 * collaboration-modes.js) names it as Codex does; when Codex lists no plan preset it is not offered. `show(yes)`
 * shows it when offered.
 */
export function planToggle(modes) {
  const el = h('button', { type: 'button', class: 'plan-toggle', text: 'Plan', attrs: { 'aria-pressed': 'false', title: 'Plan mode: Codex asks and proposes a plan instead of editing' } });
  el.addEventListener('click', () => el.setAttribute('aria-pressed', String(el.getAttribute('aria-pressed') !== 'true')));
  let offered = true;
  let wanted = true;
  if (modes) {
    modes.then((list) => {
      const preset = planPreset(list);
      offered = !!preset;
      if (preset) { el.textContent = preset.label; el.title = preset.title; }
      el.hidden = !(wanted && offered);
    }, () => {}); // unknown: offered as before
  }
  return {
    el,
    get on() { return offered && el.getAttribute('aria-pressed') === 'true'; },
    set(on) { el.setAttribute('aria-pressed', String(!!on)); },
    show(yes) { wanted = yes; el.hidden = !(wanted && offered); },
  };
}

/** The `collaborationMode` a message carries: plan when the toggle is on, default to leave a plan-mode thread. */
export function modeFor(toggleOn, threadMode) {
  if (toggleOn) return 'plan';
  return threadMode === 'plan' ? 'default' : null;
}
