// An approval in the thread: what Codex wants to do (a command, file changes, permissions), where and why,
// with Approve, Approve for session and Decline. When anyone answers, the card says who and what.
import { h, clear } from './dom.js';
import { displayCommand, displayPath } from './ui.js';
import { renderChanges } from './diff-view.js';

const TITLES = { command: 'Run this command?', fileChange: 'Apply these file changes?', permissions: 'Grant more permissions?' };
const DECISIONS = {
  accept: 'Approved',
  acceptForSession: 'Approved for this session',
  decline: 'Declined',
  cancel: 'Cancelled',
};

// Who answered an approval or a question and when, as the cards say it (issue 37 item 4): "by this phone",
// "by Ana's iPad", "at the workstation", with the time (and the day when it was not today).
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

function changeList(changes, base) {
  if (!changes || typeof changes !== 'object') return null;
  const list = Array.isArray(changes)
    ? changes
    : Object.entries(changes).map(([path, c]) => ({ path, ...(c && typeof c === 'object' ? c : {}) }));
  if (list.some((c) => c && typeof c.path === 'string')) return renderChanges(list, base, { openSmall: true });
  return h('pre', { class: 'code-block', text: JSON.stringify(changes, null, 2) });
}

/**
 * approval: the approvalRequest (+ resolved). ctx.decide(approval, decision) → Promise; ctx.deviceId: ours.
 * Returns {el, update()}.
 */
export function approvalCard(approval, ctx) {
  const actions = h('div', { class: 'approval-actions' });
  const outcome = h('p', { class: 'approval-outcome', attrs: { 'aria-live': 'polite' } });
  const el = h('section', { class: 'approval', attrs: { 'aria-label': 'Approval request' }, dataset: { approvalId: approval.approvalId } },
    h('h2', { class: 'approval-title', text: TITLES[approval.type] || 'Approval needed' }),
    approval.command ? h('pre', { class: 'code-block approval-command', tabIndex: 0 }, h('code', { text: displayCommand(approval.command) })) : null,
    approval.type !== 'command' ? changeList(approval.changes, approval.cwd) || ctx.itemChanges?.(approval) : null,
    approval.cwd ? h('p', { class: 'approval-meta', title: approval.cwd }, 'in ', h('code', { text: displayPath(approval.cwd, ctx.roots && ctx.roots()) })) : null,
    approval.reason ? h('p', { class: 'approval-reason', text: approval.reason }) : null,
    actions, outcome,
    // Shown (app.css) while this device lacks the approve scope and the approval waits.
    h('p', { class: 'scope-note-inline', dataset: { needs: 'approve' }, text: 'This device may look but not answer (it lacks the approve scope).' }));

  let busy = false;
  const decide = async (decision, button) => {
    if (busy) return;
    busy = true;
    for (const b of actions.querySelectorAll('button')) b.disabled = true;
    button.classList.add('busy');
    approval.answeredHere = true; // a linked machine names the answering device in its own ids: remember it was us
    try {
      await ctx.decide(approval, decision);
    } catch (err) {
      approval.answeredHere = false;
      if (err && err.code === 'approval_not_pending') outcome.textContent = 'Already answered.';
      else outcome.textContent = `Could not send: ${err && err.message ? err.message : err}`;
      busy = false;
      update();
    }
  };
  const button = (label, decision, cls) => {
    const b = h('button', { type: 'button', class: cls, text: label });
    b.addEventListener('click', () => decide(decision, b));
    return b;
  };

  function update() {
    clear(actions);
    if (approval.resolved) {
      el.classList.add('resolved', `decision-${approval.resolved.decision}`);
      outcome.textContent = `${DECISIONS[approval.resolved.decision] || approval.resolved.decision}${whoAndWhen(approval.resolved, ctx.deviceId, approval.answeredHere)}.`;
      return;
    }
    actions.append(
      button('Approve', 'accept', 'primary'),
      button('Approve for session', 'acceptForSession', 'secondary'),
      button('Decline', 'decline', 'danger'));
    if (busy) for (const b of actions.querySelectorAll('button')) b.disabled = true;
  }
  update();
  return { el, update };
}
