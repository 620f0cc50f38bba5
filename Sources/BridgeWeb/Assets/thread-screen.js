// One thread as it streams: turns and their items, approval cards, the composer (Send steers a running turn),
// Stop. The store tells it what changed; it appends and updates nodes, never re-rendering the whole thread
// except when the store replaces its picture (a readThread snapshot).
import { h, icon } from './dom.js';
import { header, menuButton, toast, displayPath, describeError } from './ui.js';
import { itemView } from './item-views.js';
import { approvalCard } from './approval-card.js';
import { questionCard } from './question-card.js';
import { attachments } from './attachments.js';
import { mentionPicker } from './mention-picker.js';
import { failureTitle, describeUsage } from './thread-extras.js';
import { renderChanges } from './diff-view.js';
import { commandCard } from './command-card.js';
import { oneLine } from './git-panel.js';
import { planChecklist, planToggle, modeFor } from './plan-view.js';
import { goalLine, goalForm } from './goal-view.js';
import { subAgentPanel } from './subagents.js';
import { applySnapshotTools } from './thread-tools.js';
import { renameForm, archiveThread } from './thread-manage.js';
import { compactThread, deleteForm, settingsForm } from './thread-housekeeping.js';
import { userText } from './threads.js';
import { contextMeter } from './context-meter.js';
import { rootsFor, watchFleet, isHome, machineOf } from './fleet.js';
import { whereLine, machineNote } from './fleet-view.js';
import { scopeAsk } from './scopes.js';
import { previewSheet, openPreview } from './preview.js';

const TURN_LABELS = { interrupted: 'Stopped', failed: 'Failed' };

