// The archived threads, on request at the end of the thread list (`listThreads {archived: true}`), each with
// Unarchive (`unarchiveThread`), which puts it back in the list.
import { h } from './dom.js';
import { displayPath, toast, describeError } from './ui.js';
import { threadTitle } from './thread-title.js';

export function archivedSection(ctx) {
  const toggle = h('button', { type: 'button', class: 'text-button more', text: 'Archived threads', attrs: { 'aria-expanded': 'false', 'aria-controls': 'archived-list' } });
  const list = h('ul', { class: 'thread-list archived-list', id: 'archived-list', hidden: true, attrs: { 'aria-label': 'Archived threads' } });
  const el = h('section', { class: 'archived' }, toggle, list);

  function row(entry) {
    const title = threadTitle(entry) || '(no prompt yet)';
    const unarchive = h('button', { type: 'button', class: 'secondary', text: 'Unarchive', dataset: { scope: 'operate' }, attrs: { 'aria-label': `Unarchive ${title.slice(0, 60)}` } });
    const li = h('li', { class: 'archived-row' },
      h('div', { class: 'archived-text' }, h('span', { class: 'row-title', text: title }),
        h('span', { class: 'row-path', text: displayPath(entry.cwd, ctx.session.policy.roots) })),
      unarchive);
    unarchive.addEventListener('click', async () => {
      unarchive.disabled = true;
      try {
        await ctx.session.request('unarchiveThread', { threadId: entry.threadId });
        li.remove();
        ctx.store.commit(ctx.store.ensure(entry.threadId), [{ set: { archived: false } }]);
        ctx.store.applyList([entry]);
        toast(`Unarchived “${title.slice(0, 60)}”.`);
        if (!list.children.length) close();
      } catch (err) {
        unarchive.disabled = false;
        toast(`Not unarchived: ${describeError(err)}`);
      }
    });
    return li;
  }

  async function open() {
    toggle.setAttribute('aria-expanded', 'true');
    list.hidden = false;
    list.replaceChildren(h('li', { class: 'empty', text: 'Loading archived threads…' }));
    try {
      const answer = await ctx.session.request('listThreads', { archived: true, limit: 50 });
      const threads = answer.threads || [];
      list.replaceChildren(...(threads.length ? threads.map(row) : [h('li', { class: 'empty', text: 'No archived threads.' })]));
    } catch (err) {
      list.replaceChildren(h('li', { class: 'empty', text: `Could not list the archived threads: ${describeError(err)}` }));
    }
  }

  function close() {
    toggle.setAttribute('aria-expanded', 'false');
    list.hidden = true;
  }

  toggle.addEventListener('click', () => (list.hidden ? open() : close()));
  return { el };
}
