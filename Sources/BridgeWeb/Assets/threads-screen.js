// The thread list: newest first, live, with each thread's folder, state, last activity and pending approvals, and a
// search box that filters it as the person types (name, prompt, last answer, folder, on this phone) and asks the
// workstation too (`searchThreads`: every thread's whole conversation, older threads included), showing the matching
// text under each thread it found.
import { h, icon, relativeTime } from './dom.js';
import { header, displayPath } from './ui.js';
import { notifyControl } from './push.js';
import { goalChip } from './goal-view.js';
import { nestThreads, agentName, subAgentStatus } from './subagents.js';
import { archivedSection } from './archived-list.js';
import { machineChip, machineFilter, shownByFilter, offlineMachines } from './fleet-view.js';
import { isFleet, isOffline, machineOf, machineName, rootsFor } from './fleet.js';
import { pendingItems } from './inbox.js';
import { KINDS, unanswered, threadWaitingFor } from './pending.js';
import { may } from './scopes.js';
import { usageLine, tokenLine, localDate } from './thread-extras.js';
import { threadTitle, rowPreview } from './thread-title.js';

const STATE = {
  running: ['running', 'Running'],
  failed: ['failed', 'Failed'],
  idle: ['idle', 'Idle'],
  offline: ['offline', 'Offline'],
};

function stateOf(store, t) {
  if (isFleet() && isOffline(machineOf(t))) return STATE.offline; // its machine is unreachable: nothing is known now
  if (store.isRunning(t)) {
    // A turn that waits on the person is not Codex working: say what it waits for.
    const waiting = threadWaitingFor(t);
    return waiting ? ['asks', waiting] : STATE.running;
  }
  if (t.lastTurnStatus === 'failed' || t.status === 'systemError') return STATE.failed;
  return STATE.idle;
}

