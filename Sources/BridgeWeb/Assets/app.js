// The app: reads the pairing fragment (first, see fragment.js) and shows one screen at a time for the hash route
// (#/, #/new, #/t/ID, #/t/ID/diff, #/t/ID/file/PATH, #/devices, #/machines, #/inbox) or for the pairing under
// way. What the phone knows of the bridge, and the connection, are the session's (session.js); this only routes.
//
// Only the thread list and pairing are imported here: every other screen is a dynamic import() made when it is
// first opened, so a first load over a weak link fetches and runs only what its first paint needs (the server
// preloads exactly the static imports of this file, WebAppVersion.swift). The thread screen is fetched in the
// background once the live list is in (at the end of this file).
import { pairingFragment, takePairingFragment } from './fragment.js';
import { ThreadStore } from './threads.js';
import { Session } from './session.js';
import { connectionIndicator } from './indicator.js';
import { pairingScreen } from './pairing.js';
import { threadsScreen } from './threads-screen.js';
import { pairingWaitScreen } from './pairing-wait.js';
import { loadingScreen } from './loading-screen.js';
import { toast } from './ui.js';
import { registerWorker } from './push.js';

const root = document.getElementById('app');
const session = new Session(new ThreadStore());
const { indicator, banner } = connectionIndicator(session);
// What every screen gets: the session (the connection, the bridge's facts), the store, the header's parts, routing.
const ctx = { session, store: session.store, indicator, banner, navigate, back };
let screen = null;

// A screen's module, imported once. A failed import is forgotten, and the next try asks for the file under
// another URL: a browser keeps a failed module fetch in its module map, so the same URL would fail again.
function onDemand(load) {
  let module = null;
  let failures = 0;
  return () => {
    module ??= load(failures ? `?retry=${failures}` : '').catch((err) => {
      module = null;
      failures += 1;
      throw err;
    });
    return module;
  };
}
const THREAD = onDemand((q) => import(`./thread-screen.js${q}`));
const NEW_THREAD = onDemand((q) => import(`./new-thread-screen.js${q}`));
const DIFF = onDemand((q) => import(`./diff-screen.js${q}`));
const FILE = onDemand((q) => import(`./file-screen.js${q}`));
const DEVICES = onDemand((q) => import(`./devices-screen.js${q}`));
const MACHINES = onDemand((q) => import(`./machines-screen.js${q}`));
const INBOX = onDemand((q) => import(`./inbox-screen.js${q}`));

