// The store's part for Codex's own tools (BRIDGE.md "Plans, goals and sub-agents"): a turn's live plan
// (turn/plan/updated, kept as `turn.plan`), the thread's goal (`t.goal`), its collaboration mode
// (`t.collaborationMode`), its sub-agents (`t.subAgents`: agentThreadId → {status, nickname, role}; a sub-agent's
// own thread gets `parentThreadId`), and Codex's notices (model rerouted, hooks) as small items of the turn.

/** Applies one event the core store leaves alone; returns true when it was one of these. */
export function applyToolEvent(store, t, msg, turnId) {
  const data = msg.data || {};
  switch (msg.type) {
    case 'turn/plan/updated': {
      const turn = store.turn(t, turnId || data.turnId);
      turn.plan = planOf(data);
      store.emit(t, { type: 'plan', turn });
      return true;
    }
    case 'thread/goal/updated':
      t.goal = goalOf(data.goal);
      store.emit(t, { type: 'status' });
      store.listChanged();
      return true;
    case 'thread/goal/cleared':
      t.goal = null;
      store.emit(t, { type: 'status' });
      store.listChanged();
      return true;
    case 'thread/settings/updated': {
      const settings = data.threadSettings || {};
      const mode = settings.collaborationMode && settings.collaborationMode.mode;
      if (mode === 'plan' || mode === 'default') t.collaborationMode = mode;
      learnSettings(t, { model: settings.model, effort: settings.effort || settings.reasoningEffort, approvalsReviewer: settings.approvalsReviewer });
      store.emit(t, { type: 'status' });
      return true;
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
      notice(store, t, turnId, `review-${str(data.reviewId) || msg.seq}`, `review review-${status === 'denied' ? 'denied' : status === 'approved' ? 'approved' : 'pending'}`,
        `Auto-review ${verdict}${what ? ` ${what}` : ''}${risk}${why}`, { type: 'autoReview', reviewId: str(data.reviewId), denied: status === 'denied' });
      return true;
    }
    // A person overrode a denial (approveDeniedAction, here or on another phone).
    case 'bridge/deniedActionApproved': {
      const known = t.itemMap.get(`review-${str(data.reviewId)}`);
      if (known) {
        known.item.overridden = true;
        known.item.overriddenBy = str(data.deviceId);
        store.emit(t, { type: 'itemUpdate', item: known.item });
      }
      return true;
    }
    case 'bridge/subAgent':
      if (typeof data.agentThreadId === 'string') learnSubAgent(store, t, data);
      return true;
    case 'model/rerouted':
      notice(store, t, turnId, `rerouted-${turnId}-${msg.seq}`, 'reroute',
        `Model rerouted: ${str(data.fromModel) || '?'} → ${str(data.toModel) || '?'}${data.reason ? ` (${reasonText(data.reason)})` : ''}`);
      return true;
    case 'hook/started':
    case 'hook/completed': {
      const run = data.run || {};
      const name = str(run.statusMessage) || `${hookName(run.eventName)} hook`;
      const done = msg.type === 'hook/completed';
      const status = done ? (str(run.status) || 'completed') : 'running';
      const took = done && typeof run.durationMs === 'number' ? `, ${run.durationMs} ms` : '';
      notice(store, t, turnId, `hook-${str(run.id) || msg.seq}-${turnId || ''}`, `hook ${status}`, `${name}: ${status}${took}`);
      return true;
    }
    default:
      return false;
  }
}

/** What a `listThreads` entry says beside the core fields. */
export function applyListTools(t, s) {
  t.goal = s.goal ? goalOf(s.goal) : null;
  if (s.collaborationMode) t.collaborationMode = s.collaborationMode;
  if (s.parentThreadId) t.parentThreadId = s.parentThreadId;
  if (s.agentNickname) t.agentNickname = s.agentNickname;
  if (s.agentRole) t.agentRole = s.agentRole;
  if (s.name) t.name = s.name;
  learnSettings(t, { model: s.model, effort: s.reasoningEffort });
  if (typeof s.branch === 'string' && s.branch) t.branch = s.branch; // the git branch Codex recorded (or the worktree's)
}

