// The card of a pending item (pending.js), as an approval and a question share it: a section with its title, what
// is asked, the answer buttons and the outcome line. Answering disables the buttons while it goes; "Already
// answered." when someone was first; once answered, what was answered, by whom and when (issue 37 item 4).
import { h, clear } from './dom.js';

// Who answered an approval or a question and when, as the cards say it: "by this phone", "by Ana's iPad", "at the
// workstation", with the time (and the day when it was not today).
/** ' by this phone at 14:05' and the like; '' when nobody answered (withdrawn, cancelled). */
export function whoAndWhen(resolved, ownDeviceId, answeredHere = false) {
  const who = answeredHere || (resolved.deviceId && resolved.deviceId === ownDeviceId) ? ' by this phone'
    : resolved.deviceName ? ` by ${resolved.deviceName}`
      : resolved.deviceId ? ` by another device (${resolved.deviceId})`
        : resolved.elsewhere ? ' at the workstation'
          : resolved.decision === 'cancel' || resolved.action === 'cancel' ? '' : ' by another client';
  return `${who}${when(resolved.at)}`;
}

function when(at) {
  if (typeof at !== 'number') return '';
  const date = new Date(at * 1000);
  const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  if (date.toDateString() === new Date().toDateString()) return ` at ${time}`;
  return ` on ${date.toLocaleDateString([], { day: 'numeric', month: 'short' })}, ${time}`;
}

/**
 * item: the request (+ `resolved` once answered). options:
 *   section: {class, label, dataset}; title; body: nodes before the buttons; after: nodes after the outcome line
 *   buttons(button): the buttons while it waits, each made with button(label, cls, make): make() → what to send
 *     (null: nothing chosen yet, `prompt` says so)
 *   submit(answer) → Promise; notPending: the error code of "someone answered first"
 *   outcome(resolved): "Approved", "Answered"…; decision(resolved): its class name part; onResolved(): redraw the body
 *   deviceId(): this device's
 * Returns {el, update()}.
 */
export function pendingCard(item, options) {
  const actions = h('div', { class: 'approval-actions' });
  const outcome = h('p', { class: 'approval-outcome', attrs: { 'aria-live': 'polite' } });
  const { section } = options;
  const el = h('section', { class: section.class, attrs: { 'aria-label': section.label }, dataset: section.dataset },
    h('h2', { class: 'approval-title', text: options.title }), ...options.body, actions, outcome, ...(options.after || []));

  let busy = false;
  async function send(answer, button) {
    if (busy) return;
    busy = true;
    for (const b of actions.querySelectorAll('button')) b.disabled = true;
    button.classList.add('busy');
    item.answeredHere = true; // a linked machine names the answering device in its own ids: remember it was us
    try {
      await options.submit(answer);
    } catch (err) {
      item.answeredHere = false;
      if (err && err.code === options.notPending) outcome.textContent = 'Already answered.';
      else outcome.textContent = `Could not send: ${err && err.message ? err.message : err}`;
      busy = false;
      update();
    }
  }
  const button = (label, cls, make) => {
    const b = h('button', { type: 'button', class: cls, text: label });
    b.addEventListener('click', () => {
      const answer = make();
      if (options.prompt) {
        if (!answer) { outcome.textContent = options.prompt; return; }
        outcome.textContent = '';
      }
      send(answer, b);
    });
    return b;
  };

  function update() {
    clear(actions);
    if (item.resolved) {
      el.classList.add('resolved', `decision-${options.decision(item.resolved)}`);
      if (options.onResolved) options.onResolved();
      outcome.textContent = `${options.outcome(item.resolved)}${whoAndWhen(item.resolved, options.deviceId(), item.answeredHere)}.`;
      return;
    }
    actions.append(...options.buttons(button));
    if (busy) for (const b of actions.querySelectorAll('button')) b.disabled = true;
  }
  update();
  return { el, update };
}
