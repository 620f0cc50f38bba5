// Pieces every screen shares: the header (Back, title, the connection indicator), toasts, path display.
import { h, icon } from './dom.js';

/** A screen header. `back`: a function (shows a Back button); `actions`: extra nodes on the right. */
export function header(ctx, { title, subtitle, back, actions = [] }) {
  const titleEl = h('h1', { class: 'title', text: title || '', tabIndex: -1 });
  const subEl = h('p', { class: 'subtitle', text: subtitle || '', hidden: !subtitle });
  const bar = h('header', { class: 'bar' },
    back ? h('button', { type: 'button', class: 'icon-button back', attrs: { 'aria-label': 'Back' }, on: { click: back } }, icon('back')) : null,
    h('div', { class: 'titles' }, titleEl, subEl),
    ...actions,
    ctx.indicator);
  return {
    el: bar,
    setTitle(text) { titleEl.textContent = text || ''; },
    setSubtitle(text) { subEl.textContent = text || ''; subEl.hidden = !text; },
  };
}

let toastHost = null;

/** A short message at the bottom of the screen (role=alert: the status role belongs to the indicator). */
export function toast(text, { ms = 4000 } = {}) {
  if (!toastHost) {
    toastHost = h('div', { class: 'toasts' });
    document.body.append(toastHost);
  }
  const t = h('div', { class: 'toast', attrs: { role: 'alert' }, text });
  toastHost.append(t);
  setTimeout(() => t.remove(), ms);
}

/** A thread's cwd shown relative to the bridge root that holds it ("app/src"), else with ~ for home. */
export function displayPath(cwd, roots) {
  if (!cwd) return '';
  for (const root of roots || []) {
    const r = root.replace(/\/+$/, '');
    if (cwd === r) return basename(r) || r;
    if (cwd.startsWith(`${r}/`)) return `${basename(r)}/${cwd.slice(r.length + 1)}`;
  }
  return cwd.replace(/^\/home\/[^/]+/, '~').replace(/^\/root(?=\/|$)/, '~');
}

export function basename(path) {
  const parts = String(path).replace(/\/+$/, '').split('/');
  return parts[parts.length - 1] || '/';
}

export function describeError(err) {
  if (!err) return 'Something went wrong';
  const messages = {
    forbidden_path: 'That folder is outside what the bridge allows',
    forbidden: 'The bridge does not allow that setting',
    codex_unavailable: 'Codex is not running on the workstation',
    not_found: 'Not found',
    conflict: 'Nothing to stop',
    rate_limited: 'Too many requests; try again in a moment',
    timeout: 'The workstation did not answer in time',
  };
  return messages[err.code] ? `${messages[err.code]}${err.code === 'codex_unavailable' && err.message ? `: ${err.message}` : ''}` : (err.message || String(err));
}

/** A command as a person would type it: Codex wraps commands in `/bin/bash -lc '…'`; show what is inside. */
export function displayCommand(command) {
  const text = String(command || '');
  const single = /^(?:\/usr)?\/bin\/(?:ba|z)?sh -l?c '((?:[^']|'\\'')*)'$/s.exec(text);
  if (single) return single[1].replace(/'\\''/g, "'");
  const double = /^(?:\/usr)?\/bin\/(?:ba|z)?sh -l?c "((?:[^"\\]|\\.)*)"$/s.exec(text);
  if (double) return double[1].replace(/\\([\\"$`])/g, '$1');
  return text;
}
