// The changes of a thread: getDiff, shown per file; refreshed when Codex reports a new turn diff.
import { h } from './dom.js';
import { header, describeError, displayPath } from './ui.js';
import { renderDiff } from './diff-view.js';
import { gitPanel } from './git-panel.js';
import { rootsFor } from './fleet.js';

export function diffScreen(ctx, threadId) {
  const { store, session } = ctx;
  const thread = store.ensure(threadId);
  const head = header(ctx, { title: 'Changes', subtitle: displayPath(thread.cwd, rootsFor(thread, ctx.session.policy.roots)), back: () => ctx.back(`#/t/${encodeURIComponent(threadId)}`) });
  const body = h('div', { class: 'diff-host' }, h('p', { class: 'empty', text: 'Loading…' }));
  const git = gitPanel(ctx, threadId, { onCommitted: () => load() }); // branch, commit, push (git-panel.js)
  const el = h('div', { class: 'screen diff-screen' }, head.el, h('main', { class: 'diff-main' }, git.el, body));
  let timer = null;
  let alive = true;

  async function load() {
    try {
      const answer = await session.request('getDiff', { threadId });
      if (alive) body.replaceChildren(renderDiff(answer.diff || '', (path) => ctx.navigate(`#/t/${encodeURIComponent(threadId)}/file/${encodeURIComponent(path)}`)));
    } catch (err) {
      if (alive) body.replaceChildren(h('p', { class: 'empty', text: `Could not load the changes: ${describeError(err)}` }));
    }
  }
  const unwatch = store.watchThread(threadId, (change) => {
    if (change.type !== 'diff' && !(change.type === 'turnStatus')) return;
    clearTimeout(timer);
    timer = setTimeout(() => { load(); git.refresh(); }, 800);
  });
  load();
  return {
    el,
    title: () => 'Changes',
    reload() { load(); git.refresh(); },
    destroy() { alive = false; unwatch(); clearTimeout(timer); git.destroy(); },
  };
}
