// The app: reads the pairing fragment (first, see fragment.js) and shows one screen at a time for the hash route
// (#/, #/new, #/t/ID, #/t/ID/diff, #/t/ID/file/PATH, #/devices, #/machines, #/inbox) or for the pairing under
// way. What the phone knows of the bridge, and the connection, are the session's (session.js); this only routes.
import { pairingFragment, takePairingFragment } from './fragment.js';
import { ThreadStore } from './threads.js';
import { Session } from './session.js';
import { connectionIndicator } from './indicator.js';
import { pairingScreen } from './pairing.js';
import { threadsScreen } from './threads-screen.js';
import { threadScreen } from './thread-screen.js';
import { newThreadScreen } from './new-thread-screen.js';
import { diffScreen } from './diff-screen.js';
import { fileScreen } from './file-screen.js';
import { devicesScreen } from './devices-screen.js';
import { machinesScreen } from './machines-screen.js';
import { inboxScreen } from './inbox-screen.js';
import { pairingWaitScreen } from './pairing-wait.js';
import { toast } from './ui.js';
import { registerWorker } from './push.js';

const root = document.getElementById('app');
const session = new Session(new ThreadStore());
const { indicator, banner } = connectionIndicator(session);
// What every screen gets: the session (the connection, the bridge's facts), the store, the header's parts, routing.
const ctx = { session, store: session.store, indicator, banner, navigate, back };
let screen = null;

// The routes, tried in order: a pattern and the screen for its captures (decoded).
const ROUTES = [
  [/^#\/t\/([^/]+)\/diff$/, (id) => diffScreen(ctx, id)],
  [/^#\/t\/([^/]+)\/file\/(.+)$/, (id, path) => fileScreen(ctx, id, path)],
  [/^#\/t\/([^/]+)$/, (id) => threadScreen(ctx, id)],
  [/^#\/new$/, () => newThreadScreen(ctx)],
  [/^#\/devices$/, () => devicesScreen(ctx)],
  [/^#\/machines$/, () => machinesScreen(ctx)],
  [/^#\/inbox$/, () => inboxScreen(ctx)],
];

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
  const found = ROUTES.map(([pattern, make]) => [pattern.exec(hash), make]).find(([m]) => m);
  show(found ? found[1](...found[0].slice(1).map(decodeURIComponent)) : threadsScreen(ctx));
  if (!/^#\/t\/[^/]+$/.test(hash)) window.scrollTo(0, 0);
  return undefined;
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
