// The app: reads the pairing fragment (first, see fragment.js), holds the connection and the thread store,
// and shows one screen at a time (hash routes: #/, #/new, #/t/ID, #/t/ID/diff, #/t/ID/file/PATH, #/devices, #/machines, #/inbox).
import { pairingFragment, takePairingFragment } from './fragment.js';
import { h } from './dom.js';
import * as saved from './store.js';
import { Connection } from './connection.js';
import { ThreadStore } from './threads.js';
import { pairingScreen, deviceName } from './pairing.js';
import { threadsScreen } from './threads-screen.js';
import { threadScreen } from './thread-screen.js';
import { newThreadScreen } from './new-thread-screen.js';
import { diffScreen } from './diff-screen.js';
import { fileScreen } from './file-screen.js';
import { devicesScreen } from './devices-screen.js';
import { machinesScreen } from './machines-screen.js';
import { inboxScreen } from './inbox-screen.js';
import { pairingWaitScreen } from './pairing-wait.js';
import { setScopes, may } from './scopes.js';
import { toast, describeError } from './ui.js';
import { sendPresence, resyncPush } from './push.js';
import { setMachines, applyMachineChanged, machine } from './fleet.js';

const root = document.getElementById('app');
const store = new ThreadStore();
let conn = null;
let credentials = null; // {serverId, token, static?, clientId?}
let pairing = null; // {code} while a pairing code is being redeemed
let policy = { roots: [] };
let serverName = '';
let deviceId = null;
let pushPublicKey = null; // the bridge's VAPID key (helloAck.server.pushPublicKey); null: no push
let nextCursor = null;
let screen = null;

// -- the connection indicator (role=status) and the "not encrypted" mark ------------------------------------
const statusText = h('span', { class: 'status-text', text: 'Connecting…' });
const status = h('span', { class: 'status connecting', attrs: { role: 'status' } }, h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }), statusText);
const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(location.hostname);
const insecure = location.protocol === 'http:' && !loopback
  ? h('span', { class: 'insecure', title: 'This connection is plain http: anyone on the network can read it', text: 'not encrypted' })
  : null;
const indicator = h('div', { class: 'indicator' }, insecure, status);
const banner = h('div', { class: 'banner', hidden: true, text: 'The app keeps trying and reconnects by itself; what you send meanwhile waits here.' });

// Before pairing there is no connection to speak of: the indicator says "Not paired". After a few failed attempts
// it is the workstation that cannot be reached (the phone's own network may be fine): said so, not "Offline".
const STATUS = { connected: 'Connected', reconnecting: 'Reconnecting…', offline: 'Workstation unreachable', connecting: 'Connecting…', rejected: 'Refused', unpaired: 'Not paired',
  pending: 'Waiting for approval' };
function setStatus(s) {
  statusText.textContent = STATUS[s] || s;
  status.className = `status ${s}`;
  banner.hidden = s !== 'offline' || !credentials;
  if (screen && screen.onStatus) screen.onStatus(s);
}

// -- shared context for the screens -------------------------------------------------------------------------
const ctx = {
  store,
  get conn() { return conn; },
  connected: () => !!(conn && conn.ready),
  indicator,
  banner,
  policy: () => policy,
  serverName: () => serverName,
  deviceId: () => deviceId,
  pushPublicKey: () => pushPublicKey,
  token: () => credentials && credentials.token,
  may,
  nextCursor: () => nextCursor,
  listError: () => listError,
  refreshList: () => refreshList(),
  loadMore,
  navigate,
  back,
};

// -- routing ------------------------------------------------------------------------------------------------
function depth() { return (history.state && history.state.depth) || 0; }

function navigate(hash, { replace = false } = {}) {
  if (replace) history.replaceState({ depth: depth() }, '', hash);
  else history.pushState({ depth: depth() + 1 }, '', hash);
  route();
}

function back(fallback) {
  if (depth() > 0) history.back();
  else navigate(fallback, { replace: true });
}

function show(next) {
  const moved = !!screen;
  if (screen && screen.destroy) screen.destroy();
  screen = next;
  root.replaceChildren(banner, screen.el);
  document.title = `${screen.title()} · Codex Bridge`;
  // A screen reader starts reading the new screen at its title (not on the first screen: nothing moved).
  const title = moved && screen.el.querySelector('h1');
  if (title) title.focus({ preventScroll: true });
}

