// Sub-agents: threads Codex spawned for a thread's agent. The list shows them under their parent; a thread shows its
// sub-agents with their live status (bridge/subAgent), each opening like any thread.
import { h } from './dom.js';
import { threadTitle } from './thread-title.js';

const STATUS = {
  pending: ['idle', 'Starting'], running: ['running', 'Running'], done: ['ok', 'Done'], failed: ['failed', 'Failed'],
  interrupted: ['failed', 'Stopped'], closed: ['idle', 'Closed'],
};

export function subAgentStatus(status) {
  return STATUS[status] || ['idle', status || 'Unknown'];
}

/** A sub-agent's name: Codex's nickname, with its role. */
export function agentName(nickname, role) {
  if (nickname && role) return `${nickname} (${role})`;
  return nickname || (role ? `Sub-agent (${role})` : 'Sub-agent');
}

/** Threads in list order with their depth: each parent followed by its sub-agents (a sub-agent whose parent is not
 *  listed stands alone). */
export function nestThreads(threads) {
  const listed = new Set(threads.map((t) => t.id));
  const children = new Map();
  for (const t of threads) {
    if (t.parentThreadId && listed.has(t.parentThreadId) && t.parentThreadId !== t.id) {
      if (!children.has(t.parentThreadId)) children.set(t.parentThreadId, []);
      children.get(t.parentThreadId).push(t);
    }
  }
  const out = [];
  const seen = new Set();
  const add = (t, depth) => {
    if (seen.has(t.id)) return;
    seen.add(t.id);
    out.push([t, depth]);
    for (const c of children.get(t.id) || []) add(c, depth + 1);
  };
  for (const t of threads) if (!(t.parentThreadId && listed.has(t.parentThreadId))) add(t, 0);
  for (const t of threads) add(t, 0); // a cycle or anything left over
  return out;
}

/** The sub-agents of `thread`: those the bridge announced, and listed threads naming it as their parent. */
export function subAgentsOf(thread, store) {
  const agents = new Map(thread.subAgents || []);
  for (const t of store.threads.values()) {
    if (t.parentThreadId !== thread.id || agents.has(t.id)) continue;
    agents.set(t.id, { status: store.isRunning(t) ? 'running' : t.lastTurnStatus === 'failed' ? 'failed' : t.lastTurnStatus ? 'done' : null, nickname: t.agentNickname, role: t.agentRole });
  }
  return [...agents.entries()];
}

/** A `collabAgentToolCall` item: the agent spawned, messaged, waited for or closed sub-agents. */
export function collabView(item) {
  const words = { spawnAgent: 'Spawned a sub-agent', sendInput: 'Messaged a sub-agent', wait: 'Waiting for sub-agents', waitAgent: 'Waiting for sub-agents',
    closeAgent: 'Closed a sub-agent', resumeAgent: 'Resumed a sub-agent', interruptAgent: 'Interrupted a sub-agent', listAgents: 'Listed sub-agents' };
  const label = h('span', { class: 'chip' });
  const task = h('span', { class: 'collab-task' });
  const el = h('div', { class: 'other-item collab' }, label, task);
  function fill(it) {
    label.textContent = words[it.tool] || 'Sub-agents';
    task.textContent = typeof it.prompt === 'string' && it.prompt ? ` ${it.prompt}` : '';
  }
  fill(item);
  return { el, update: fill, delta() {} };
}

/** The thread screen's sub-agent list (hidden while the thread has none); `update(thread, store)`. */
export function subAgentPanel() {
  const list = h('ul', { class: 'subagent-list' });
  const el = h('nav', { class: 'subagents', hidden: true, attrs: { 'aria-label': 'Sub-agents' } },
    h('p', { class: 'subagents-title', text: 'Sub-agents' }), list);
  return {
    el,
    update(thread, store) {
      const agents = subAgentsOf(thread, store);
      el.hidden = agents.length === 0;
      list.replaceChildren(...agents.map(([id, a]) => {
        const child = store.get(id);
        const [cls, label] = subAgentStatus(a.status);
        const task = child && threadTitle(child);
        return h('li', null, h('a', { class: 'subagent', href: `#/t/${encodeURIComponent(id)}` },
          h('span', { class: 'subagent-name', text: agentName(a.nickname, a.role) }),
          task ? h('span', { class: 'subagent-task', text: task }) : null,
          h('span', { class: `state ${cls}` }, h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }), label)));
      }));
    },
  };
}
