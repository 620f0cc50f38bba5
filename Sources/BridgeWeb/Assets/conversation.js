// A thread's conversation as it streams: its turns and their items, the approval and question cards, the
// `!command` cards, each turn's footer (working, waiting for you, how it ended) and the messages that wait for the
// workstation. The store's change records are applied here (`apply`): nodes are appended and updated, never the
// whole thread redrawn except when the store replaces its picture (`render`). It also keeps the view at the end
// while the person is there (`stick`, `scrollToEnd`, the Jump to latest button). A long thread comes in pages: the
// earlier turns load as the person scrolls up (`loadOlder`), and turns far from the viewport are collapsed to a
// line (turn-window.js), so the page stays small however long the thread is.
import { openPreview } from './preview.js';
import { h, icon } from './dom.js';
import { toast, describeError } from './ui.js';
import { itemView } from './item-views.js';
import { approvalCard } from './approval-card.js';
import { questionCard } from './question-card.js';
import { failureTitle, describeUsage } from './thread-extras.js';
import { renderChanges } from './diff-view.js';
import { commandCard } from './command-card.js';
import { planChecklist } from './plan-view.js';
import { userText } from './threads.js';
import { waitingFor } from './pending.js';
import { rootsFor } from './fleet.js';
import { tryWorkstation } from './try-now.js';
import { turnsToCollapse, distanceFromViewport, keepPlace, turnLine, firstDrawn, NEAR, MAX_RENDERED_ITEMS, END_ITEMS } from './turn-window.js';

export const TURN_LABELS = { interrupted: 'Stopped', failed: 'Failed' };

/**
 * session, thread: the screen's; announce(text): for screen readers; unreachable(): the workstation cannot be
 * reached (nothing known runs); implementPlan(): "Implement this plan" (plan-view.js); loadOlder(): fetches the
 * page of turns before the first one held into the store (which then emits 'older').
 */
