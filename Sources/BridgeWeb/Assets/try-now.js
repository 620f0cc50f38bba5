// Try now (issue 46 item 1): every state that says something cannot be reached offers it. For the workstation the
// phone talks to, a connection attempt at once (Connection.tryNow); for a linked machine, its home bridge's link
// tries again at once (`retryMachine`). Either way what comes back is told as always (the indicator, or
// `machineChanged`); the button only says it is trying, for a moment.
import { h } from './dom.js';

const TRYING_FOR = 2000; // ms the button says "Trying…" (and cannot be tapped again)

/** A "Try now" text button running `attempt()` (which may return a promise); `label`: its accessible name. */
export function tryNowButton(attempt, label = 'Try now') {
  const button = h('button', { type: 'button', class: 'text-button try-now', text: 'Try now', attrs: label === 'Try now' ? null : { 'aria-label': label } });
  let timer = null;
  button.addEventListener('click', () => {
    if (timer) return;
    button.disabled = true;
    button.textContent = 'Trying…';
    Promise.resolve().then(attempt).catch(() => { /* the state says what happened */ });
    timer = setTimeout(() => {
      timer = null;
      button.disabled = false;
      button.textContent = 'Try now';
    }, TRYING_FOR);
  });
  return button;
}

/** Try now for the workstation itself. */
export function tryWorkstation(session) {
  return tryNowButton(() => session.tryNow());
}

/** Try now for a linked machine (its id); `name` for the button's accessible name. */
export function tryMachine(session, machineId, name) {
  return tryNowButton(() => session.request('retryMachine', { machineId }), name ? `Try now: ${name}` : 'Try now');
}
