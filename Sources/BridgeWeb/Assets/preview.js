// Preview (issue 35): the workstation's dev servers of this thread (`listPreviews`), each opened in a new tab on its
// own origin of the bridge (`openPreview`: a single-use ticket, exchanged on the bridge's preview port for a cookie
// of that preview's origin, for this phone only), from the thread's Preview sheet or from a `!command` card whose
// output names a local URL.
// The tab's address is built here from the ticket alone, on the preview port this bridge named in its helloAck:
// nothing else of the answer (which a linked workstation could have written) chooses where the tab goes.
// The new tab never gets a handle on this page (its opener is cut before it leaves about:blank), and the preview
// ports serve nothing of the bridge.
import { h, clear } from './dom.js';
import { toast, describeError } from './ui.js';

/** An `openPreview` ticket: `ID.SECRET`, base64url on both sides. */
const TICKET = /^[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{1,128}$/;

/**
 * The address that opens a preview: `ticket` on the bridge's preview port (`helloAck.previewPort`), on the host
 * this page reached the bridge by. Throws when the ticket or the port is not of the shape they must have.
 */
export function previewAddress(ticket, previewPort, here = window.location) {
  if (typeof ticket !== 'string' || !TICKET.test(ticket)) throw new Error('the bridge sent a preview ticket of the wrong shape');
  if (!Number.isInteger(previewPort) || previewPort < 1 || previewPort > 65535) throw new Error('this bridge serves no previews');
  const address = new URL(here.origin);
  address.port = String(previewPort);
  address.pathname = '/.codex-bridge/open';
  address.search = `?ticket=${ticket}`;
  return address.href;
}

/** A refusal in the bridge's words where they say what to do (which port, which folder), else the usual ones. */
export function previewError(err) {
  const own = err && !err.scope && ['not_found', 'forbidden', 'failed'].includes(err.code) && err.message;
  return own || describeError(err);
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
 * opened after the answer would be blocked), and its opener is cut before it leaves about:blank. `previewPort`:
 * the bridge's (helloAck). Resolves to nothing, or to the link when tabs are blocked (the caller shows it). A
 * refusal is a toast.
 */
export async function openPreview(request, port, previewPort) {
  const tab = window.open('about:blank', '_blank');
  try {
    const opened = await request('openPreview', { port });
    const address = previewAddress(opened.ticket, previewPort);
    if (!tab) return address;
    tab.opener = null;
    tab.location.replace(address);
  } catch (err) {
    if (tab) tab.close();
    toast(`No preview: ${previewError(err)}`);
  }
  return undefined;
}

/** The link shown when tabs are blocked. */
export function previewLink(address, port) {
  return h('a', { href: address, target: '_blank', rel: 'noopener noreferrer', text: `Open the preview of port ${port}` });
}

/**
 * The sheet behind the thread's Preview action. `request(kind, fields)` sends a request for this thread;
 * `previewPort()` is the bridge's preview port (helloAck). Returns {el, open, close}.
 */
export function previewSheet({ request, previewPort }) {
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
      status.textContent = `No preview: ${previewError(err)}`;
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
    const blocked = await openPreview(request, server.port, previewPort());
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
