// The Changes screen's git part: the branch and how far it is from its upstream, a commit message (typed, or
// written by Codex), Commit, Push and the pull request (created through gh, or the host's compare page). Every
// failure shows as one line: the bridge's own message, which names git's reason.
import { h } from './dom.js';
import { scopeAsk } from './scopes.js';

/** The bridge's one-line message for a failed request ("code: message" when it has no message). */
export function oneLine(err) {
  if (!err) return 'Something went wrong';
  const text = String(err.message || err.code || err).replace(/\s+/g, ' ').trim();
  return text || String(err.code || 'Something went wrong');
}

/** "3 changed files · 2 ahead, 1 behind origin/main" */
export function describeStatus(status) {
  const parts = [];
  const n = (status.files || []).length;
  parts.push(n === 0 ? 'No changes' : `${n}${status.truncated ? '+' : ''} changed file${n === 1 ? '' : 's'}`);
  if (status.upstream) {
    const where = [];
    if (status.ahead) where.push(`${status.ahead} ahead`);
    if (status.behind) where.push(`${status.behind} behind`);
    parts.push(where.length ? `${where.join(', ')} ${status.upstream}` : `up to date with ${status.upstream}`);
  } else if (status.branch) {
    parts.push(Array.isArray(status.remotes) && !status.remotes.length ? 'no remote' : 'not pushed yet');
  }
  return parts.join(' · ');
}

/** Branches a pull request is not made from (the usual default branches). */
const DEFAULT_BRANCHES = new Set(['main', 'master', 'trunk']);

/**
 * Which step means something now, leading from commit to push to the pull request (issue 37 item 7):
 * `{push: {enabled, label, remote?}, pullRequest: bool, next: text, noRemote?}`. Push only with something to push
 * (no upstream yet, or commits ahead); the pull request only once the branch is pushed whole and is not a default
 * branch. A branch with no upstream goes to `origin`, else to the one remote there is (`push.remote`, sent with
 * the push); with none (`remotes: []`, a repository made with `git init`) nothing can be pushed: `noRemote`, and
 * the panel says how to add one. A bridge that does not list `remotes` is taken to have `origin`.
 */
export function gitSteps(status) {
  const changed = (status.files || []).length > 0;
  const ahead = status.ahead || 0;
  const remotes = Array.isArray(status.remotes) ? status.remotes : null;
  const target = status.upstream || !remotes || remotes.includes('origin') ? 'origin' : remotes[0];
  if (!status.upstream && !target) {
    return { push: { enabled: false, label: 'Push' }, pullRequest: false, next: '', noRemote: true };
  }
  const unpushed = !!status.branch && (!status.upstream || ahead > 0);
  const pullRequest = !!status.branch && !!status.upstream && ahead === 0 && !DEFAULT_BRANCHES.has(status.branch);
  let next = '';
  if (!changed && status.branch) {
    if (!status.upstream) next = `Next: Push to ${target} publishes ${status.branch}.`;
    else if (ahead > 0) next = `Next: Push sends ${ahead} commit${ahead === 1 ? '' : 's'} to ${status.upstream}.`;
    else if (pullRequest) next = 'Next: open a pull request for this branch.';
    else next = 'Nothing to commit or push.';
  }
  const push = { enabled: unpushed, label: status.upstream ? 'Push' : `Push to ${target}` };
  if (!status.upstream && target !== 'origin') push.remote = target;
  return { push, pullRequest, next };
}

/** How to give a repository a remote, in one sentence (the command as code). */
export function noRemoteHelp() {
  return ['This repository has no remote to push to: on the workstation, run ', h('code', { text: 'git remote add origin URL' }),
    ' with the URL of an empty repository (on GitHub, say), then Push.'];
}

/**
 * Which repository a commit goes to: "Repository /home/ana/src/app", or for a linked worktree
 * "Worktree /home/ana/src/app.worktrees/fix of /home/ana/src/app": words and paths (text nodes and <code>, so a
 * long path may break anywhere and a word never does; the paths are the workstation's, shown as text).
 */
