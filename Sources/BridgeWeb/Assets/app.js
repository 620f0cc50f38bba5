// The app: reads the pairing fragment (first, see fragment.js) and shows one screen at a time for the hash route
// or for the pairing under way. What the phone knows of the bridge, and the connection, are the session's
// (session.js); the routes and their screens, loaded when first opened, are routes.js's; pairing's screens are
// pairing-flow.js's. This only routes, and holds the screen shown now.
//
// Only the thread list and pairing are imported statically: the server preloads exactly the static imports of this
// file (WebAppVersion.swift). The thread screen is fetched in the background once the live list is in (at the end).
import { pairingFragment, takePairingFragment } from './fragment.js';
import { ThreadStore } from './threads.js';
import { Session } from './session.js';
import { connectionIndicator } from './indicator.js';
import { threadsScreen } from './threads-screen.js';
import { onDemandScreens } from './routes.js';
import { pairingFlow } from './pairing-flow.js';
import { toast, screenShown } from './ui.js';
import { registerWorker } from './push.js';

const root = document.getElementById('app');
const session = new Session(new ThreadStore());
const { indicator, banner } = connectionIndicator(session);
// What every screen gets: the session (the connection, the bridge's facts), the store, the header's parts, routing.
const ctx = { session, store: session.store, indicator, banner, navigate, back };
let screen = null;
const screens = onDemandScreens(ctx, show, () => screen);
const pairing = pairingFlow(ctx, show, route);

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
  screenShown(); // a toast said on another screen goes; the rest go above this one's bottom bar
  document.title = `${screen.title()} · Codex Bridge`;
  // A screen reader starts reading the new screen at its title (not on the first screen: nothing moved).
  const title = moved && screen.el.querySelector('h1');
  if (title) title.focus({ preventScroll: true });
}

function route() {
  if (!session.credentials && !session.pairing) return pairing.showPairing();
  if (session.pairing) return undefined;
  const hash = location.hash;
  if (!screens.open(hash)) show(threadsScreen(ctx));
  if (!/^#\/t\/[^/]+$/.test(hash)) window.scrollTo(0, 0);
  return undefined;
}

// -- what the session says --------------------------------------------------------------------------------
// The screen's own hooks, when it has them: onStatus(s), reload(), onFleet().
session.on('status', (s) => screen?.onStatus?.(s));
session.on('reload', () => screen?.reload?.());
session.on('fleet', () => screen?.onFleet?.());
session.on('notice', (text, options) => toast(text, { ...options, anywhere: true }));

addEventListener('popstate', route);
// A pairing link opened in a tab that already shows the app changes only the fragment: pair as on a load.
addEventListener('hashchange', () => {
  const fragment = takePairingFragment();
  if (fragment) pairing.useFragment(fragment);
  else route();
});

function start() {
  if (pairingFragment && pairing.useFragment(pairingFragment)) return;
  if (!session.restore()) { pairing.showPairing(); return; }
  session.connect(); // first: screens send requests, which go right behind the hello
  route();
}

start();
registerWorker();
// The thread screen is fetched in the background once the live list is in (before, it would share the link with
// the list's answer), or 5 s after the page has loaded at the latest: the first tap on a thread rarely waits for it.
addEventListener('load', () => {
  let unwatch = () => {};
  const live = () => session.store.listLoaded && !session.store.listCached;
  const warm = () => { unwatch(); clearTimeout(timer); screens.warmThreadScreen(); };
  const timer = setTimeout(warm, 5000);
  if (live()) warm();
  else unwatch = session.store.watchList(() => { if (live()) warm(); });
}, { once: true });
