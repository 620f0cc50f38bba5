// Preview (issue 35): the workstation's dev servers of this thread (`listPreviews`), each opened in a new tab on the
// bridge's preview origin (`openPreview`: a single-use link that becomes a cookie there, for this phone only), from
// the thread's Preview sheet or from a `!command` card whose output names a local URL.
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

/** The local ports a command's output names as URLs (`http://localhost:5173/`, `127.0.0.1`, `[::1]`, `0.0.0.0`). */
export function localPorts(text) {
  const ports = [];
  for (const match of String(text).matchAll(/\bhttps?:\/\/(?:localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0):(\d{1,5})(?!\w)/g)) {
    const port = Number(match[1]);
    if (port > 0 && port < 65536 && !ports.includes(port)) ports.push(port);
  }
  return ports;
}

/**
 * Opens the preview of `port` in a new tab: the tab is opened now, while the tap counts as the person's (one
 * opened after the answer would be blocked), and its opener is cut before it leaves about:blank. Resolves to
 * nothing, or to the link when tabs are blocked (the caller shows it). A refusal is a toast.
 */
export async function openPreview(request, port) {
  const tab = window.open('about:blank', '_blank');
  try {
    const opened = await request('openPreview', { port });
    const address = previewAddress(opened.url);
    if (!tab) return address;
    tab.opener = null;
    tab.location.replace(address);
  } catch (err) {
    if (tab) tab.close();
    toast(`No preview: ${err && err.code === 'not_found' ? err.message : describeError(err)}`);
  }
  return undefined;
}

/** The link shown when tabs are blocked. */
export function previewLink(address, port) {
  return h('a', { href: address, target: '_blank', rel: 'noopener noreferrer', text: `Open the preview of port ${port}` });
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
    button.disabled = true;
    const blocked = await openPreview(request, server.port);
    button.disabled = false;
    // Tabs blocked: a link the person taps (still single-use, two minutes).
    if (blocked) list.append(h('li', { class: 'preview-row' }, previewLink(blocked, server.port)));
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