export function describeRepository(status) {
  const repository = status.repository || status.root || '';
  const parts = status.root && repository !== status.root ? ['Worktree ', status.root, ' of ', repository] : ['Repository ', repository];
  return parts.map((part, i) => (i % 2 ? h('code', { text: part }) : part));
}

/**
 * gitPanel(ctx, threadId, {onCommitted}) → {el, refresh(), destroy()}. Hidden while the thread's folder is not
 * in a git repository. `onCommitted` runs after a commit (the diff below it changed).
 */
export function gitPanel(ctx, threadId, { onCommitted } = {}) {
  const { session } = ctx;
  let status = null;
  let busy = false;
  let alive = true;

  const branch = h('p', { class: 'git-branch' });
  const summary = h('p', { class: 'git-summary' });
  const where = h('p', { class: 'git-repository' });
  // data-scope: what a device without the scope does not see (app.css): committing needs operate, pushing publish.
  const message = h('textarea', { class: 'git-message', rows: 3, dataset: { scope: 'operate' }, placeholder: 'Summary line, blank line, details', attrs: { 'aria-label': 'Commit message', autocomplete: 'off' } });
  const write = h('button', { type: 'button', class: 'secondary', text: 'Write with Codex' });
  const commit = h('button', { type: 'button', class: 'primary', text: 'Commit' });
  const push = h('button', { type: 'button', class: 'secondary', text: 'Push', dataset: { scope: 'publish' } });
  const pullRequest = h('button', { type: 'button', class: 'secondary', hidden: true, text: 'Create pull request', dataset: { scope: 'publish' } });
  const compare = h('a', { class: 'secondary link-button', hidden: true, text: 'Open compare page', attrs: { target: '_blank', rel: 'noopener noreferrer' } });
  const error = h('p', { class: 'git-error', hidden: true, attrs: { role: 'alert' } });
  const done = h('p', { class: 'git-done', hidden: true, attrs: { 'aria-live': 'polite' } });
  const next = h('p', { class: 'git-next', hidden: true });
  const letCodex = h('button', { type: 'button', class: 'secondary', hidden: true, text: 'Let Codex commit', dataset: { scope: 'operate' } });
  const el = h('section', { class: 'git-panel', hidden: true, attrs: { 'aria-label': 'Git' } },
    h('div', { class: 'git-head' }, branch, summary, where),
    h('label', { class: 'git-label', text: 'Commit message', htmlFor: 'git-message', dataset: { scope: 'operate' } }),
    message,
    h('div', { class: 'git-actions', dataset: { scope: 'operate' } }, write, commit),
    h('div', { class: 'git-actions' }, push, pullRequest, compare),
    // Without publish: what this phone may not do, and Ask the workstation (issue 37 item 1).
    scopeAsk((kind, fields) => session.request(kind, fields), 'publish'),
    error, letCodex, done, next);
  message.id = 'git-message';

  function showError(err, { commitRefused = false } = {}) {
    error.textContent = oneLine(err);
    error.hidden = false;
    done.hidden = true;
    // A hook the user relies on (or a filter program): Codex commits in its sandbox instead, in a normal turn.
    letCodex.hidden = !(commitRefused && err && err.code === 'unsafe_repository');
  }

  function showDone(text) {
    error.hidden = true;
    letCodex.hidden = true;
    done.textContent = text;
    done.hidden = false;
  }

  function render() {
    if (!status) return;
    el.hidden = false;
    branch.textContent = status.branch ? status.branch : `Detached at ${String(status.head || '').slice(0, 7) || 'no commit'}`;
    branch.classList.toggle('detached', !status.branch);
    summary.textContent = describeStatus(status);
    where.replaceChildren(...describeRepository(status));
    const changed = (status.files || []).length > 0;
    commit.disabled = busy || !changed;
    write.disabled = busy || !changed;
    const steps = gitSteps(status);
    push.disabled = busy || !steps.push.enabled;
    push.textContent = steps.push.label;
    pullRequest.hidden = !steps.pullRequest || status.pullRequest !== 'gh';
    pullRequest.disabled = busy;
    compare.hidden = !steps.pullRequest || status.pullRequest !== 'compare' || !status.compareUrl;
    if (steps.noRemote) next.replaceChildren(...noRemoteHelp());
    else next.textContent = steps.next;
    // How to add a remote is for a device that may push; one that may not is told that (scopeAsk) instead.
    if (steps.noRemote) next.dataset.scope = 'publish';
    else delete next.dataset.scope;
    next.hidden = steps.noRemote ? !error.hidden : !steps.next; // once: a refused push already says it
    if (status.compareUrl) compare.href = status.compareUrl;
  }

  async function refresh() {
    try {
      const next = await session.request('gitStatus', { threadId });
      if (!alive) return;
      status = next;
      render();
    } catch (err) {
      if (!alive) return;
      status = null;
      // Not a repository (or no git): no panel. Anything else is worth a line.
      el.hidden = err.code === 'bad_request' || (err.code === 'failed' && /not installed/.test(err.message || ''));
      if (!el.hidden) showError(err);
    }
  }

  async function act(button, work) {
    busy = true;
    render();
    button.setAttribute('aria-busy', 'true');
    try { await work(); }
    finally {
      busy = false;
      button.removeAttribute('aria-busy');
      if (alive) render();
    }
  }

  write.addEventListener('click', () => act(write, async () => {
    const before = write.textContent;
    write.textContent = 'Writing…';
    try {
      const answer = await session.request('gitCommitMessage', { threadId });
      message.value = answer.message || '';
      error.hidden = true;
      message.focus();
    } catch (err) { showError(err); }
    finally { write.textContent = before; }
  }));

  commit.addEventListener('click', () => act(commit, async () => {
    const text = message.value.trim();
    if (!text) { showError({ message: 'Write a commit message first (or tap Write with Codex).' }); message.focus(); return; }
    try {
      const answer = await session.request('gitCommit', { threadId, message: text });
      message.value = '';
      showDone(`Committed ${String(answer.sha).slice(0, 7)} on ${answer.branch || 'a detached HEAD'}.`);
      await refresh();
      if (onCommitted) onCommitted();
    } catch (err) { showError(err, { commitRefused: true }); }
  }));

  letCodex.addEventListener('click', () => act(letCodex, async () => {
    const text = message.value.trim();
    const ask = text ? `Commit all the current changes with this commit message:\n\n${text}` : 'Commit all the current changes with a good commit message.';
    try {
      await session.request('sendMessage', { threadId, text: ask });
      ctx.navigate(`#/t/${encodeURIComponent(threadId)}`);
    } catch (err) { showError(err); }
  }));

  push.addEventListener('click', () => act(push, async () => {
    const to = status ? gitSteps(status).push.remote : undefined;
    try {
      const answer = await session.request('gitPush', { threadId, ...(status && status.upstream ? {} : { setUpstream: true }), ...(to ? { remote: to } : {}) });
      showDone(`Pushed to ${answer.remote}/${answer.branch}.`);
      await refresh();
    } catch (err) {
      showError(err);
      // Removed at the workstation since the panel was drawn: say how to add one, not only that there is none.
      if (err && err.code === 'no_remote') { error.replaceChildren(...noRemoteHelp()); await refresh(); }
    }
  }));

  pullRequest.addEventListener('click', () => act(pullRequest, async () => {
    const title = message.value.trim().split('\n')[0] || (status && status.branch) || 'Changes';
    const body = message.value.trim().split('\n').slice(1).join('\n').trim();
    try {
      const answer = await session.request('gitPullRequest', { threadId, title, ...(body ? { body } : {}) });
      error.hidden = true;
      done.replaceChildren(answer.created ? 'Pull request created: ' : 'Open the page to create it: ',
        h('a', { href: answer.url, text: answer.url, attrs: { target: '_blank', rel: 'noopener noreferrer' } }));
      done.hidden = false;
    } catch (err) { showError(err); }
  }));

  refresh();
  return { el, refresh, destroy() { alive = false; } };
}
