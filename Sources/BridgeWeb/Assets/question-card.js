// A question from the agent in the thread: Codex's request_user_input (one to three questions, each with options
// and a free-form answer) or an MCP server's form (an elicitation: fields from a schema, or a page to open).
// Send answers it (answerInput); Skip declines. When anyone answers, the card says who and what. Everything the
// agent wrote is shown as text.
import { h } from './dom.js';
import { pendingCard } from './pending-card.js';

const ACTIONS = { accept: 'Answered', decline: 'Skipped', cancel: 'Withdrawn' };
let serial = 0;

function userInputFields(input) {
  const getters = [];
  const fields = (Array.isArray(input.questions) ? input.questions : []).map((q) => {
    const name = `q${++serial}`;
    const options = Array.isArray(q.options) ? q.options : [];
    const other = h('input', {
      type: q.isSecret ? 'password' : 'text', class: 'question-other', name: `${name}-other`,
      placeholder: options.length ? 'Other answer' : 'Your answer', attrs: { 'aria-label': `${String(q.header || q.question || 'Answer')}: your own answer`, autocomplete: 'off' },
    });
    const radios = options.map((o, i) => h('input', { type: 'radio', name, value: String(o.label ?? ''), id: `${name}-${i}` }));
    other.addEventListener('input', () => { if (other.value) for (const r of radios) r.checked = false; });
    for (const r of radios) r.addEventListener('change', () => { if (r.checked) other.value = ''; });
    getters.push(() => {
      const picked = radios.find((r) => r.checked);
      if (picked) return [String(q.id), [picked.value]];
      if (other.value.trim()) return [String(q.id), [other.value.trim()]];
      return null;
    });
    return h('fieldset', { class: 'question' },
      h('legend', { class: 'question-header', text: String(q.header || 'Question') }),
      h('p', { class: 'question-text', text: String(q.question || '') }),
      options.map((o, i) => h('label', { class: 'question-option', htmlFor: `${name}-${i}` }, radios[i],
        h('span', { class: 'question-option-text' }, h('span', { class: 'question-label', text: String(o.label ?? '') }),
          o.description ? h('span', { class: 'question-description', text: String(o.description) }) : null))),
      q.isOther !== false || !options.length ? other : null);
  });
  const collect = () => {
    const answers = {};
    for (const get of getters) { const a = get(); if (a) answers[a[0]] = a[1]; }
    return Object.keys(answers).length ? { answers } : null;
  };
  return { fields, collect };
}

function elicitationFields(input) {
  const properties = input.schema && typeof input.schema.properties === 'object' ? input.schema.properties : {};
  const getters = [];
  const fields = Object.entries(properties).map(([key, spec]) => {
    const s = spec && typeof spec === 'object' ? spec : {};
    const label = String(s.title || key);
    let control;
    if (s.type === 'boolean') {
      control = h('input', { type: 'checkbox', checked: s.default === true });
      getters.push(() => [key, control.checked]);
    } else if (Array.isArray(s.enum)) {
      control = h('select', {}, s.enum.map((v, i) => h('option', { value: String(v), text: String((s.enumNames && s.enumNames[i]) || v) })));
      getters.push(() => [key, control.value]);
    } else {
      const numeric = s.type === 'number' || s.type === 'integer';
      control = h('input', { type: numeric ? 'number' : 'text', value: s.default !== undefined && s.default !== null ? String(s.default) : '', attrs: { autocomplete: 'off' } });
      getters.push(() => {
        if (control.value === '') return null;
        return [key, numeric ? Number(control.value) : control.value];
      });
    }
    control.setAttribute('aria-label', label);
    return h('label', { class: 'question-field' }, h('span', { class: 'question-label', text: label }),
      s.description ? h('span', { class: 'question-description', text: String(s.description) }) : null, control);
  });
  const collect = () => {
    const content = {};
    for (const get of getters) { const a = get(); if (a) content[a[0]] = a[1]; }
    return { action: 'accept', content };
  };
  return { fields, collect };
}

/** Each question (or form field) with the answer given; a secret question's answer is not shown (the bridge keeps none). */
function answeredSummary(input) {
  const resolved = input.resolved;
  if (input.type === 'elicitation') {
    const content = resolved.content && typeof resolved.content === 'object' ? resolved.content : {};
    const properties = input.schema && typeof input.schema.properties === 'object' ? input.schema.properties : {};
    return Object.entries(content).map(([key, value]) => pair(String((properties[key] && properties[key].title) || key), String(value)));
  }
  const answers = resolved.answers && typeof resolved.answers === 'object' ? resolved.answers : {};
  return (Array.isArray(input.questions) ? input.questions : []).map((q) => {
    const given = Array.isArray(answers[q.id]) ? answers[q.id].map(String).join(', ') : '';
    const shown = q.isSecret ? (resolved.action === 'accept' ? '(secret, not shown)' : '') : given;
    return pair(String(q.question || q.header || 'Question'), shown || (resolved.action === 'accept' ? '(no answer)' : '—'));
  });
}

function pair(question, answer) {
  return h('div', { class: 'question-pair' }, h('p', { class: 'question-text', text: question }), h('p', { class: 'question-answer', text: answer }));
}

/**
 * input: the inputRequest (+ resolved). ctx.answer(input, fields) → Promise; ctx.deviceId: ours.
 * Returns {el, update()}.
 */
export function questionCard(input, ctx) {
  const isForm = input.type === 'elicitation';
  const { fields, collect } = isForm ? elicitationFields(input) : userInputFields(input);
  const body = h('div', { class: 'question-fields' }, fields);
  const given = h('div', { class: 'question-given', hidden: true }); // the questions with their answers, once answered
  // A form with no fields is a yes/no question (Codex asks so whether an MCP tool may run).
  const label = isForm && input.url ? 'Done' : isForm && !fields.length ? 'Allow' : 'Send answer';
  return pendingCard(input, {
    section: { class: 'approval question-card', label: 'Question from Codex', dataset: { requestId: input.requestId } },
    title: isForm ? `${input.serverName ? String(input.serverName) : 'A tool'} asks` : 'Codex asks',
    body: [
      input.message ? h('p', { class: 'question-text', text: String(input.message) }) : null,
      input.url ? h('p', { class: 'approval-meta' }, 'Open ', h('code', { text: String(input.url) }), ' then answer.') : null,
      body, given,
    ],
    buttons: (button) => [
      button(label, 'primary', isForm && input.url ? () => ({ action: 'accept' }) : collect),
      button('Skip', 'secondary', () => ({ action: 'decline' })),
      isForm ? button('Cancel', 'danger', () => ({ action: 'cancel' })) : null].filter(Boolean),
    prompt: 'Pick or type an answer first.',
    submit: (answer) => ctx.answer(input, answer),
    notPending: 'input_not_pending',
    decision: (resolved) => resolved.action,
    outcome: (resolved) => ACTIONS[resolved.action] || resolved.action,
    onResolved() {
      body.hidden = true;
      given.replaceChildren(...answeredSummary(input));
      given.hidden = !given.childNodes.length;
    },
    deviceId: () => ctx.deviceId,
  });
}
