// One view per thread item. Each returns {el, update(item), delta(field, text)}: a delta is appended to a
// text node (batched per animation frame), never re-rendering the thread; an agent message is re-rendered as
// Markdown at most a few times a second while it streams (and only while short), and once when it completes.
import { h, icon } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { userText } from './threads.js';
import { displayCommand } from './ui.js';
import { renderChanges } from './diff-view.js';
import { thumbnailFor } from './attachments.js';
import { proposedPlanView, noticeView } from './plan-view.js';
import { collabView } from './subagents.js';
import { autoReviewView } from './thread-housekeeping.js';

const LIVE_MARKDOWN_LIMIT = 24000;
const LIVE_MARKDOWN_EVERY = 350; // ms

/** Appends text to a node once per frame, however many deltas arrive. */
function appender(node) {
  let pending = '';
  let queued = false;
  return {
    push(text) {
      pending += text;
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        if (pending) { node.appendData(pending); pending = ''; }
      });
    },
    reset(text) { pending = ''; node.data = text; },
  };
}

function userView(item) {
  const text = h('div', { class: 'bubble', text: userText(item) });
  const images = (item.content || []).filter((c) => c && (c.type === 'localImage' || c.type === 'image'));
  const el = h('div', { class: 'msg user' }, images.length ? h('div', { class: 'msg-attachments' }, images.map((c) => {
    const url = thumbnailFor(c.path);
    return url ? h('img', { class: 'attachment-thumb', src: url, alt: 'Attached image' }) : h('span', { class: 'chip', attrs: { 'aria-label': 'Image attached' } }, icon('image'));
  })) : null, text);
  return { el, update(it) { text.textContent = userText(it); }, delta() {} };
}

/** A Copy button on each code block (where the Clipboard API exists: secure contexts). */
function addCopyButtons(root) {
  if (!navigator.clipboard || !window.isSecureContext) return;
  for (const pre of root.querySelectorAll('pre.code-block')) {
    const button = h('button', { type: 'button', class: 'copy', attrs: { 'aria-label': 'Copy code' } }, icon('copy'));
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(pre.textContent);
        button.replaceChildren(icon('check'));
        button.setAttribute('aria-label', 'Copied');
        setTimeout(() => { button.replaceChildren(icon('copy')); button.setAttribute('aria-label', 'Copy code'); }, 1500);
      } catch (_) { /* permission refused: nothing to do */ }
    });
    const wrap = h('div', { class: 'code-wrap' });
    pre.replaceWith(wrap);
    wrap.append(pre, button);
  }
}

const INLINE_BLOCKS = new Set(['P', 'LI', 'H2', 'H3', 'H4', 'H5', 'H6', 'CODE']);

/**
 * Where the live tail goes in the Markdown rendered so far: inside its last paragraph, list item, heading or code
 * block, so the text that streams in continues that line (a word cut by the render boundary stays whole). After a
 * line break, or after a table or a rule, it starts a line of its own after the rendered part.
 */
function tailHost(md, text) {
  if (/\n$/.test(text)) return md;
  let node = md.lastElementChild;
  while (node && ['UL', 'OL', 'BLOCKQUOTE', 'PRE', 'LI'].includes(node.tagName) && node.lastElementChild
    && (node.tagName !== 'LI' || ['UL', 'OL', 'P'].includes(node.lastElementChild.tagName))) node = node.lastElementChild;
  return node && INLINE_BLOCKS.has(node.tagName) ? node : md;
}

function agentView(item, onLayout) {
  const body = h('div', { class: 'agent-body' });
  const el = h('div', { class: 'msg agent' }, body);
  let rendered = null; // the Markdown of the text up to `renderedLength`
  let renderedLength = 0;
  const tailNode = document.createTextNode('');
  const tail = h('span', { class: 'stream-tail' }, tailNode);
  const out = appender(tailNode);
  let lastRender = 0;
  let timer = null;

  function renderNow(text) {
    clearTimeout(timer);
    timer = null;
    // Markdown drops the spaces that end a paragraph: while the answer streams they stay in the tail, in front of
    // what comes next (else the next word is glued to the last one rendered: "onetwo" until the next render, for
    // good in an answer too long to render again; issue 46 item 2).
    const rendersAs = item.done ? text : text.replace(/[ \t]+$/, '');
    const md = renderMarkdown(rendersAs);
    if (item.done) addCopyButtons(md);
    if (rendered) rendered.replaceWith(md); else body.prepend(md);
    rendered = md;
    renderedLength = text.length;
    out.reset(text.slice(rendersAs.length));
    if (!item.done) tailHost(md, rendersAs).append(tail);
    lastRender = performance.now();
    onLayout();
  }

  function final(it) {
    el.classList.remove('streaming');
    tail.remove();
    renderNow(it.text || '');
  }

  if (item.done) final(item);
  else {
    el.classList.add('streaming');
    body.append(tail);
    if (item.text) renderNow(item.text);
  }
  return {
    el,
    update(it) { if (it.done) final(it); },
    delta(_field, text) {
      if (item.done) return;
      out.push(text);
      const full = item.text || '';
      if (full.length > LIVE_MARKDOWN_LIMIT) return; // long answers stream as plain text until they complete
      if (timer) return;
      const wait = Math.max(0, LIVE_MARKDOWN_EVERY - (performance.now() - lastRender));
      timer = setTimeout(() => { timer = null; if (!item.done && item.text.length > renderedLength) renderNow(item.text); }, wait);
    },
  };
}

