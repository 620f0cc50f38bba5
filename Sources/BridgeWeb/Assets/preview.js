// Preview (issue 35): the workstation's dev servers of this thread (`listPreviews`), each opened in a new tab on the
// bridge's preview origin (`openPreview`: a single-use link that becomes a cookie there, for this phone only).
// The new tab never gets a handle on this page (its opener is cut before it leaves about:blank), and the preview
// origin serves nothing of the bridge.
import { h, clear } from './dom.js';
import { toast, describeError } from './ui.js';

/** The link of `openPreview` on the host this page reached the bridge by (the bridge names its own). */
export function previewAddress(url, here = window.location) {
  const address = new URL(url);
  address.hostname = here.hostname;
  return address.href;
}

/**
 * The sheet behind the thread's Preview action. `request(kind, fields)` sends a request for this thread.
 * Returns {el, open, close}.
 */
export function previewSheet({ request }) {
  const status = h('p', { class: 'preview-status', attrs: { role: 'status', 'aria-live': 'polite' } });
  const list = h('ul', { class: 'preview-list', attrs: { 'aria-label': 'Servers' } });
  const refresh = h('button', { type: 'button', class: 'text-button', text: 'Refresh' });
  const done = h('button', { type: 'button', class: 'text-button', text: 'Close' });
  // A form, like the thread's other sheets (the sheet area shows only while one of them is open); nothing submits.
  const el = h('form', { class: 'goal-form preview-sheet', hidden: true, dataset: { scope: 'operate' }, attrs: { 'aria-labelledby': 'preview-title' }, on: { submit: (e) => e.preventDefault() } },
    h('h2', { class: 'form-label', id: 'preview-title', text: 'Preview' }),
    h('p', { class: 'preview-about', text: 'A preview shows a server running in this thread’s folder on the workstation (the app Codex is building) in a new tab, to this phone only.' }),
    status, list, h('div', { class: 'goal-actions' }, refresh, done));
  let loading = false;

  async function load() {
    if (loading) return;
    loading = true;
    status.textContent = 'Looking for servers…';
    clear(list);
    try {
      const { servers = [] } = await request('listPreviews', {});
      status.textContent = servers.length ? '' : 'No server is running in this thread’s folder. Ask Codex to start one (e.g. npm run dev).';
      for (const server of servers) list.append(row(server));
    } catch (err) {
      status.textContent = `No preview: ${describeError(err)}`;
    } finally {
      loading = false;
    }
  }

  function row(server) {
    const open = h('button', { type: 'button', class: 'primary', text: 'Open', attrs: { 'aria-label': `Open port ${server.port}` } });
    open.addEventListener('click', () => openServer(server, open));
    return h('li', { class: 'preview-row' },
      h('span', { class: 'preview-port', text: `Port ${server.port}` }),
      h('span', { class: 'preview-process', text: server.http ? server.process : `${server.process} · not HTTP` }),
      open);
  }

  async function openServer(server, button) {
    // Opened now, while the tap counts as the person's (a tab opened after the answer would be blocked).
    const tab = window.open('about:blank', '_blank');
    button.disabled = true;
    try {
      const opened = await request('openPreview', { port: server.port });
      const address = previewAddress(opened.url);
      if (tab) {
        tab.opener = null;
        tab.location.replace(address);
      } else {
        // Tabs blocked: a link the person taps (still single-use, two minutes).
        list.append(h('li', { class: 'preview-row' }, h('a', { href: address, target: '_blank', rel: 'noopener noreferrer', text: `Open the preview of port ${server.port}` })));
      }
    } catch (err) {
      if (tab) tab.close();
      toast(`No preview: ${describeError(err)}`);
    } finally {
      button.disabled = false;
    }
  }

  const close = () => { el.hidden = true; };
  refresh.addEventListener('click', load);
  done.addEventListener('click', close);
  return {
    el,
    close,
    open() {
      el.hidden = false;
      load();
    },
  };
}
