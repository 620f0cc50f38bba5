// The store's part for Codex's own tools (BRIDGE.md "Plans, goals and sub-agents"): a turn's live plan
// (turn/plan/updated, kept as `turn.plan`), the thread's goal (`t.goal`), its collaboration mode
// (`t.collaborationMode`), its sub-agents (`t.subAgents`: agentThreadId → {status, nickname, role}; a sub-agent's
// own thread gets `parentThreadId`), and Codex's notices (model rerouted, hooks) as small items of the turn.
// Each function reads a thread and returns change records (threads.js); the store writes them.

/** The change records (threads.js) for one event the core store leaves alone; null when it is none of these. */
export function toolRecords(t, msg, turnId) {
  const data = msg.data || {};
  switch (msg.type) {
    case 'turn/plan/updated': {
      const id = turnId || data.turnId;
      return [{ turn: id, set: { plan: planOf(data) } }, { emit: { type: 'plan' }, turn: id }];
    }
    case 'thread/goal/updated':
    case 'thread/goal/cleared':
      return [{ set: { goal: msg.type === 'thread/goal/cleared' ? null : goalOf(data.goal) } }, { emit: { type: 'status' } }, { list: true }];
    case 'thread/settings/updated': {
      const settings = data.threadSettings || {};
      const mode = settings.collaborationMode && settings.collaborationMode.mode;
      return [
        { set: { ...(mode === 'plan' || mode === 'default' ? { collaborationMode: mode } : {}),
          ...learnSettings({ model: settings.model, effort: settings.effort || settings.reasoningEffort, approvalsReviewer: settings.approvalsReviewer }) } },
        { emit: { type: 'status' } }];
    }
    // Codex's automatic reviewer decided an approval request no person was asked (approvalsReviewer auto_review).
    case 'item/autoApprovalReview/started':
    case 'item/autoApprovalReview/completed': {
      const review = data.review || {};
      const done = msg.type === 'item/autoApprovalReview/completed';
      const status = done ? (str(review.status) || 'done') : 'inProgress';
      const what = actionText(data.action);
      const verdict = { approved: 'approved', denied: 'denied', inProgress: 'reviewing', timedOut: 'timed out', aborted: 'stopped' }[status] || status;
      const risk = str(review.riskLevel) ? `, ${review.riskLevel} risk` : '';
      const why = done && str(review.rationale) ? `: ${review.rationale}` : '';
      return [notice(turnId, `review-${str(data.reviewId) || msg.seq}`, `review review-${status === 'denied' ? 'denied' : status === 'approved' ? 'approved' : 'pending'}`,
        `Auto-review ${verdict}${what ? ` ${what}` : ''}${risk}${why}`, { type: 'autoReview', reviewId: str(data.reviewId), denied: status === 'denied' })];
    }
    // A person overrode a denial (approveDeniedAction, here or on another phone).
    case 'bridge/deniedActionApproved': {
      const id = `review-${str(data.reviewId)}`;
      const known = t.itemMap.get(id);
      if (!known) return [];
      return [{ item: id, set: { overridden: true, overriddenBy: str(data.deviceId) } }, { emit: { type: 'itemUpdate', item: known.item } }];
    }
    case 'bridge/subAgent':
      return typeof data.agentThreadId === 'string' ? subAgentRecords(t, data) : [];
    case 'model/rerouted':
      return [notice(turnId, `rerouted-${turnId}-${msg.seq}`, 'reroute',
        `Model rerouted: ${str(data.fromModel) || '?'} → ${str(data.toModel) || '?'}${data.reason ? ` (${reasonText(data.reason)})` : ''}`)];
    case 'hook/started':
    case 'hook/completed': {
      const run = data.run || {};
      const name = str(run.statusMessage) || `${hookName(run.eventName)} hook`;
      const done = msg.type === 'hook/completed';
      const status = done ? (str(run.status) || 'completed') : 'running';
      const took = done && typeof run.durationMs === 'number' ? `, ${run.durationMs} ms` : '';
      return [notice(turnId, `hook-${str(run.id) || msg.seq}-${turnId || ''}`, `hook ${status}`, `${name}: ${status}${took}`)];
    }
    default:
      return null;
  }
}

/** The change records for what a `listThreads` entry says beside the core fields. */
export function listRecords(s) {
  return [{ set: {
    goal: s.goal ? goalOf(s.goal) : null,
    ...(s.collaborationMode ? { collaborationMode: s.collaborationMode } : {}),
    ...(s.parentThreadId ? { parentThreadId: s.parentThreadId } : {}),
    ...(s.agentNickname ? { agentNickname: s.agentNickname } : {}),
    ...(s.agentRole ? { agentRole: s.agentRole } : {}),
    ...(s.name ? { name: s.name } : {}),
    ...learnSettings({ model: s.model, effort: s.reasoningEffort }),
    ...(typeof s.branch === 'string' && s.branch ? { branch: s.branch } : {}), // the git branch Codex recorded (or the worktree's)
  } }];
}

