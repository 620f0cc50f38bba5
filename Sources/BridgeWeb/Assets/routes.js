// The hash routes (#/t/ID, #/t/ID/diff, #/t/ID/file/PATH, #/new, #/devices, #/machines, #/inbox) and their screens,
// each a dynamic import() made when it is first opened: a first load over a weak link fetches and runs only what
// its first paint needs (the server preloads exactly the static imports of app.js, WebAppVersion.swift). The
// thread list (#/, and any hash no route matches) is app.js's own: it is the first paint.
import { loadingScreen } from './loading-screen.js';
import { threadTitle } from './thread-title.js';

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
  [/^#\/t\/([^/]+)\/diff$/, DIFF, () => 'Changes', (id) => `#/t/${encodeURIComponent(id)}`, (ctx, m, id) => m.diffScreen(ctx, id)],
  [/^#\/t\/([^/]+)\/file\/(.+)$/, FILE, (_ctx, _id, path) => path.split('/').pop() || path, (id) => `#/t/${encodeURIComponent(id)}/diff`,
    (ctx, m, id, path) => m.fileScreen(ctx, id, path)],
  [/^#\/t\/([^/]+)$/, THREAD, (ctx, id) => threadTitle(ctx.store.get(id)) || 'Thread', () => '#/',
    (ctx, m, id) => m.threadScreen(ctx, id)],
  [/^#\/new$/, NEW_THREAD, () => 'New thread', () => '#/', (ctx, m) => m.newThreadScreen(ctx)],
  [/^#\/devices$/, DEVICES, () => 'Devices', () => '#/', (ctx, m) => m.devicesScreen(ctx)],
  [/^#\/machines$/, MACHINES, () => 'Machines', () => '#/', (ctx, m) => m.machinesScreen(ctx)],
  [/^#\/inbox$/, INBOX, () => 'Needs you', () => '#/', (ctx, m) => m.inboxScreen(ctx)],
];

/**
 * The screens loaded on demand, shown through `show(screen)` (`current()` is the screen shown now).
 * `open(hash)` shows the hash's screen — at once when its module is here, else a loading screen until it is (or
 * fails) — and returns false when no route matches it. A later `open` wins over one still loading.
 */
export function onDemandScreens(ctx, show, current) {
  let routed = 0;

  function showWhenLoaded(serial, route, args) {
    const [, module, title, fallback, make] = route;
    let placeholder = null;
    const wait = () => {
      placeholder ??= loadingScreen(ctx, {
        title: title(ctx, ...args), back: () => ctx.back(fallback(...args)), retry: () => showWhenLoaded(serial, route, args),
      });
      if (current() !== placeholder) show(placeholder);
      return placeholder;
    };
    let settled = false;
    const loading = module().finally(() => { settled = true; });
    loading.then((m) => { if (serial === routed) show(make(ctx, m, ...args)); }, () => { if (serial === routed) wait().failed(); });
    // A module already imported settles within these microtasks, before the next paint: no loading screen flashes.
    queueMicrotask(() => queueMicrotask(() => { if (!settled && serial === routed) wait(); }));
  }

  return {
    open(hash) {
      const serial = ++routed;
      const found = ROUTES.map((route) => [route[0].exec(hash), route]).find(([m]) => m);
      if (!found) return false;
      showWhenLoaded(serial, found[1], found[0].slice(1).map(decodeURIComponent));
      return true;
    },
    /** Fetches the thread screen ahead of its first tap (a failure is only forgotten: the tap tries again). */
    warmThreadScreen() { THREAD().catch(() => {}); },
  };
}