export function threadScreen(ctx, threadId) {
  const { store, conn } = ctx;
  const thread = store.ensure(threadId);
  // Diff and Review live in a menu: the header keeps its room for the thread's title.
  const openDiff = () => ctx.navigate(`#/t/${encodeURIComponent(threadId)}/diff`);
  // Review: Codex reviews the folder's uncommitted changes as a new turn (startReview).
  let reviewing = false;
  async function startReview() {
    if (reviewing) return;
    reviewing = true;
    menu.setDisabled('Review', true);
    try { await conn.request('startReview', { threadId, target: 'uncommitted' }); stuck = true; }
    catch (err) { toast(`No review: ${describeError(err)}`); }
    finally { reviewing = false; menu.setDisabled('Review', false); }
  }
  const menu = menuButton({ label: 'More', items: [
    { label: 'Diff', onSelect: openDiff, title: 'The changes in this folder' },
    { label: 'Preview', onSelect: () => { closeSheets(); previewer.open(); sheetShown(); }, title: 'See the workstation\'s dev server of this thread', scope: 'operate' },
    { label: 'Review', onSelect: startReview, title: 'Codex reviews the uncommitted changes', scope: 'operate' },
    // Goal: Codex works towards an objective in turns of its own (setGoal / clearGoal).
    { label: 'Goal', onSelect: () => { closeSheets(); goalEditor.toggle(thread.goal); }, title: 'Set or clear the thread\'s goal', scope: 'operate' },
    { label: 'Settings', onSelect: () => { closeSheets(); settings.open(thread); sheetShown(); }, title: 'Model, effort and approvals for the next turns', scope: 'operate' },
    { label: 'Compact', onSelect: compact, title: 'Codex summarises the conversation to free its context', scope: 'operate' },
    { label: 'Rename', onSelect: () => { closeSheets(); renamer.open(thread.name || thread.preview); sheetShown(); }, title: 'Give the thread a name', scope: 'operate' },
    { label: 'Archive', onSelect: archive, title: 'Take the thread out of the list', scope: 'operate' },
    { label: 'Delete', onSelect: () => { closeSheets(); deleter.open(); sheetShown(); }, title: 'Remove the thread for good', scope: 'operate' },
  ] });
  let deleted = false; // once: the answer and Codex's thread/deleted both say so
  const closeSheets = () => { goalEditor.close(); renamer.close(); settings.close(); deleter.close(); previewer.close(); };
  const previewer = previewSheet({ request: (kind, fields) => conn.request(kind, { threadId, ...fields }) });
  async function compact() {
    stuck = true;
    await compactThread({ request: (kind, fields) => conn.request(kind, { threadId, ...fields }) });
  }
  async function archive() {
    if (await archiveThread({ request: (kind, fields) => conn.request(kind, { threadId, ...fields }), store, thread })) ctx.back('#/');
  }
  const head = header(ctx, { title: '', back: () => ctx.back('#/'), actions: [menu.el] });
  const goal = goalLine();
  const meter = contextMeter();
  // Goal and Rename open at the end of the thread, above the composer: the view goes there, and stays at the end
  // when they close.
  const sheetShown = () => scrollToEnd(false);
  const sheetHidden = () => { if (stuck) scrollToEnd(false); };
  const goalEditor = goalForm({
    request: (kind, fields) => conn.request(kind, { threadId, ...fields }),
    onError: (err) => toast(`Goal not changed: ${describeError(err)}`),
    onShow: sheetShown,
    onHide: sheetHidden,
  });
  const renamer = renameForm({
    request: (kind, fields) => conn.request(kind, { threadId, ...fields }),
    onRenamed(name) { thread.name = name; renderHeader(); store.listChanged(); sheetHidden(); },
  });
  const deleter = deleteForm({
    request: (kind, fields) => conn.request(kind, { threadId, ...fields }),
    onDeleted() { deleted = true; store.forget(threadId); toast('Thread deleted.'); ctx.back('#/'); },
  });
  const settings = settingsForm({
    request: (kind, fields) => conn.request(kind, { threadId, ...fields }),
    models: () => conn.request('listModels', {}).then((a) => a.models || []),
    onSaved() { toast('Settings saved for the next turns.'); sheetHidden(); },
  });
  const subAgents = subAgentPanel();
  const conversation = h('div', { class: 'conversation', attrs: { 'aria-live': 'off' } });
  const placeholder = h('p', { class: 'empty', text: 'Loading…' });
  const jump = h('button', { type: 'button', class: 'jump', hidden: true, attrs: { 'aria-label': 'Jump to latest' }, on: { click: () => scrollToEnd(true) } }, icon('down'));

  const input = h('textarea', { class: 'composer-input', rows: 1, placeholder: 'Message Codex', attrs: { 'aria-label': 'Message', enterkeyhint: 'send', autocomplete: 'off' } });
  const send = h('button', { type: 'submit', class: 'send', attrs: { 'aria-label': 'Send' } }, icon('send'));
  const stop = h('button', { type: 'button', class: 'stop', hidden: true, attrs: { 'aria-label': 'Stop' } }, icon('stop'));
  // While a turn runs, Queue holds the message until it ends instead of steering the turn with it.
  const queueToggle = h('button', { type: 'button', class: 'queue-toggle', hidden: true, text: 'Queue', attrs: { 'aria-pressed': 'false', title: 'Send after the running turn ends' } });
  queueToggle.addEventListener('click', () => queueToggle.setAttribute('aria-pressed', String(queueToggle.getAttribute('aria-pressed') !== 'true')));
  const queuedList = h('ul', { class: 'queued-list', hidden: true, attrs: { 'aria-label': 'Waiting to be sent' } });
  // Plan: the next message runs in plan mode (the thread remembers it; off again sends it in default mode).
  const plan = planToggle();
  const attached = attachments(() => ctx.token && ctx.token(), (text) => toast(text));
  input.addEventListener('paste', attached.onPaste);
  const mentions = mentionPicker(input, (query) => conn.request('searchFiles', { threadId, query, limit: 8 }), () => onLayout());
  // While a turn runs Queue takes Plan's place and Stop takes Send's until there is text to send: the message box
  // keeps its width.
  const form = h('form', { class: 'composer' }, queuedList, mentions.el, attached.tray, attached.file, attached.button, plan.el, queueToggle, input, stop, send);

  const announcer = h('div', { class: 'visually-hidden', attrs: { 'aria-live': 'polite' } }); // for screen readers
  const machine = machineNote(thread); // its machine unreachable (issue 33)
  const main = h('main', { class: 'thread-main' }, machine.el, goal.el, meter.el, subAgents.el, placeholder, conversation);
  const sheets = h('div', { class: 'thread-sheets' }, goalEditor.el, renamer.el, settings.el, deleter.el, previewer.el);
  // Without `operate` the composer is hidden (app.css) and this says why.
  const watchOnly = h('p', { class: 'scope-note', dataset: { needs: 'operate' }, text: 'This device can follow threads but not drive them (it lacks the operate scope).' });
  const el = h('div', { class: 'screen thread-screen' }, head.el, main, sheets, jump, form, watchOnly, announcer);
  const announce = (text) => { announcer.textContent = text; };

  const views = new Map(); // itemId -> view
  const turnEls = new Map(); // turnId -> {el, items, footer}
  const cards = new Map(); // approvalId or requestId -> card
  const commandCards = new Map(); // runId -> card (`!commands`, command-card.js)
  const pendingEls = h('div', { class: 'pending-list' }); // messages sent while the workstation cannot be reached
  let stuck = true;
  // The bridge cannot be reached (the connection gave up a few attempts): nothing known runs, nothing can stop.
  let unreachable = !!(conn && conn.status === 'offline');

  // -- scrolling -----------------------------------------------------------------------------------------
  const atBottom = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120;
  let layoutQueued = false;
  function onLayout() {
    if (layoutQueued) return;
    layoutQueued = true;
    requestAnimationFrame(() => {
      layoutQueued = false;
      if (stuck) scrollToEnd(false);
      else jump.hidden = false;
    });
  }
  function scrollToEnd(smooth) {
    const still = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    window.scrollTo({ top: document.documentElement.scrollHeight, behavior: smooth && !still ? 'smooth' : 'auto' });
    stuck = true;
    jump.hidden = true;
  }
  const onScroll = () => { stuck = atBottom(); if (stuck) jump.hidden = true; };
  window.addEventListener('scroll', onScroll, { passive: true });

  // -- rendering -----------------------------------------------------------------------------------------
  const itemCtx = { threadId, onLayout, cwd: () => thread.cwd, implementPlan,
    approveDenied: (reviewId) => conn.request('approveDeniedAction', { threadId, reviewId }), deviceId: () => ctx.deviceId() };
  // "Implement this plan": the follow-up runs in default mode, and the thread stays there.
  async function implementPlan() {
    stuck = true;
    try {
      await conn.request('sendMessage', { threadId, text: 'Implement the plan.', collaborationMode: 'default' });
      thread.collaborationMode = 'default';
      plan.set(false);
    } catch (err) {
      toast(`Not sent: ${describeError(err)}`);
      throw err;
    }
  }
  const cardCtx = {
    get deviceId() { return ctx.deviceId(); },
    roots: () => rootsFor(thread, ctx.policy().roots),
    decide: (approval, decision) => conn.request('approve', { approvalId: approval.approvalId, decision }),
    answer: (question, fields) => conn.request('answerInput', { requestId: question.requestId, ...fields }),
    itemChanges: (approval) => {
      const entry = approval.itemId && thread.itemMap.get(approval.itemId);
      const changes = entry && entry.item.changes;
      return changes && changes.length ? renderChanges(changes, thread.cwd, { openSmall: true }) : null;
    },
  };

  function turnEl(turn) {
    let t = turnEls.get(turn.id);
    if (!t) {
      const items = h('div', { class: 'turn-items' });
      const footer = h('div', { class: 'turn-footer' });
      const checklist = planChecklist();
      checklist.el.hidden = !turn.plan;
      if (turn.plan) checklist.update(turn.plan);
      // The plan follows the message that started the turn (addItem puts that message before it).
      items.append(checklist.el);
      t = { el: h('section', { class: 'turn', dataset: { turnId: turn.id } }, items, footer), items, footer, checklist, started: false };
      turnEls.set(turn.id, t);
      conversation.insertBefore(t.el, pendingEls.parentNode === conversation ? pendingEls : null);
    }
    return t;
  }

  function turnStatus(turn) {
    const t = turnEl(turn);
    t.el.classList.toggle('running', !['completed', 'interrupted', 'failed'].includes(turn.status));
    t.footer.replaceChildren();
    const waiting = t.el.classList.contains('running') && waitingFor(turn);
    if (waiting) t.footer.append(h('span', { class: 'waiting-on-you' }, h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }), waiting));
    else if (t.el.classList.contains('running') && unreachable) {
      t.footer.append(h('span', { class: 'unreachable', text: 'Workstation unreachable: what Codex does meanwhile shows when it is back.' }));
    }
    else if (t.el.classList.contains('running')) {
      const restarting = typeof turn.shuttingDown === 'number'
        ? `The workstation is restarting: Codex has ${Math.round(turn.shuttingDown)} s to finish…` : 'Working…';
      t.footer.append(h('span', { class: 'working' }, h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }), restarting));
    }
    else if (TURN_LABELS[turn.status] || turn.error) {
      t.footer.append(h('span', { class: `turn-end ${turn.status}`, text: `${failureTitle(turn, TURN_LABELS[turn.status] || 'Error')}${turn.error ? `: ${turn.error}` : ''}` }));
      // A usage limit: what is left, on request (Codex's own answer, or its reason why it cannot say).
      if (turn.errorKind === 'usageLimitExceeded') t.footer.append(usageButton());
      // Cut short by the bridge's restart: the same message again, in one tap.
      if (turn.errorKind === 'workstationRestarted') { const retry = retryButton(turn); if (retry) t.footer.append(retry); }
    }
  }

  /** Sends the message that started `turn` again (its text; attachments are not sent twice). */
  function retryButton(turn) {
    const first = turn.items.map((id) => thread.itemMap.get(id)).find((x) => x && x.item.type === 'userMessage');
    const text = first ? userText(first.item) : '';
    if (!text) return null;
    const b = h('button', { type: 'button', class: 'text-button retry', text: 'Retry' });
    b.addEventListener('click', async () => {
      b.disabled = true;
      try { await conn.request('sendMessage', { threadId, text }); b.remove(); }
      catch (err) { b.disabled = false; toast(`Could not send it again: ${describeError(err)}`); }
    });
    return b;
  }

  /** What a running turn waits for from a person (an approval, an answer), or null while Codex works. */
  function waitingFor(turn) {
    const open = (ids, map) => (ids || []).some((id) => { const x = map && map.get(id); return x && !x.resolved; });
    if (open(turn.approvals, thread.approvals)) return 'Waiting for your approval';
    if (open(turn.inputs, thread.inputs)) return 'Waiting for your answer';
    return null;
  }

  function usageButton() {
    const out = h('p', { class: 'usage-text', attrs: { 'aria-live': 'polite' } });
    const b = h('button', { type: 'button', class: 'text-button', text: 'Show usage' });
    b.addEventListener('click', async () => {
      b.disabled = true;
      try { out.textContent = describeUsage((await conn.request('usage', {})).rateLimits); }
      catch (err) { out.textContent = `Usage unknown: ${describeError(err)}`; }
      finally { b.disabled = false; }
    });
    return h('span', { class: 'usage' }, b, out);
  }

  // "Implement this plan" belongs to the thread's last turn: a later turn answered it one way or another.
  function latestPlanOnly() {
    const turns = conversation.querySelectorAll('.turn');
    const last = turns[turns.length - 1];
    for (const b of conversation.querySelectorAll('.implement-plan')) if (b.closest('.turn') !== last) b.hidden = true;
  }

  function addItem(turn, item) {
    if (views.has(item.id)) return;
    const view = itemView(item, itemCtx);
    views.set(item.id, view);
    const t = turnEl(turn);
    if (item.type === 'userMessage' && !t.started) { t.started = true; t.checklist.el.before(view.el); }
    else t.items.append(view.el);
  }

  function addCard(approval, turn) {
    if (cards.has(approval.approvalId)) return;
    const card = approvalCard(approval, cardCtx);
    cards.set(approval.approvalId, card);
    const t = turnEl(turn || { id: approval.turnId });
    const after = approval.itemId && views.get(approval.itemId);
    if (after && after.el.parentNode === t.items) after.el.after(card.el);
    else t.items.append(card.el);
  }

  function addQuestion(question, turn) {
    if (cards.has(question.requestId)) return;
    const card = questionCard(question, cardCtx);
    cards.set(question.requestId, card);
    const t = turnEl(turn || { id: question.turnId });
    const after = question.itemId && views.get(question.itemId);
    if (after && after.el.parentNode === t.items) after.el.after(card.el);
    else t.items.append(card.el);
  }

  function addCommand(run) {
    if (commandCards.has(run.runId)) return;
    const card = commandCard(run, { stop: (r) => conn.request('stopCommand', { threadId, runId: r.runId }), onLayout, preview: (port) => openPreview((kind, fields) => conn.request(kind, { threadId, ...fields }), port) });
    commandCards.set(run.runId, card);
    conversation.insertBefore(card.el, pendingEls.parentNode === conversation ? pendingEls : null);
  }

  function renderQueue() {
    const queued = [...(thread.queued || new Map()).values()];
    queuedList.replaceChildren(...queued.map((q) => h('li', { class: 'queued', dataset: { queuedId: q.queuedId } },
      h('span', { class: 'queued-label', text: 'Queued' }),
      h('span', { class: 'queued-text', text: String(q.text || '') }),
      h('button', { type: 'button', class: 'text-button', text: 'Cancel', attrs: { 'aria-label': `Cancel queued: ${String(q.text || '').slice(0, 40)}` },
        on: { click: async (e) => {
          e.currentTarget.disabled = true;
          try { await conn.request('cancelQueued', { threadId, queuedId: q.queuedId }); }
          catch (err) { if (err.code !== 'not_found') toast(describeError(err)); }
        } } }))));
    queuedList.hidden = queued.length === 0;
  }

  function renderAll() {
    conversation.replaceChildren();
    views.clear();
    turnEls.clear();
    cards.clear();
    commandCards.clear();
    for (const turn of thread.turns) {
      turnEl(turn);
      for (const id of turn.items) {
        const entry = thread.itemMap.get(id);
        if (entry) addItem(turn, entry.item);
      }
      for (const aid of turn.approvals || []) {
        const a = thread.approvals.get(aid);
        if (a) addCard(a, turn);
      }
      for (const rid of turn.inputs || []) {
        const q = thread.inputs && thread.inputs.get(rid);
        if (q) addQuestion(q, turn);
      }
      turnStatus(turn);
    }
    for (const run of (thread.commands || new Map()).values()) addCommand(run);
    conversation.append(pendingEls);
    placeholder.hidden = thread.turns.length > 0 || !thread.loaded;
    if (thread.loaded && !thread.turns.length) placeholder.textContent = 'No messages yet.';
    renderHeader();
    renderQueue();
    subAgents.update(thread, store);
    plan.set(thread.collaborationMode === 'plan');
    latestPlanOnly();
    scrollToEnd(false);
  }

  function renderHeader() {
    head.setTitle(thread.name || thread.preview || 'Thread');
    document.title = `${thread.name || thread.preview || 'Thread'} · Codex Bridge`;
    head.setSubtitle(whereLine(thread, displayPath(thread.cwd, rootsFor(thread, ctx.policy().roots))));
    machine.update();
    attached.button.hidden = !isHome(machineOf(thread)); // a photo is uploaded to this bridge: not for another machine's thread
    goal.update(thread.goal);
    meter.update(thread.tokenUsage);
    const running = store.isRunning(thread);
    queueToggle.hidden = !running;
    menu.setHidden('Review', running);
    plan.el.hidden = running; // a running turn keeps its mode; Queue takes the room
    el.classList.toggle('running', running);
    renderActions();
  }

  /** Stop while a turn runs and the box is empty, else Send (one place, so the box keeps its width). */
  function renderActions() {
    const stopping = store.isRunning(thread) && !input.value.trim() && !unreachable;
    stop.hidden = !stopping;
    send.hidden = stopping;
  }

  // A card added or answered changes what its turn's footer says (working, or waiting for a person).
  function statusOf(turnId, known) {
    const turn = known || thread.turnMap.get(turnId);
    if (turn && turnEls.has(turn.id)) turnStatus(turn);
  }

  const unwatchFleet = watchFleet(() => renderHeader());
  const unwatch = store.watchThread(threadId, (change) => {
    switch (change.type) {
      case 'reset': renderAll(); return;
      case 'turn': placeholder.hidden = true; turnEl(change.turn); turnStatus(change.turn); latestPlanOnly(); break;
      case 'turnStatus':
        turnStatus(change.turn);
        if (change.turn.status === 'completed') announce('Codex finished.');
        else if (TURN_LABELS[change.turn.status]) announce(`Turn ${TURN_LABELS[change.turn.status].toLowerCase()}.`);
        break;
      case 'item': placeholder.hidden = true; addItem(change.turn, change.item); break;
      case 'itemUpdate': { const v = views.get(change.item.id); if (v) v.update(change.item); break; }
      case 'delta': { const v = views.get(change.item.id); if (v) v.delta(change.field, change.delta); onLayout(); return; }
      case 'approval':
        if (change.added) { addCard(change.approval, change.turn); announce('Codex is asking for approval.'); }
        else { const c = cards.get(change.approval.approvalId); if (c) c.update(); }
        statusOf(change.approval.turnId, change.turn);
        break;
      case 'input':
        if (change.added) { addQuestion(change.input, change.turn); announce('Codex is asking a question.'); }
        else { const c = cards.get(change.input.requestId); if (c) c.update(); }
        statusOf(change.input.turnId, change.turn);
        break;
      case 'queue':
        renderQueue();
        if (change.unqueued && change.unqueued.reason === 'failed') toast(`A queued message could not start: ${change.unqueued.message || 'unknown reason'}`);
        break;
      case 'status': renderHeader(); return;
      case 'usage': meter.update(thread.tokenUsage); return;
      case 'command': {
        placeholder.hidden = true;
        const card = commandCards.get(change.run.runId);
        if (card) card.update(change);
        else addCommand(change.run);
        if (!change.run.running && !change.output) announce(`Command ${change.run.exitCode === 0 ? 'finished' : 'ended'}.`);
        return;
      }
      case 'plan': { const te = turnEl(change.turn); te.checklist.el.hidden = false; te.checklist.update(change.turn.plan); break; }
      case 'subAgents': subAgents.update(thread, store); return;
      // Deleted elsewhere (another phone, the desk): nothing left to show.
      case 'deleted': if (!deleted) { deleted = true; toast('This thread was deleted.'); ctx.back('#/'); } return;
      default: return;
    }
    renderHeader();
    onLayout();
  });

  // A sub-agent's own thread (its task, its state) changes outside this thread's events.
  const unwatchList = store.watchList(() => subAgents.update(thread, store));

  // -- composer ------------------------------------------------------------------------------------------
  function grow() {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight, 180)}px`;
  }
  input.addEventListener('input', () => { grow(); renderActions(); });
  // With a keyboard (a fine pointer), Enter sends and Shift+Enter starts a new line; on a phone Enter is a new line.
  const keyboard = window.matchMedia && window.matchMedia('(pointer: fine)').matches;
  input.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || e.isComposing) return;
    if (e.metaKey || e.ctrlKey || (keyboard && !e.shiftKey)) { e.preventDefault(); form.requestSubmit(); }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    mentions.close();
    send.disabled = true;
    input.value = '';
    grow();
    renderActions();
    stuck = true;
    // Not connected: the request waits in the connection and goes out once it is back (its id makes it count
    // once); meanwhile the message is shown as waiting.
    const waiting = ctx.connected() ? null : pendingBubble(text);
    try {
      // `!command`: run in the thread's folder, in Codex's sandbox (a live card shows it), not sent to the agent.
      if (text.startsWith('!') && text.slice(1).trim()) {
        await conn.request('runCommand', { threadId, command: text.slice(1).trim() });
        return;
      }
      const queue = !queueToggle.hidden && queueToggle.getAttribute('aria-pressed') === 'true';
      const ids = await attached.ids();
      const mode = modeFor(plan.on, thread.collaborationMode);
      await conn.request('sendMessage', { threadId, text, ...(queue ? { mode: 'queue' } : {}), ...(ids.length ? { attachments: ids } : {}), ...(mode ? { collaborationMode: mode } : {}) });
      if (mode) thread.collaborationMode = mode;
      attached.clear();
    } catch (err) {
      if (!input.value) input.value = text;
      grow();
      renderActions();
      // A scope this phone lacks (`!ls` without run): say so where the message was, with Ask the workstation.
      if (err && err.code === 'forbidden' && err.scope && !sheets.querySelector(`.scope-ask[data-needs="${err.scope}"]`)) {
        sheets.append(scopeAsk((kind, fields) => conn.request(kind, fields), err.scope));
        sheetShown();
      } else {
        toast(`Not sent: ${text.startsWith('!') ? oneLine(err) : describeError(err)}`);
      }
    } finally {
      send.disabled = false;
      if (waiting) { waiting.remove(); onLayout(); }
    }
  });

  function pendingBubble(text) {
    const el = h('div', { class: 'pending-msg' },
      h('div', { class: 'bubble', text }),
      h('span', { class: 'pending-note', text: 'Waiting for the workstation — sent once it is back' }));
    pendingEls.append(el);
    onLayout();
    return el;
  }
  stop.addEventListener('click', async () => {
    stop.disabled = true;
    try { await conn.request('interrupt', { threadId }); }
    catch (err) { if (err.code !== 'conflict') toast(describeError(err)); }
    finally { stop.disabled = false; }
  });

  // -- loading -------------------------------------------------------------------------------------------
  let loading = false;
  function load() {
    if (thread.loaded) { renderAll(); return; }
    if (loading) return;
    loading = true;
    renderAll();
    placeholder.hidden = false;
    placeholder.textContent = 'Loading…';
    conn.request('readThread', { threadId }).then((answer) => {
      loading = false;
      store.applySnapshot(answer.thread, { seq: typeof answer.throughSeq === 'number' ? answer.throughSeq : null, requests: answer.requests });
      applySnapshotTools(store, threadId, answer);
    }).catch((err) => {
      loading = false;
      placeholder.hidden = false;
      placeholder.textContent = err.code === 'not_found' ? 'This thread does not exist on the workstation.' : `Could not load the thread: ${describeError(err)}`;
      if (thread.turns.length) placeholder.hidden = true;
    });
  }
  load();

  return {
    el,
    title: () => thread.name || thread.preview || 'Thread',
    reload() { if (!thread.loaded) load(); },
    onStatus(s) {
      const now = s === 'offline';
      if (now === unreachable) return;
      unreachable = now;
      for (const turn of thread.turns) if (turnEls.has(turn.id)) turnStatus(turn);
      renderActions();
    },
    destroy() {
      unwatch();
      unwatchFleet();
      menu.destroy();
      unwatchList();
      window.removeEventListener('scroll', onScroll);
    },
  };
}