/** The change records for what a `readThread` answer carries beside Codex's thread: its goal, mode and each turn's last plan. */
export function answerRecords(t, answer) {
  const th = answer.thread || {};
  const records = [{ set: {
    goal: answer.goal ? goalOf(answer.goal) : null,
    ...(answer.collaborationMode ? { collaborationMode: answer.collaborationMode } : {}),
  } }];
  if (answer.tokenUsage && typeof answer.tokenUsage === 'object' && !t.tokenUsage) records.push({ set: { tokenUsage: answer.tokenUsage } }, { emit: { type: 'usage' } });
  records.push({ set: {
    ...(th.parentThreadId ? { parentThreadId: th.parentThreadId } : {}),
    ...(th.agentNickname ? { agentNickname: th.agentNickname } : {}),
    ...(th.agentRole ? { agentRole: th.agentRole } : {}),
    ...learnSettings({ model: th.model, effort: th.reasoningEffort }),
  } });
  for (const a of answer.subAgents || []) if (a && typeof a.agentThreadId === 'string') records.push(...subAgentRecords(t, a, { quiet: true }));
  const planned = new Set();
  for (const p of answer.plans || []) {
    if (!p || typeof p.turnId !== 'string') continue;
    const turn = t.turnMap.get(p.turnId);
    if ((turn && turn.plan) || planned.has(p.turnId)) { records.push({ turn: p.turnId, set: {} }); continue; }
    planned.add(p.turnId);
    records.push({ turn: p.turnId, set: { plan: planOf(p) } }, { emit: { type: 'plan' }, turn: p.turnId });
  }
  records.push({ emit: { type: 'status' } }, { list: true });
  return records;
}

/** A sub-agent of `t` (a bridge/subAgent event, or the thread answer's `subAgents`): its entry and its own thread. */
function subAgentRecords(t, data, { quiet = false } = {}) {
  const known = t.subAgents.get(data.agentThreadId) || {};
  const agent = {
    status: str(data.status) || known.status || null,
    nickname: str(data.agentNickname) || known.nickname || null,
    role: str(data.agentRole) || known.role || null,
  };
  const records = [
    { put: 'subAgents', key: data.agentThreadId, value: agent },
    { thread: data.agentThreadId, set: { parentThreadId: t.id, agentNickname: agent.nickname, agentRole: agent.role, listed: true } },
  ];
  if (quiet) return records;
  return [...records, { emit: { type: 'subAgents' } }, { emit: { type: 'status' }, thread: data.agentThreadId }, { list: true }];
}

/** The model, effort and approvals reviewer of the thread's next turns, as far as they are known: the fields to set. */
function learnSettings({ model, effort, approvalsReviewer }) {
  return {
    ...(str(model) ? { model } : {}),
    ...(str(effort) ? { effort } : {}),
    ...(approvalsReviewer === 'user' || approvalsReviewer === 'auto_review' ? { approvalsReviewer } : {}),
  };
}

/** What an automatic review looked at, in a few words (a command, a file change, a permission, …). */
function actionText(action) {
  if (!action || typeof action !== 'object') return '';
  const quote = (text) => `“${text.length > 80 ? `${text.slice(0, 79)}…` : text}”`;
  const command = str(action.command) || (Array.isArray(action.argv) ? action.argv.join(' ') : null);
  if (command) return quote(command);
  if (Array.isArray(action.files) && action.files.length) return `a change to ${quote(action.files.join(', '))}`;
  if (str(action.host)) return `network access to ${quote(action.host)}`;
  if (str(action.toolName)) return `the tool ${quote(action.toolName)}`;
  return str(action.type) ? `(${action.type})` : '';
}

function planOf(data) {
  const steps = Array.isArray(data.plan) ? data.plan : [];
  return {
    explanation: str(data.explanation),
    steps: steps.filter((s) => s && typeof s.step === 'string').map((s) => ({ step: s.step, status: normalStatus(s.status) })),
  };
}

function normalStatus(status) {
  if (status === 'completed') return 'completed';
  if (status === 'inProgress' || status === 'in_progress') return 'inProgress';
  return 'pending';
}

function goalOf(g) {
  if (!g || typeof g.objective !== 'string') return null;
  const n = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { objective: g.objective, status: str(g.status) || 'active', tokenBudget: n(g.tokenBudget), tokensUsed: n(g.tokensUsed), timeUsedSeconds: n(g.timeUsedSeconds) };
}

/** A small item of the turn the bridge shows (store.notice): added, or its text changed. */
function notice(turnId, id, kind, text, extra = {}) {
  return { notice: { id, noticeKind: kind, text, ...extra }, turn: turnId };
}

const HOOKS = { preToolUse: 'Pre-tool', postToolUse: 'Post-tool', userPromptSubmit: 'Prompt', sessionStart: 'Session start', stop: 'Stop', permissionRequest: 'Permission', preCompact: 'Pre-compact', postCompact: 'Post-compact', subagentStart: 'Sub-agent start', subagentStop: 'Sub-agent stop' };
function hookName(event) { return HOOKS[event] || str(event) || 'A'; }
function reasonText(reason) { return reason === 'highRiskCyberActivity' ? 'flagged as high-risk cyber activity' : String(reason); }
function str(v) { return typeof v === 'string' && v ? v : null; }
