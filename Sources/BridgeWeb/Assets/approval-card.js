// An approval in the thread: what Codex wants to do (a command, file changes, permissions), where and why,
// with Approve, Approve for session and Decline. When anyone answers, the card says who and what.
import { h } from './dom.js';
import { displayCommand, displayPath } from './ui.js';
import { renderChanges } from './diff-view.js';
import { pendingCard } from './pending-card.js';

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
  return pendingCard(approval, {
    section: { class: 'approval', label: 'Approval request', dataset: { approvalId: approval.approvalId } },
    title: TITLES[approval.type] || 'Approval needed',
    body: [
      approval.command ? h('pre', { class: 'code-block approval-command', tabIndex: 0 }, h('code', { text: displayCommand(approval.command) })) : null,
      approval.type !== 'command' ? changeList(approval.changes, approval.cwd) || ctx.itemChanges?.(approval) : null,
      approval.cwd ? h('p', { class: 'approval-meta', title: approval.cwd }, 'in ', h('code', { text: displayPath(approval.cwd, ctx.roots && ctx.roots()) })) : null,
      approval.reason ? h('p', { class: 'approval-reason', text: approval.reason }) : null,
    ],
    // Shown (app.css) while this device lacks the approve scope and the approval waits.
    after: [h('p', { class: 'scope-note-inline', dataset: { needs: 'approve' }, text: 'This device may look but not answer (it lacks the approve scope).' })],
    buttons: (button) => [
      button('Approve', 'primary', () => 'accept'),
      button('Approve for session', 'secondary', () => 'acceptForSession'),
      button('Decline', 'danger', () => 'decline')],
    submit: (decision) => ctx.decide(approval, decision),
    notPending: 'approval_not_pending',
    decision: (resolved) => resolved.decision,
    outcome: (resolved) => DECISIONS[resolved.decision] || resolved.decision,
    deviceId: () => ctx.deviceId,
  });
}