export function threadsScreen(ctx) {
  const { store } = ctx;
  const newButton = h('button', { type: 'button', class: 'primary new-thread', on: { click: () => ctx.navigate('#/new') } }, icon('plus'), h('span', { text: 'New thread' }));
  const devices = h('button', { type: 'button', class: 'text-button', text: 'Devices', dataset: { scope: 'admin' }, on: { click: () => ctx.navigate('#/devices') } });
  const machinesButton = h('button', { type: 'button', class: 'text-button', text: 'Machines', dataset: { scope: 'admin' }, on: { click: () => ctx.navigate('#/machines') } });
  const head = header(ctx, { title: ctx.session.serverName || 'Codex', subtitle: 'Threads', actions: [machinesButton, devices] });
  const list = h('ul', { class: 'thread-list' });
  const empty = h('div', { class: 'empty-state', hidden: true });
  const more = h('button', { type: 'button', class: 'text-button more', hidden: true, text: 'Show older threads' });
  const notify = notifyControl(ctx);
  const search = h('input', { type: 'search', class: 'list-search', placeholder: 'Search threads', attrs: { 'aria-label': 'Search threads', autocomplete: 'off', enterkeyhint: 'search' } });
  const searchNote = h('p', { class: 'search-note muted', attrs: { 'aria-live': 'polite' } });
  // The list as this phone last saw it, until the workstation's answer replaces it.
  const refreshing = h('p', { class: 'list-refreshing muted', hidden: true, text: 'Last known list: refreshing…' });
  // The workstation's answer for the query typed last: threadId -> snippet.
  let hits = { query: '', snippets: new Map() };
  let searchTimer = 0;
  search.addEventListener('input', () => { render(); clearTimeout(searchTimer); searchTimer = setTimeout(searchWorkstation, 300); });
  async function searchWorkstation() {
    const query = search.value.trim();
    if (query.length < 2 || !may('observe')) { hits = { query: '', snippets: new Map() }; searchNote.textContent = ''; render(); return; }
    searchNote.textContent = 'Searching the workstation…';
    try {
      const answer = await ctx.session.request('searchThreads', { query, limit: 50 });
      if (search.value.trim() !== query) return; // typed on meanwhile
      const found = answer.threads || [];
      store.applyList(found);
      hits = { query, snippets: new Map(found.map((s) => [s.threadId, typeof s.snippet === 'string' ? s.snippet : ''])) };
      searchNote.textContent = found.length ? '' : 'Nothing on the workstation matches either.';
    } catch (err) {
      if (search.value.trim() === query) searchNote.textContent = `The workstation could not search: ${err.message || err.code}`;
    }
    render();
  }
  const searchBar = h('div', { class: 'list-search-bar', hidden: true, attrs: { role: 'search' } }, search, searchNote);
  const archived = archivedSection(ctx);
  const filter = machineFilter(() => render());
  const away = offlineMachines(ctx.session); // each linked machine unreachable now, with Try now
  // "Needs you": what waits for an answer across threads and machines (inbox-screen.js), shown when anything does.
  const needsYou = h('a', { class: 'needs-you', href: '#/inbox', hidden: true });
  // The account's rate-limit windows, as Codex last pushed them (account/rateLimits/updated).
  const usage = h('p', { class: 'usage-line muted', hidden: true });
  // Beside it, the account's tokens as Codex reads them from ChatGPT (accountUsage), once per screen; nothing
  // when Codex cannot say (not signed in with ChatGPT).
  const accountTokens = h('p', { class: 'token-line muted', hidden: true });
  let tokensAsked = false;
  function askTokens() {
    if (tokensAsked || !ctx.session.connected) return;
    tokensAsked = true;
    ctx.session.request('accountUsage', {}).then((answer) => {
      const line = tokenLine(answer, localDate());
      accountTokens.hidden = !line;
      accountTokens.textContent = line || '';
    }, () => {});
  }
  const main = h('main', { class: 'list-main' }, ctx.banner, notify.el, needsYou, searchBar, filter.el, away.el, refreshing, list, empty, more, archived.el, usage, accountTokens);
  const el = h('div', { class: 'screen threads-screen' }, head.el, main, h('div', { class: 'fab-bar' }, newButton));

  function row([t, depth]) {
    const [cls, label] = (depth && subAgentOf(t)) || stateOf(store, t);
    const pending = unanswered(t, KINDS.approval);
    const where = displayPath(t.cwd, rootsFor(t, ctx.session.policy.roots));
    const title = depth ? `${agentName(t.agentNickname, t.agentRole)}: ${threadTitle(t) || 'sub-agent'}` : threadTitle(t) || '(no prompt yet)';
    const line = snippetOf(t) || rowPreview(t);
    return h('li', { class: depth ? 'sub-agent-row' : null }, h('a', { class: `thread-row ${cls}`, href: `#/t/${encodeURIComponent(t.id)}` },
      h('div', { class: 'row-top' },
        h('span', { class: 'row-title', text: title }),
        goalChip(t.goal),
        pending ? h('span', { class: 'badge', text: pending === 1 ? '1 approval' : `${pending} approvals` }) : null),
      line ? h('p', { class: ['row-answer', snippetOf(t) && 'row-snippet'], text: line }) : null,
      h('div', { class: 'row-meta' },
        machineChip(t),
        h('span', { class: `state ${cls}` }, h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }), label),
        where ? h('span', { class: 'row-path', text: where }) : null,
        t.branch ? h('span', { class: 'chip row-branch', text: t.branch, attrs: { title: `Branch ${t.branch}` } }) : null,
        h('span', { class: 'row-time', text: relativeTime(t.updatedAt) }))));
  }

  function render() {
    head.setTitle(ctx.session.serverName || 'Codex');
    notify.render();
    const threads = store.list();
    refreshing.hidden = !store.listCached;
    refreshing.textContent = ctx.session.listError ? `Last known list: ${ctx.session.listError}` : 'Last known list: refreshing…';
    const query = search.value.trim().toLowerCase();
    filter.render();
    away.render();
    const waiting = pendingItems(store).length;
    needsYou.hidden = waiting === 0;
    needsYou.replaceChildren(h('span', { text: 'Needs you' }), ' ', h('span', { class: 'badge', text: waiting === 1 ? '1 waiting' : `${waiting} waiting` }));
    const shown = nestThreads(threads).filter(([t]) => shownByFilter(t) && (!query || matches(t, query) || snippetOf(t) !== null));
    list.replaceChildren(...shown.map(row));
    searchBar.hidden = threads.length === 0 && !query;
    if (query && !shown.length) list.replaceChildren(h('li', { class: 'empty', text: `No thread matches “${search.value.trim()}”.` }));
    else if (!shown.length && threads.length) list.replaceChildren(h('li', { class: 'empty', text: 'No threads on this machine yet.' }));
    empty.hidden = threads.length > 0 || !store.listLoaded;
    empty.replaceChildren(
      h('p', { class: 'empty-title', text: 'No threads yet' }),
      h('p', { text: 'Start one with New thread below: pick a folder on the workstation and tell Codex what to do.' }));
    more.hidden = !ctx.session.nextCursor;
    const used = usageLine(store.rateLimits);
    usage.hidden = !used;
    usage.textContent = used || '';
    askTokens();
    if (!store.listLoaded && !threads.length) {
      const error = ctx.session.listError;
      list.replaceChildren(error
        ? h('li', { class: 'empty' }, h('p', { text: `Could not list the threads: ${error}` }),
          h('button', { type: 'button', class: 'secondary', text: 'Try again', on: { click: () => ctx.session.refreshList() } }))
        : h('li', { class: 'empty', text: ctx.session.connected ? 'Loading threads…' : 'Waiting for the workstation…' }));
    }
  }

  /** The workstation's matching text for `t` when it found `t` for the query in the box now, else null. */
  function snippetOf(t) {
    if (!hits.query || hits.query !== search.value.trim() || !hits.snippets.has(t.id)) return null;
    return hits.snippets.get(t.id);
  }

  function matches(t, query) {
    return [t.name, t.preview, t.lastAnswer, displayPath(t.cwd, rootsFor(t, ctx.session.policy.roots)), t.agentNickname, isFleet() && machineName(machineOf(t))]
      .some((text) => typeof text === 'string' && text.toLowerCase().includes(query));
  }

  // A sub-agent's state as its parent last announced it (bridge/subAgent), once its own turn is over.
  function subAgentOf(t) {
    const parent = store.get(t.parentThreadId);
    const agent = parent && parent.subAgents && parent.subAgents.get(t.id);
    return agent && agent.status ? subAgentStatus(agent.status) : null;
  }

  more.addEventListener('click', () => ctx.session.loadMore());
  const unwatch = store.watchList(render);
  const clock = setInterval(render, 30000);
  render();
  return {
    el,
    title: () => ctx.session.serverName || 'Codex',
    reload: render,
    onStatus: render,
    onFleet: render,
    destroy() { unwatch(); clearInterval(clock); clearTimeout(searchTimer); },
  };
}