function reasoningText(item) {
  const parts = [...(item.summary || []), ...(item.content || [])].filter((s) => typeof s === 'string');
  return parts.length ? parts.join('\n\n') : item.liveText || '';
}

function reasoningView(item) {
  const node = document.createTextNode('');
  const out = appender(node);
  const body = h('div', { class: 'reasoning-text' });
  const el = h('details', { class: 'reasoning' }, h('summary', null, h('span', { text: 'Reasoning' })), body);
  function fill(it) {
    if (it.done) body.replaceChildren(renderMarkdown(reasoningText(it)));
    else { out.reset(reasoningText(it)); body.replaceChildren(node); }
  }
  fill(item);
  return { el, update: fill, delta(_field, text) { out.push(text); } };
}

function commandState(item) {
  if (item.status === 'declined') return ['declined', 'Declined'];
  if (typeof item.exitCode === 'number') return [item.exitCode === 0 ? 'ok' : 'failed', `exit ${item.exitCode}`];
  if (item.status === 'failed') return ['failed', 'failed'];
  if (item.done || item.status === 'completed') return ['ok', 'done'];
  return ['running', 'running'];
}

function commandView(item) {
  const chip = h('span', { class: 'chip' });
  const outNode = document.createTextNode(item.aggregatedOutput || '');
  const out = appender(outNode);
  const pre = h('pre', { class: 'output', tabIndex: 0 }, outNode);
  const cmd = h('code', { class: 'command-text', text: displayCommand(item.command) });
  const el = h('details', { class: 'command' },
    h('summary', null, h('span', { class: 'prompt', text: '$', attrs: { 'aria-hidden': 'true' } }), cmd, chip),
    pre);
  let held = false; // an approval for it waits: it is not running yet
  let last = item;
  function state(it) {
    last = it;
    const [cls, label] = commandState(it);
    const waits = held && cls === 'running';
    chip.className = `chip ${waits ? 'asks' : cls}`;
    chip.textContent = waits ? 'waiting for approval' : label;
    pre.hidden = !it.aggregatedOutput && it.done;
  }
  state(item);
  return {
    el,
    update(it) {
      cmd.textContent = displayCommand(it.command);
      if (it.done && typeof it.aggregatedOutput === 'string') out.reset(it.aggregatedOutput);
      state(it);
    },
    delta(_field, text) { pre.hidden = false; out.push(text); },
    asked(on) { held = on; state(last); },
  };
}

function fileChangeView(item, ctx) {
  const chip = h('span', { class: 'chip' });
  const host = h('div');
  const el = h('div', { class: 'file-change' },
    h('div', { class: 'file-change-head' }, icon('file'), h('span', { text: 'Changed files' }), chip),
    host,
    h('a', { class: 'link', href: `#/t/${encodeURIComponent(ctx.threadId)}/diff`, text: 'View all changes' }));
  let held = false; // an approval for it waits
  let last = item;
  function fill(it) {
    last = it;
    host.replaceChildren(renderChanges(it.changes, ctx.cwd()));
    const status = it.status || (it.done ? 'completed' : 'inProgress');
    const waits = held && status === 'inProgress';
    chip.className = `chip ${waits ? 'asks' : status === 'completed' ? 'ok' : status === 'inProgress' ? 'running' : 'failed'}`;
    chip.textContent = waits ? 'waiting for approval' : status === 'inProgress' ? 'pending' : status;
  }
  fill(item);
  return { el, update: fill, delta() {}, asked(on) { held = on; fill(last); } };
}

function otherView(item) {
  const names = { webSearch: 'Web search', mcpToolCall: 'Tool call', dynamicToolCall: 'Tool call', imageView: 'Image', contextCompaction: 'Context compacted', enteredReviewMode: 'Review started', exitedReviewMode: 'Review finished' };
  const detail = item.query || item.tool || item.server || '';
  const el = h('div', { class: 'other-item' },
    h('span', { class: 'chip', text: names[item.type] || item.type || 'item' }),
    detail ? h('span', { text: ` ${detail}` }) : null);
  return { el, update() {}, delta() {} };
}

/** A transcript part in the conversation: what the person said on the right, the voice's answer on the left,
 * each marked as spoken. */
function voiceTranscriptView(item) {
  const text = h('span', { text: item.text || '' });
  const user = item.role !== 'assistant';
  const el = h('div', { class: `msg ${user ? 'user' : 'agent'} voice-said` },
    h('div', { class: 'bubble' }, h('span', { class: 'voice-said-mark' }, icon('mic'), h('span', { class: 'visually-hidden', text: user ? 'You said: ' : 'Codex said: ' })), text));
  return { el, update(it) { text.textContent = it.text || ''; }, delta() {} };
}

export function itemView(item, ctx) {
  switch (item.type) {
    case 'userMessage': return userView(item);
    case 'agentMessage': return agentView(item, ctx.onLayout);
    case 'reasoning': return reasoningView(item);
    case 'commandExecution': return commandView(item);
    case 'fileChange': return fileChangeView(item, ctx);
    case 'plan': return proposedPlanView(item, ctx);
    case 'bridgeNotice': return noticeView(item);
    case 'autoReview': return autoReviewView(item, ctx);
    case 'collabAgentToolCall': return collabView(item);
    case 'voiceTranscript': return voiceTranscriptView(item);
    default: return otherView(item);
  }
}