export function conversationView({ session, thread, announce, unreachable, implementPlan, loadOlder }) {
  const threadId = thread.id;
  const el = h('div', { class: 'conversation', attrs: { 'aria-live': 'off' } });
  const placeholder = h('p', { class: 'empty', text: 'Loading…' });
  const jump = h('button', { type: 'button', class: 'jump', hidden: true, attrs: { 'aria-label': 'Jump to latest' }, on: { click: () => scrollToEnd(true) } }, icon('down'));
  const views = new Map(); // itemId -> view
  const turnEls = new Map(); // turnId -> {el, items, footer}
  const cards = new Map(); // approvalId or requestId -> card
  const commandCards = new Map(); // runId -> card (`!commands`, command-card.js)
  const pendingEls = h('div', { class: 'pending-list' }); // messages sent while the workstation cannot be reached
  let stuck = true;

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
    // A smooth scroll passes the lines above the end: more is drawn first, so they do not grow under it.
    expandTheEnd(smooth && !still ? MAX_RENDERED_ITEMS / 2 : END_ITEMS);
    window.scrollTo({ top: document.documentElement.scrollHeight, behavior: smooth && !still ? 'smooth' : 'auto' });
    stuck = true;
    jump.hidden = true;
  }
  // Once the scrolling stops, what is now far is collapsed (turn-window.js).
  let settle = 0;
  const onScroll = () => {
    stuck = atBottom();
    if (stuck) jump.hidden = true;
    clearTimeout(settle);
    settle = setTimeout(() => bound(), 250);
  };
  window.addEventListener('scroll', onScroll, { passive: true });

  // -- rendering -----------------------------------------------------------------------------------------
  const itemCtx = { threadId, onLayout, cwd: () => thread.cwd, implementPlan,
    approveDenied: (reviewId) => session.request('approveDeniedAction', { threadId, reviewId }), deviceId: () => session.deviceId };
  const cardCtx = {
    get deviceId() { return session.deviceId; },
    roots: () => rootsFor(thread, session.policy.roots),
    decide: (approval, decision) => session.request('approve', { approvalId: approval.approvalId, decision }),
    answer: (question, fields) => session.request('answerInput', { requestId: question.requestId, ...fields }),
    itemChanges: (approval) => {
      const entry = approval.itemId && thread.itemMap.get(approval.itemId);
      const changes = entry && entry.item.changes;
      return changes && changes.length ? renderChanges(changes, thread.cwd, { openSmall: true }) : null;
    },
  };

  /** A turn's element, made when new: at the end, or before `at` (an earlier page of turns). */
  function turnEl(turn, at) {
    let t = turnEls.get(turn.id);
    if (!t) {
      t = { el: h('section', { class: 'turn', dataset: { turnId: turn.id } }), collapsed: false };
      freshParts(t, turn);
      turnEls.set(turn.id, t);
      el.insertBefore(t.el, at || (pendingEls.parentNode === el ? pendingEls : null));
    }
    return t;
  }

  function freshParts(t, turn) {
    t.items = h('div', { class: 'turn-items' });
    t.footer = h('div', { class: 'turn-footer' });
    t.checklist = planChecklist();
    t.checklist.el.hidden = !turn.plan;
    if (turn.plan) t.checklist.update(turn.plan);
    // The plan follows the message that started the turn (addItem puts that message before it).
    t.items.append(t.checklist.el);
    t.started = false;
    t.el.replaceChildren(t.items, t.footer);
  }

  /** A turn's items, cards and footer from the store's picture. */
  function fillTurn(turn) {
    turnEl(turn);
    for (const id of turn.items) {
      const entry = thread.itemMap.get(id);
      if (entry) addItem(turn, entry.item);
    }
    for (const aid of turn.approvals) {
      const a = thread.approvals.get(aid);
      if (a) addApproval(a, turn);
    }
    for (const rid of turn.inputs) {
      const q = thread.inputs.get(rid);
      if (q) addQuestion(q, turn);
    }
    turnStatus(turn);
  }

  function turnStatus(turn) {
    const t = turnEl(turn);
    t.el.classList.toggle('running', !['completed', 'interrupted', 'failed'].includes(turn.status));
    t.footer.replaceChildren();
    const waiting = t.el.classList.contains('running') && waitingFor(thread, turn);
    if (waiting) t.footer.append(h('span', { class: 'waiting-on-you' }, h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }), waiting));
    else if (t.el.classList.contains('running') && unreachable()) {
      t.footer.append(h('span', { class: 'unreachable', text: 'Workstation unreachable: what Codex does meanwhile shows when it is back.' }), tryWorkstation(session));
    }
    else if (t.el.classList.contains('running')) {
      const words = h('span', { text: 'Working…' });
      if (typeof turn.shutdownAt === 'number') countdown(words, turn.shutdownAt);
      t.footer.append(h('span', { class: 'working' }, h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }), words));
    }
    else if (TURN_LABELS[turn.status] || turn.error) {
      t.footer.append(h('span', { class: `turn-end ${turn.status}`, text: `${failureTitle(turn, TURN_LABELS[turn.status] || 'Error')}${turn.error ? `: ${turn.error}` : ''}` }));
      // A usage limit: what is left, on request (Codex's own answer, or its reason why it cannot say).
      if (turn.errorKind === 'usageLimitExceeded') t.footer.append(usageButton());
      // Cut short by the bridge's restart: the same message again, in one tap.
      if (turn.errorKind === 'workstationRestarted') { const retry = retryButton(turn); if (retry) t.footer.append(retry); }
    }
  }

  // The seconds a running turn has left while the workstation restarts, counted down once a second (each
  // footer drawn anew replaces its span; a span no longer on the page drops out).
  const countdowns = new Map(); // span -> deadline (Date.now() milliseconds)
  let ticking = 0;
  function restartWords(deadline) {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    return left > 0 ? `The workstation is restarting: Codex has ${left} s to finish…` : 'The workstation is restarting: Codex is being stopped…';
  }
  function countdown(span, deadline) {
    span.textContent = restartWords(deadline);
    countdowns.set(span, deadline);
    if (ticking) return;
    ticking = setInterval(() => {
      for (const [s, at] of countdowns) {
        if (!s.isConnected) countdowns.delete(s);
        else s.textContent = restartWords(at);
      }
      if (!countdowns.size) { clearInterval(ticking); ticking = 0; }
    }, 1000);
  }

  /** Sends the message that started `turn` again (its text; attachments are not sent twice). */
  function retryButton(turn) {
    const first = turn.items.map((id) => thread.itemMap.get(id)).find((x) => x && x.item.type === 'userMessage');
    const text = first ? userText(first.item) : '';
    if (!text) return null;
    const b = h('button', { type: 'button', class: 'text-button retry', text: 'Retry' });
    b.addEventListener('click', async () => {
      b.disabled = true;
      try { await session.request('sendMessage', { threadId, text }); b.remove(); }
      catch (err) { b.disabled = false; toast(`Could not send it again: ${describeError(err)}`); }
    });
    return b;
  }

  function usageButton() {
    const out = h('p', { class: 'usage-text', attrs: { 'aria-live': 'polite' } });
    const b = h('button', { type: 'button', class: 'text-button', text: 'Show usage' });
    b.addEventListener('click', async () => {
      b.disabled = true;
      try { out.textContent = describeUsage((await session.request('usage', {})).rateLimits); }
      catch (err) { out.textContent = `Usage unknown: ${describeError(err)}`; }
      finally { b.disabled = false; }
    });
    return h('span', { class: 'usage' }, b, out);
  }

  // "Implement this plan" belongs to the thread's last turn: a later turn answered it one way or another.
  function latestPlanOnly() {
    const turns = el.querySelectorAll('.turn');
    const last = turns[turns.length - 1];
    for (const b of el.querySelectorAll('.implement-plan')) if (b.closest('.turn') !== last) b.hidden = true;
  }

  function addItem(turn, item) {
    if (views.has(item.id)) return;
    const t = turnEl(turn);
    if (t.collapsed) return; // drawn when it is expanded
    const view = itemView(item, itemCtx);
    views.set(item.id, view);
    heldByApproval(item.id);
    if (item.type === 'userMessage' && !t.started) { t.started = true; t.checklist.el.before(view.el); return; }
    // Placed before a later item shown already (readThread's voice parts, where they were said), else last.
    const at = Array.isArray(turn.items) ? turn.items.indexOf(item.id) : -1;
    const next = at < 0 ? null : turn.items.slice(at + 1).map((id) => views.get(id)).find((v) => v && v.el.parentNode === t.items);
    if (next) next.el.before(view.el);
    else t.items.append(view.el);
  }

  // A command or a file change an approval holds is not running: its chip says what it waits for.
  function heldByApproval(itemId) {
    const view = itemId && views.get(itemId);
    if (!view || !view.asked) return;
    let open = false;
    for (const a of thread.approvals.values()) if (a.itemId === itemId && !a.resolved) open = true;
    view.asked(open);
  }

  /**
   * An approval's or a question's card, after the item it is about when that is shown, else before the first item
   * its turn started after it (`beforeItemId`: a question's tool call is no item), else last.
   */
  function addCard(id, item, make, turn) {
    if (cards.has(id)) return;
    const t = turnEl(turn || { id: item.turnId });
    if (t.collapsed) return;
    const card = make(item, cardCtx);
    cards.set(id, card);
    const after = item.itemId && views.get(item.itemId);
    const before = item.beforeItemId && views.get(item.beforeItemId);
    if (after && after.el.parentNode === t.items) after.el.after(card.el);
    else if (before && before.el.parentNode === t.items) before.el.before(card.el);
    else t.items.append(card.el);
  }
  const addApproval = (approval, turn) => addCard(approval.approvalId, approval, approvalCard, turn);
  const addQuestion = (question, turn) => addCard(question.requestId, question, questionCard, turn);

  function addCommand(run) {
    if (commandCards.has(run.runId)) return;
    const card = commandCard(run, {
      stop: (r) => session.request('stopCommand', { threadId, runId: r.runId }),
      onLayout,
      preview: (port) => openPreview((kind, fields) => session.request(kind, { threadId, ...fields }), port, session.previewPort),
    });
    commandCards.set(run.runId, card);
    el.insertBefore(card.el, pendingEls.parentNode === el ? pendingEls : null);
  }

  /** The whole thread again, from the store's picture. */
  function render() {
    for (const t of turnEls.values()) if (t.collapsed) watcher.unobserve(t.el);
    el.replaceChildren(olderEl);
    olderEl.hidden = !thread.olderTurns;
    views.clear();
    turnEls.clear();
    cards.clear();
    commandCards.clear();
    // The end first: the last turns whole, the ones before as lines (drawn when the person scrolls near them).
    const first = firstDrawn(thread.turns.map((turn) => ({ items: drawnItems(turn), running: !ENDED.includes(turn.status) })));
    thread.turns.forEach((turn, i) => {
      if (i >= first) fillTurn(turn);
      else { turnEl(turn); collapse(turn); }
    });
    for (const run of thread.commands.values()) addCommand(run);
    el.append(pendingEls);
    placeholder.hidden = thread.turns.length > 0 || !thread.loaded;
    if (thread.loaded && !thread.turns.length) placeholder.textContent = 'No messages yet.';
    latestPlanOnly();
  }

  // -- a long thread: earlier pages, far turns collapsed ---------------------------------------------------
  const olderButton = h('button', { type: 'button', class: 'text-button', text: 'Show earlier turns', on: { click: () => showOlder() } });
  const olderEl = h('div', { class: 'older-turns', hidden: true }, olderButton);
  let loadingOlder = false;
  async function showOlder() {
    if (loadingOlder || !thread.olderTurns || !loadOlder) return;
    loadingOlder = true;
    olderButton.disabled = true;
    olderButton.textContent = 'Loading earlier turns…';
    let failed = false;
    try { await loadOlder(); }
    catch (err) { failed = true; toast(`Could not load earlier turns: ${describeError(err)}`); }
    loadingOlder = false;
    olderButton.disabled = false;
    olderButton.textContent = 'Show earlier turns';
    olderEl.hidden = !thread.olderTurns;
    // Still near the top (short turns): the page before too.
    if (!failed && !olderEl.hidden && distanceFromViewport(olderEl.getBoundingClientRect(), window.innerHeight) < NEAR / 2) showOlder();
  }

  /** The store added a page of earlier turns: drawn above the first, the person's place kept. */
  function showOlderTurns(turns) {
    keepPlace(el, () => {
      const first = olderEl.nextSibling;
      for (const turn of turns) { turnEl(turn, first); fillTurn(turn); }
      olderEl.hidden = !thread.olderTurns;
    });
    latestPlanOnly();
    bound();
  }

  const ENDED = ['completed', 'interrupted', 'failed'];
  const drawnItems = (turn) => turn.items.length + turn.approvals.length + turn.inputs.length;
  /** Collapses the turns farthest from the viewport while more items than the bound are drawn. */
  function bound() {
    const height = window.innerHeight;
    const entries = [];
    for (const turn of thread.turns) {
      const t = turnEls.get(turn.id);
      if (!t || t.collapsed) continue;
      entries.push({ id: turn.id, items: drawnItems(turn),
        distance: distanceFromViewport(t.el.getBoundingClientRect(), height), running: !ENDED.includes(turn.status) });
    }
    const ids = turnsToCollapse(entries);
    if (ids.length) keepPlace(el, () => { for (const id of ids) collapse(thread.turnMap.get(id)); });
  }

  function collapse(turn) {
    const t = turn && turnEls.get(turn.id);
    if (!t || t.collapsed) return;
    for (const id of turn.items) views.delete(id);
    for (const id of [...turn.approvals, ...turn.inputs]) cards.delete(id);
    t.collapsed = true;
    const first = turn.items.map((id) => thread.itemMap.get(id)).find((x) => x && x.item.type === 'userMessage');
    const line = h('button', { type: 'button', class: 'turn-line', attrs: { 'aria-expanded': 'false' },
      text: turnLine(first ? userText(first.item) : '', turn.items.length), on: { click: () => { keepPlace(el, () => expand(turn)); bound(); } } });
    t.el.classList.add('collapsed');
    t.el.replaceChildren(line);
    watcher.observe(t.el);
  }

  function expand(turn) {
    const t = turn && turnEls.get(turn.id);
    if (!t || !t.collapsed) return;
    watcher.unobserve(t.el);
    t.collapsed = false;
    t.el.classList.remove('collapsed');
    freshParts(t, turn);
    fillTurn(turn);
  }

  /** The last turns holding `items` drawn whole again (lines met on the way to the end would grow the page under the scroll). */
  function expandTheEnd(items) {
    let drawn = 0;
    for (let i = thread.turns.length - 1; i >= 0 && drawn < items; i--) {
      const turn = thread.turns[i];
      drawn += turn.items.length;
      const t = turnEls.get(turn.id);
      if (t && t.collapsed) keepPlace(el, () => expand(turn));
    }
  }

  // The way to earlier turns and the collapsed lines, as they come near the viewport.
  const watcher = new IntersectionObserver((entries) => {
    const near = entries.filter((e) => e.isIntersecting);
    if (near.some((e) => e.target === olderEl)) showOlder();
    const lines = near.map((e) => thread.turnMap.get(e.target.dataset.turnId)).filter(Boolean);
    if (!lines.length) return;
    const atEnd = stuck;
    keepPlace(el, () => { for (const turn of lines) expand(turn); });
    if (atEnd) scrollToEnd(false);
    bound();
  }, { rootMargin: `${NEAR / 2}px 0px` });
  watcher.observe(olderEl);

  // A card added or answered changes what its turn's footer says (working, or waiting for a person).
  function statusOf(turnId, known) {
    const turn = known || thread.turnMap.get(turnId);
    if (turn && turnEls.has(turn.id)) turnStatus(turn);
  }

  /** Applies one of the store's change records; true when the screen's header and layout follow. */
  function apply(change) {
    switch (change.type) {
      case 'turn': placeholder.hidden = true; turnEl(change.turn); turnStatus(change.turn); latestPlanOnly(); bound(); return true;
      case 'older': showOlderTurns(change.turns); return false;
      case 'turnStatus':
        turnStatus(change.turn);
        if (change.turn.status === 'completed') announce('Codex finished.');
        else if (TURN_LABELS[change.turn.status]) announce(`Turn ${TURN_LABELS[change.turn.status].toLowerCase()}.`);
        return true;
      case 'item': placeholder.hidden = true; addItem(change.turn, change.item); return true;
      case 'itemUpdate': { const v = views.get(change.item.id); if (v) v.update(change.item); return true; }
      case 'delta': { const v = views.get(change.item.id); if (v) v.delta(change.field, change.delta); onLayout(); return false; }
      case 'approval':
        if (change.added) { addApproval(change.approval, change.turn); announce('Codex is asking for approval.'); }
        else { const c = cards.get(change.approval.approvalId); if (c) c.update(); }
        heldByApproval(change.approval.itemId);
        statusOf(change.approval.turnId, change.turn);
        return true;
      case 'input':
        if (change.added) { addQuestion(change.input, change.turn); announce('Codex is asking a question.'); }
        else { const c = cards.get(change.input.requestId); if (c) c.update(); }
        statusOf(change.input.turnId, change.turn);
        return true;
      case 'command': {
        placeholder.hidden = true;
        const card = commandCards.get(change.run.runId);
        if (card) card.update(change);
        else addCommand(change.run);
        if (!change.run.running && !change.output) announce(`Command ${change.run.exitCode === 0 ? 'finished' : 'ended'}.`);
        return false;
      }
      case 'plan': { const te = turnEl(change.turn); te.checklist.el.hidden = false; te.checklist.update(change.turn.plan); return true; }
      default: return false;
    }
  }

  /**
   * A message sent while the workstation (or `machine`, the name of the linked machine the thread runs on) cannot
   * be reached, shown as waiting until it goes; returns its element.
   */
  function pendingBubble(text, machine) {
    const bubble = h('div', { class: 'pending-msg' },
      h('div', { class: 'bubble', text }),
      h('span', { class: 'pending-note', text: `Waiting for ${machine || 'the workstation'} — sent once it is back` }));
    pendingEls.append(bubble);
    onLayout();
    return bubble;
  }

  return {
    el,
    placeholder,
    jump,
    render,
    apply,
    pendingBubble,
    onLayout,
    scrollToEnd,
    /** Keeps the view at the end from now on (the person just sent something). */
    stick() { stuck = true; },
    get stuck() { return stuck; },
    /** The workstation became reachable or not: the running turns say so. */
    reachabilityChanged() { for (const turn of thread.turns) if (turnEls.has(turn.id)) turnStatus(turn); },
    /** Says why the thread is not shown, or hides the note (null). */
    setPlaceholder(text) { placeholder.hidden = text === null; if (text !== null) placeholder.textContent = text; },
    destroy() { window.removeEventListener('scroll', onScroll); clearTimeout(settle); clearInterval(ticking); watcher.disconnect(); },
  };
}