/** What a `thread` answer carries beside Codex's thread: its goal, mode and each turn's last plan. */
export function applySnapshotTools(store, threadId, answer) {
  const t = store.ensure(threadId);
  t.goal = answer.goal ? goalOf(answer.goal) : null;
  if (answer.collaborationMode) t.collaborationMode = answer.collaborationMode;
  if (answer.tokenUsage && typeof answer.tokenUsage === 'object' && !t.tokenUsage) { t.tokenUsage = answer.tokenUsage; store.emit(t, { type: 'usage' }); }
  const th = answer.thread || {};
  if (th.parentThreadId) t.parentThreadId = th.parentThreadId;
  if (th.agentNickname) t.agentNickname = th.agentNickname;
  if (th.agentRole) t.agentRole = th.agentRole;
  learnSettings(t, { model: th.model, effort: th.reasoningEffort });
  for (const a of answer.subAgents || []) if (a && typeof a.agentThreadId === 'string') learnSubAgent(store, t, a, { quiet: true });
  for (const p of answer.plans || []) {
    if (!p || typeof p.turnId !== 'string') continue;
    const turn = store.turn(t, p.turnId);
    if (!turn.plan) { turn.plan = planOf(p); store.emit(t, { type: 'plan', turn }); }
  }
  store.emit(t, { type: 'status' });
  store.listChanged();
}

/** A sub-agent of `t` (a bridge/subAgent event, or the thread answer's `subAgents`). */
function learnSubAgent(store, t, data, { quiet = false } = {}) {
  if (!t.subAgents) t.subAgents = new Map();
  const known = t.subAgents.get(data.agentThreadId) || {};
  const agent = {
    status: str(data.status) || known.status || null,
    nickname: str(data.agentNickname) || known.nickname || null,
    role: str(data.agentRole) || known.role || null,
  };
  t.subAgents.set(data.agentThreadId, agent);
  const child = store.ensure(data.agentThreadId);
  child.parentThreadId = t.id;
  child.agentNickname = agent.nickname;
  child.agentRole = agent.role;
  child.listed = true;
  if (quiet) return;
  store.emit(t, { type: 'subAgents' });
  store.emit(child, { type: 'status' });
  store.listChanged();
}

/** The model, effort and approvals reviewer of the thread's next turns, as far as they are known. */
function learnSettings(t, { model, effort, approvalsReviewer }) {
  if (str(model)) t.model = model;
  if (str(effort)) t.effort = effort;
  if (approvalsReviewer === 'user' || approvalsReviewer === 'auto_review') t.approvalsReviewer = approvalsReviewer;
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

function notice(store, t, turnId, id, kind, text, extra = {}) {
  const known = t.itemMap.get(id);
  if (known) {
    Object.assign(known.item, { text, noticeKind: kind, ...extra });
    store.emit(t, { type: 'itemUpdate', item: known.item });
    return;
  }
  const turn = store.turn(t, turnId);
  const item = { id, type: 'bridgeNotice', noticeKind: kind, text, done: true, ...extra };
  t.itemMap.set(id, { item, turnId: turn.id });
  turn.items.push(id);
  store.emit(t, { type: 'item', turn, item });
}

const HOOKS = { preToolUse: 'Pre-tool', postToolUse: 'Post-tool', userPromptSubmit: 'Prompt', sessionStart: 'Session start', stop: 'Stop', permissionRequest: 'Permission', preCompact: 'Pre-compact', postCompact: 'Post-compact', subagentStart: 'Sub-agent start', subagentStop: 'Sub-agent stop' };
function hookName(event) { return HOOKS[event] || str(event) || 'A'; }
function reasonText(reason) { return reason === 'highRiskCyberActivity' ? 'flagged as high-risk cyber activity' : String(reason); }
function str(v) { return typeof v === 'string' && v ? v : null; }