function route() {
  if (!credentials && !pairing) return showPairing();
  if (pairing) return undefined;
  const hash = location.hash;
  let m;
  if ((m = /^#\/t\/([^/]+)\/diff$/.exec(hash))) show(diffScreen(ctx, decodeURIComponent(m[1])));
  else if ((m = /^#\/t\/([^/]+)\/file\/(.+)$/.exec(hash))) show(fileScreen(ctx, decodeURIComponent(m[1]), decodeURIComponent(m[2])));
  else if ((m = /^#\/t\/([^/]+)$/.exec(hash))) show(threadScreen(ctx, decodeURIComponent(m[1])));
  else if (hash === '#/new') show(newThreadScreen(ctx));
  else if (hash === '#/devices') show(devicesScreen(ctx));
  else if (hash === '#/machines') show(machinesScreen(ctx));
  else if (hash === '#/inbox') show(inboxScreen(ctx));
  else show(threadsScreen(ctx));
  if (!/^#\/t\/[^/]+$/.test(hash)) window.scrollTo(0, 0);
  return undefined;
}

function showPairing(message, error) {
  const s = pairingScreen(ctx, {
    message,
    onCode(code, name) {
      pairing = { code, name };
      s.setBusy(true);
      s.setError('');
      connect();
    },
  });
  show(s);
  if (!conn) setStatus(credentials ? 'rejected' : 'unpaired');
  if (error) s.setError(error);
  if (pairing) s.setBusy(true);
  return s;
}

addEventListener('popstate', route);
document.addEventListener('visibilitychange', () => { if (conn && conn.ready) sendPresence(conn); });
// A pairing link opened in a tab that already shows the app changes only the fragment: pair as on a load.
addEventListener('hashchange', () => {
  const fragment = takePairingFragment();
  if (fragment) usePairingFragment(fragment);
  else route();
});

// -- the connection -----------------------------------------------------------------------------------------
// Every hello asks for the fleet (issue 33): the machines linked to this bridge, their threads in one list.
function helloFields() {
  if (pairing) return { token: pairing.code, device: { name: pairing.name || deviceName(), platform: 'web' }, fleet: true };
  if (credentials.static) return { token: credentials.token, clientId: credentials.clientId, fleet: true };
  return { token: credentials.token, fleet: true };
}

function connect() {
  if (conn) conn.stop();
  conn = new Connection({
    helloFields,
    onStatus: setStatus,
    onAck,
    onMessage,
    onRejected,
    onPending,
    stopOnRateLimit: () => !!pairing, // a code is not retried: the person types another one
  });
  conn.start();
}

function onMessage(msg) {
  if (msg.kind === 'machineChanged') return onMachineChanged(msg);
  if (msg.kind === 'scopesChanged') {
    const couldObserve = may('observe');
    setScopes(msg.scopes);
    toast(`This device may now: ${(msg.scopes || []).join(', ') || 'nothing'}`);
    // Observing again: the bridge dropped this connection's subscriptions when it could not.
    if (!couldObserve && may('observe')) {
      conn.request('subscribe', { threadId: '*' }).catch(() => {});
      refreshList();
    }
    if (screen && screen.reload) screen.reload();
    return;
  }
  store.applyMessage(msg);
}

/**
 * A machine of the fleet went online or offline, was linked, or left (unlinked or revoked: its threads go).
 * Back online (or new): the list is asked again for its threads.
 */
function onMachineChanged(msg) {
  const removed = applyMachineChanged(msg);
  if (removed) store.dropMachine(removed);
  else if (msg.machine && msg.machine.state === 'online') refreshList();
  store.listChanged();
  if (screen && screen.onFleet) screen.onFleet();
}

/** A bridge started with --confirm-pairing: the workstation must allow this phone first. */
function onPending(pending) {
  if (!pairing) return;
  setStatus('pending');
  show(pairingWaitScreen(ctx, {
    check: pending.check,
    deviceId: pending.deviceId,
    expiresAt: pending.expiresAt,
    onCancel() {
      if (conn) conn.stop();
      conn = null;
      pairing = null;
      if (credentials) connect();
      showPairing(undefined, 'Pairing cancelled. Scan a new code to try again.');
    },
  }));
}

let listError = null;
async function refreshList() {
  try {
    const answer = await conn.request('listThreads', { limit: 50 });
    nextCursor = answer.nextCursor || null;
    listError = null;
    store.applyList(answer.threads || []);
  } catch (err) {
    if (err.code === 'closed') return;
    listError = describeError(err);
    store.listChanged();
  }
}

async function loadMore() {
  if (!nextCursor) return;
  try {
    const answer = await conn.request('listThreads', { limit: 50, cursor: nextCursor });
    nextCursor = answer.nextCursor || null;
    store.applyList(answer.threads || []);
  } catch (err) {
    toast(`Could not list threads: ${err.message}`);
  }
}

function onAck(ack, { first, gap }) {
  const server = ack.server || {};
  serverName = server.name || serverName;
  deviceId = ack.deviceId || null;
  pushPublicKey = typeof server.pushPublicKey === 'string' ? server.pushPublicKey : null;
  setScopes(ack.scopes);
  setMachines(ack.machines, server.id, server.name);
  // A machine unlinked while this phone was away: its threads go as they would have live.
  for (const id of new Set([...store.threads.values()].map((t) => t.machine).filter(Boolean))) if (!machine(id)) store.dropMachine(id);
  sendPresence(conn);
  resyncPush(conn, pushPublicKey);
  if (ack.policy && typeof ack.policy === 'object') policy = { roots: [], ...ack.policy };
  if (pairing) {
    const id = server.id || 'default';
    if (ack.deviceToken) credentials = { serverId: id, token: ack.deviceToken };
    else credentials = { serverId: id, token: pairing.code };
    saved.saveBridge(id, { token: credentials.token, name: serverName, deviceId, pairedAt: Date.now() });
    pairing = null;
    navigate('#/', { replace: true });
  } else if (credentials && server.id && credentials.serverId !== server.id) {
    // The same credential now answers under another id (the state was moved): remember it under that id.
    saved.saveBridge(server.id, { token: credentials.token, name: serverName, deviceId, static: credentials.static, clientId: credentials.clientId });
    credentials.serverId = server.id;
  } else if (credentials) {
    saved.saveBridge(credentials.serverId, { name: serverName, deviceId });
  }
  // Every thread's events (the list is live); a paired device's subscription is remembered by the bridge.
  if (!(ack.restoredSubscriptions || []).includes('*')) conn.request('subscribe', { threadId: '*' }).catch(() => {});
  if (first || gap) {
    if (gap) store.invalidate();
    refreshList();
    if (screen && screen.reload) screen.reload();
  }
}

function onRejected(ack) {
  const code = ack.error && ack.error.code;
  conn.stop();
  conn = null;
  setStatus('rejected');
  if (pairing) {
    pairing = null;
    const message = code === 'unauthorized'
      ? 'That code did not work: it is wrong, already used or expired. Run codex-bridge pair for a new one.'
      : code === 'rate_limited'
        ? 'Too many failed attempts from this network: wait a minute, then try again.'
        : code === 'pairing_denied'
          ? 'The workstation denied this pairing. Ask its owner, then scan a new code.'
          : code === 'pairing_expired'
            ? 'Nobody confirmed the pairing on the workstation in time. Scan a new code to try again.'
            : `Pairing failed: ${(ack.error && ack.error.message) || code}`;
    if (credentials) {
      // Still paired with the bridge this phone knew: keep using it, and say why the new code did not work.
      connect();
      route();
      toast(message, { ms: 8000 });
      return;
    }
    showPairing(undefined, message);
    return;
  }
  if (code === 'unauthorized') {
    if (credentials) saved.forgetToken(credentials.serverId);
    credentials = null;
    store.threads.clear();
    showPairing('This phone was unpaired; scan a new code.');
  } else {
    showPairing(`The workstation refused the connection: ${(ack.error && ack.error.message) || code}`);
  }
}

// -- start --------------------------------------------------------------------------------------------------
function randomId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Acts on a pairing fragment (read at load or on hashchange): redeems its code, or keeps its static token.
 * Returns true when it started pairing or showed why it cannot.
 */
function usePairingFragment(fragment) {
  if (fragment.version !== 'v1') {
    showPairing(undefined, 'This pairing link is from a newer version of codex-bridge; reload this page and scan again.');
    return true;
  }
  if (fragment.code) {
    pairing = { code: fragment.code };
    serverName = fragment.name;
    showPairing().setInfo(fragment.name ? `Pairing with ${fragment.name}…` : 'Pairing…');
    connect();
    return true;
  }
  if (fragment.token) {
    const id = fragment.serverId || 'default';
    credentials = { serverId: id, token: fragment.token, static: true, clientId: randomId() };
    saved.saveBridge(id, { token: credentials.token, name: fragment.name, static: true, clientId: credentials.clientId });
    if (conn) { // a link opened in a running page: start over with this credential
      serverName = fragment.name || serverName;
      store.threads.clear();
      connect();
      navigate('#/', { replace: true });
      return true;
    }
  }
  return false;
}

function start() {
  if (pairingFragment && usePairingFragment(pairingFragment)) return;
  if (!credentials) {
    const stored = saved.currentBridge();
    if (stored) credentials = stored;
  }
  if (!credentials) { showPairing(); return; }
  serverName = credentials.name || '';
  connect(); // first: screens send requests, which wait for the handshake
  route();
}

start();

if ('serviceWorker' in navigator && window.isSecureContext) {
  // A registration that fails (say the network changed while sw.js was fetched) is tried again, a few times and
  // whenever the browser is back online: notifications wait for a registered worker.
  let failures = 0;
  const register = () => navigator.serviceWorker.register('sw.js').catch(() => {
    failures += 1;
    if (failures < 6) setTimeout(register, 1000 * failures);
  });
  addEventListener('load', register);
  addEventListener('online', () => { failures = 0; register(); });
}
