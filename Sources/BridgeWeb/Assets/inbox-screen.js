// The "Needs you" screen (#/inbox, issue 33): the approvals and questions waiting across every thread and machine,
// newest first, each answerable in place with the thread's own cards; each says which thread (a link to it) and,
// with several machines, which machine. A card answered here stays, saying so, until the screen is left.
import { h, relativeTime } from './dom.js';
import { header } from './ui.js';
import { approvalCard } from './approval-card.js';
import { questionCard } from './question-card.js';
import { pendingItems } from './inbox.js';
import { rootsFor } from './fleet.js';
import { machineChip } from './fleet-view.js';
import { threadTitle } from './thread-title.js';

export function inboxScreen(ctx) {
  const { store, session } = ctx;
  const head = header(ctx, { title: 'Needs you', subtitle: 'Approvals and questions', back: () => ctx.back('#/') });
  const list = h('ul', { class: 'inbox-list', attrs: { 'aria-label': 'Waiting for an answer' } });
  const empty = h('p', { class: 'empty', text: 'Nothing waits for you.', hidden: true });
  const main = h('main', { class: 'inbox-main' }, ctx.banner, list, empty);
  const el = h('div', { class: 'screen inbox-screen' }, head.el, main);
  const shown = new Map(); // key -> {el, card, item}

  function entry({ kind, thread, item }) {
    const cardCtx = {
      get deviceId() { return ctx.session.deviceId; },
      roots: () => rootsFor(thread, ctx.session.policy.roots),
      decide: (approval, decision) => session.request('approve', { approvalId: approval.approvalId, decision }),
      answer: (question, fields) => session.request('answerInput', { requestId: question.requestId, ...fields }),
    };
    const card = kind === 'approval' ? approvalCard(item, cardCtx) : questionCard(item, cardCtx);
    const title = threadTitle(thread) || 'Thread';
    const when = item.receivedAt ? relativeTime(item.receivedAt / 1000) : '';
    const context = h('div', { class: 'inbox-context' },
      h('a', { class: 'inbox-thread', href: `#/t/${encodeURIComponent(thread.id)}`, text: title }),
      machineChip(thread),
      when ? h('span', { class: 'inbox-time', text: when }) : null);
    return { el: h('li', { class: 'inbox-item' }, context, card.el), card, item, resolved: !!item.resolved };
  }

  function render() {
    const items = pendingItems(store);
    const fresh = items.filter((x) => !shown.has(x.key));
    // New ones go on top, newest first; the rest keep their place (a half-typed answer is not moved).
    for (const x of fresh.reverse()) {
      const e = entry(x);
      shown.set(x.key, e);
      list.prepend(e.el);
    }
    // A card is redrawn only when it was answered (here or elsewhere): focus stays on its buttons meanwhile.
    for (const e of shown.values()) {
      if (!!e.item.resolved === e.resolved) continue;
      e.resolved = !!e.item.resolved;
      e.card.update();
    }
    empty.hidden = shown.size > 0;
  }

  const unwatch = store.watchList(render);
  render();
  return {
    el,
    title: () => 'Needs you',
    reload: render,
    onFleet: render,
    destroy() { unwatch(); },
  };
}
