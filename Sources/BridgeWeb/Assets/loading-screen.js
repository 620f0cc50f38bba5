// What a screen loaded on demand (app.js) shows while its module arrives, and if it cannot: its header (title,
// Back) and one line of status, so a slow link shows a screen at once and a failed one says why, with Try again.
import { h } from './dom.js';
import { header } from './ui.js';

export function loadingScreen(ctx, { title, back, retry }) {
  const head = header(ctx, { title, back });
  const note = h('p', { text: 'Loading…' });
  const again = h('button', { class: 'secondary', type: 'button', text: 'Try again', hidden: true, on: { click: retry } });
  const el = h('div', { class: 'screen loading-screen' }, head.el,
    h('main', null, h('div', { class: 'empty', attrs: { 'aria-live': 'polite' } }, note, again)));
  return {
    el,
    title: () => title,
    placeholder: true,
    /** The module could not be fetched (offline with no stored copy, the workstation gone). */
    failed() {
      note.textContent = navigator.onLine === false
        ? `${title} could not be loaded: this phone is offline.`
        : `${title} could not be loaded: the workstation did not send it.`;
      again.hidden = false;
    },
  };
}
