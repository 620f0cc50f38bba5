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
      const { deviceId } = approval.resolved;
      // A device id relayed from another machine (approval.machine) is that machine's, not one this phone knows.
      const who = deviceId === ctx.deviceId || approval.answeredHere ? ' by this phone'
        : deviceId ? (approval.machine ? ' on another device' : ` on another device (${deviceId})`)
          : (approval.resolved.decision === 'cancel' ? '' : ' on another client');
      outcome.textContent = `${DECISIONS[approval.resolved.decision] || approval.resolved.decision}${who}.`;
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