// The routes, tried in order: a pattern, the screen's module, its title while it loads, where Back goes then,
// and the screen for its captures (decoded).
const ROUTES = [
  [/^#\/t\/([^/]+)\/diff$/, DIFF, () => 'Changes', (id) => `#/t/${encodeURIComponent(id)}`, (m, id) => m.diffScreen(ctx, id)],
  [/^#\/t\/([^/]+)\/file\/(.+)$/, FILE, (_id, path) => path.split('/').pop() || path, (id) => `#/t/${encodeURIComponent(id)}/diff`,
    (m, id, path) => m.fileScreen(ctx, id, path)],
  [/^#\/t\/([^/]+)$/, THREAD, (id) => ctx.store.get(id)?.name || ctx.store.get(id)?.preview || 'Thread', () => '#/', (m, id) => m.threadScreen(ctx, id)],
  [/^#\/new$/, NEW_THREAD, () => 'New thread', () => '#/', (m) => m.newThreadScreen(ctx)],
  [/^#\/devices$/, DEVICES, () => 'Devices', () => '#/', (m) => m.devicesScreen(ctx)],
  [/^#\/machines$/, MACHINES, () => 'Machines', () => '#/', (m) => m.machinesScreen(ctx)],
  [/^#\/inbox$/, INBOX, () => 'Needs you', () => '#/', (m) => m.inboxScreen(ctx)],
];
let routed = 0; // which route() call a screen still loading belongs to: a later one wins

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
  // A screen that replaces its own loading screen moves focus only if that one did (it was not the first).
  const moved = screen?.placeholder ? screen.moved : !!screen;
  next.moved = moved;
  screen?.destroy?.();
  screen = next;
  root.replaceChildren(banner, screen.el);
  document.title = `${screen.title()} · Codex Bridge`;
  // A screen reader starts reading the new screen at its title (not on the first screen: nothing moved).
  const title = moved && screen.el.querySelector('h1');
  if (title) title.focus({ preventScroll: true });
}

function route() {
  if (!session.credentials && !session.pairing) return showPairing();
  if (session.pairing) return undefined;
  const hash = location.hash;
  const serial = ++routed;
  const found = ROUTES.map((route) => [route[0].exec(hash), route]).find(([m]) => m);
  if (!found) show(threadsScreen(ctx));
  else showOnDemand(serial, found[1], found[0].slice(1).map(decodeURIComponent));
  if (!/^#\/t\/[^/]+$/.test(hash)) window.scrollTo(0, 0);
  return undefined;
}

/** Shows a route's screen: at once when its module is here, else a loading screen until it is (or fails). */
function showOnDemand(serial, route, args) {
  const [, module, title, fallback, make] = route;
  let placeholder = null;
  const wait = () => {
    placeholder ??= loadingScreen(ctx, { title: title(...args), back: () => back(fallback(...args)), retry: () => showOnDemand(serial, route, args) });
    if (screen !== placeholder) show(placeholder);
    return placeholder;
  };
  let settled = false;
  const loading = module().finally(() => { settled = true; });
  loading.then((m) => { if (serial === routed) show(make(m, ...args)); }, () => { if (serial === routed) wait().failed(); });
  // A module already imported settles within these microtasks, before the next paint: no loading screen flashes.
  queueMicrotask(() => queueMicrotask(() => { if (!settled && serial === routed) wait(); }));
}

function showPairing(message, error) {
  const s = pairingScreen(ctx, {
    message,
    onCode(code, name) {
      session.beginPairing(code, name);
      s.setBusy(true);
      s.setError('');
      session.connect();
    },
  });
  show(s);
  if (!session.conn) session.setStatus(session.credentials ? 'rejected' : 'unpaired');
  if (error) s.setError(error);
  if (session.pairing) s.setBusy(true);
  return s;
}

// -- what the session says --------------------------------------------------------------------------------
// The screen's own hooks, when it has them: onStatus(s), reload(), onFleet().
session.on('status', (s) => screen?.onStatus?.(s));
session.on('reload', () => screen?.reload?.());
session.on('fleet', () => screen?.onFleet?.());
session.on('notice', (text, options) => toast(text, options));
session.on('paired', () => navigate('#/', { replace: true }));
session.on('refused', (message) => showPairing(message));
session.on('pending', ({ check, deviceId, expiresAt }) => show(pairingWaitScreen(ctx, {
  check, deviceId, expiresAt,
  onCancel() {
    session.cancelPairing();
    showPairing(undefined, 'Pairing cancelled. Scan a new code to try again.');
  },
})));
session.on('pairingFailed', (message) => {
  if (!session.credentials) { showPairing(undefined, message); return; }
  // Still paired with the bridge this phone knew (the session went back to it): say why the new code did not work.
  route();
  toast(message, { ms: 8000 });
});

addEventListener('popstate', route);
// A pairing link opened in a tab that already shows the app changes only the fragment: pair as on a load.
addEventListener('hashchange', () => {
  const fragment = takePairingFragment();
  if (fragment) usePairingFragment(fragment);
  else route();
});

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
    session.beginPairing(fragment.code, undefined, fragment.name);
    showPairing().setInfo(fragment.name ? `Pairing with ${fragment.name}…` : 'Pairing…');
    session.connect();
    return true;
  }
  if (fragment.token && session.useToken(fragment)) {
    navigate('#/', { replace: true });
    return true;
  }
  return false;
}

function start() {
  if (pairingFragment && usePairingFragment(pairingFragment)) return;
  if (!session.restore()) { showPairing(); return; }
  session.connect(); // first: screens send requests, which wait for the handshake
  route();
}

start();
registerWorker();
// The thread screen is fetched in the background once the live list is in (before, it would share the link with
// the list's answer), or 5 s after the page has loaded at the latest: the first tap on a thread rarely waits for it.
addEventListener('load', () => {
  let unwatch = () => {};
  const live = () => session.store.listLoaded && !session.store.listCached;
  const warm = () => { unwatch(); clearTimeout(timer); THREAD().catch(() => {}); };
  const timer = setTimeout(warm, 5000);
  if (live()) warm();
  else unwatch = session.store.watchList(() => { if (live()) warm(); });
}, { once: true });
