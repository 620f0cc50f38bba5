// Pieces every screen shares: the header (Back, title, the connection indicator), a header menu, toasts,
// path display.
import { h, icon } from './dom.js';
import { machineName } from './fleet.js';

/**
 * A screen header. `back`: a function (shows a Back button); `actions`: extra nodes at the right end; `aside`: a
 * node beside the subtitle (the thread's context meter).
 */
export function header(ctx, { title, subtitle, back, actions = [], aside = null }) {
  const titleEl = h('h1', { class: 'title', text: title || '', tabIndex: -1 });
  const subEl = h('p', { class: 'subtitle', text: subtitle || '', hidden: !subtitle });
  const bar = h('header', { class: 'bar' },
    back ? h('button', { type: 'button', class: 'icon-button back', attrs: { 'aria-label': 'Back' }, on: { click: back } }, icon('back')) : null,
    h('div', { class: ['titles', aside && 'with-aside'] }, titleEl, subEl, aside),
    ctx.indicator,
    ...actions);
  return {
    el: bar,
    setTitle(text) { titleEl.textContent = text || ''; },
    setSubtitle(text) { subEl.textContent = text || ''; subEl.hidden = !text; },
  };
}

let menuSerial = 0;

/**
 * A "More" button that opens a small menu of actions (role=menu), so a header keeps room for its title.
 * items: [{label, onSelect, title?}]; `setHidden(label, hidden)` hides one (e.g. Review while a turn runs).
 * Keyboard: the first item takes focus when it opens, arrows move, Escape (or Tab) closes it and focus
 * returns to the button; a tap outside closes it.
 */
export function menuButton({ label = 'More', items }) {
  const id = `menu-${++menuSerial}`;
  const button = h('button', { type: 'button', class: 'icon-button menu-button', attrs: { 'aria-label': label, 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'aria-controls': id } }, icon('more'));
  // `scope`: an item only a device holding that scope sees (app.css hides it otherwise).
  const entries = items.map((item) => h('button', { type: 'button', class: 'menu-item', text: item.label, dataset: item.scope ? { scope: item.scope } : undefined, attrs: { role: 'menuitem', title: item.title } }));
  const list = h('div', { class: 'menu', id, hidden: true, attrs: { role: 'menu', 'aria-label': label } }, entries);
  const el = h('div', { class: 'menu-host' }, button, list);
  const visible = () => entries.filter((e) => !e.hidden && !e.disabled && e.getClientRects().length > 0);

  function onOutside(e) { if (!el.contains(e.target)) close(false); }
  function open() {
    list.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    document.addEventListener('pointerdown', onOutside, true);
    const first = visible()[0];
    if (first) first.focus();
  }
  function close(refocus = true) {
    if (list.hidden) return;
    list.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    document.removeEventListener('pointerdown', onOutside, true);
    if (refocus) button.focus();
  }
  button.addEventListener('click', () => (list.hidden ? open() : close()));
  entries.forEach((entry, i) => { entry.addEventListener('click', () => { close(); items[i].onSelect(); }); });
  list.addEventListener('keydown', (e) => {
    const all = visible();
    const at = all.indexOf(document.activeElement);
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(); }
    else if (e.key === 'Tab') close(false);
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = all[(at + (e.key === 'ArrowDown' ? 1 : all.length - 1)) % all.length];
      if (next) next.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      const next = e.key === 'Home' ? all[0] : all[all.length - 1];
      if (next) next.focus();
    }
  });
  return {
    el,
    close,
    setHidden(itemLabel, hidden) {
      const entry = entries[items.findIndex((i) => i.label === itemLabel)];
      if (entry) entry.hidden = hidden;
    },
    setDisabled(itemLabel, disabled) {
      const entry = entries[items.findIndex((i) => i.label === itemLabel)];
      if (entry) entry.disabled = disabled;
    },
    destroy() { document.removeEventListener('pointerdown', onOutside, true); },
  };
}

let toastHost = null;
const shownToasts = new Set(); // {el, route, follows}
// What stays at the bottom of a screen: a toast goes above it, never over its controls.
const BOTTOM_CONTROLS = '.composer, .fab-bar, .sticky-actions, .jump:not([hidden])';
let watched = null;

/**
 * A short message above the screen's bottom bar (role=alert: the status role belongs to the indicator). It belongs
 * to the screen it was said on and goes when another is shown (a toast about thread A never shows over thread B):
 * `follows` for what is said of the move itself ("Thread deleted." as the app goes back to the list), shown on the
 * next screen and gone after it; `anywhere` for what concerns the app, not a screen (a scope granted).
 */
export function toast(text, { ms = 4000, follows = false, anywhere = false } = {}) {
  if (!toastHost) {
    toastHost = h('div', { class: 'toasts' });
    document.body.append(toastHost);
    addEventListener('resize', placeToasts);
  }
  const entry = { el: h('div', { class: 'toast', attrs: { role: 'alert' }, text }), route: anywhere ? null : location.hash, follows };
  shownToasts.add(entry);
  toastHost.append(entry.el);
  placeToasts();
  setTimeout(() => dropToast(entry), ms);
}

function dropToast(entry) {
  entry.el.remove();
  shownToasts.delete(entry);
  if (!shownToasts.size && watched) { watched.disconnect(); watched = null; }
}

/** The app shows the screen of `location.hash`: the toasts said on another screen go. */
export function screenShown() {
  for (const entry of shownToasts) {
    if (entry.route === null || entry.route === location.hash) continue;
    if (entry.follows) { entry.route = location.hash; entry.follows = false; }
    else dropToast(entry);
  }
  placeToasts();
}

/** Puts the toasts just above the highest of the screen's bottom controls (a composer grown by a long draft). */
function placeToasts() {
  if (!toastHost || !shownToasts.size) return;
  const bars = [...document.querySelectorAll(BOTTOM_CONTROLS)].filter((b) => b.getClientRects().length);
  const floor = window.innerHeight;
  let top = floor;
  for (const b of bars) {
    const r = b.getBoundingClientRect();
    if (r.bottom > floor / 2 && r.top < top) top = r.top; // only what sits in the lower half
  }
  toastHost.style.bottom = top < floor ? `${Math.round(floor - top + 8)}px` : '';
  // The bar may grow while a toast is up (the draft gets longer, a queue appears): follow it.
  if (!watched && typeof ResizeObserver === 'function') watched = new ResizeObserver(() => placeToasts());
  if (watched) { watched.disconnect(); for (const b of bars) watched.observe(b); }
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
  // A linked machine the home bridge cannot reach now (issue 33): said with its name, nothing else.
  if (err.code === 'machine_unavailable') return `${machineName(err.machine)} is unreachable`;
  // A scope this device lacks: the bridge's message says which, and the command that grants it.
  if (err.code === 'forbidden' && err.scope) return err.message;
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
