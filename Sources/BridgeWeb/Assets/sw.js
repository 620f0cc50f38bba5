// The service worker serves the app shell when the workstation cannot be reached, so an installed app opens
// and says "workstation unreachable" instead of showing a browser error page. Network first: a reachable
// bridge always serves its current files; the cache is only the fallback.
//
// It keeps nothing but the shell: the fixed list below, stored under this version's cache name. A request
// with credentials (Authorization), a download (/files), an upload, a notification answer (/push/…), the
// metrics and anything not on the list go to the network untouched and are never stored. A cached answer is
// found by its exact URL (query included); a page load is answered with the stored index.html. A new worker
// deletes every other version's cache when it activates. Bump VERSION whenever SHELL changes.
//
// The server fills in BUILD (the version of the app's files) and ASSETS (the path its scripts and styles are
// served under, `v/BUILD/`), so a new build of the app is a new cache and the shell is stored under the URLs
// index.html names.
const VERSION = 25;
const BUILD = '{{build}}';
const ASSETS = '{{assets}}';
const PREFIX = 'codex-bridge-shell-';
const CACHE = `${PREFIX}v${VERSION}-${BUILD}`;
const SHELL = [
  'index.html', 'app.css', 'app.js', 'fragment.js', 'dom.js', 'store.js', 'connection.js', 'threads.js',
  'ui.js', 'markdown.js', 'diff-view.js', 'approval-card.js', 'item-views.js', 'pairing.js', 'threads-screen.js',
  'thread-screen.js', 'new-thread-screen.js', 'diff-screen.js', 'file-screen.js', 'push.js', 'question-card.js',
  'thread-extras.js', 'attachments.js', 'mention-picker.js', 'manifest.webmanifest', 'icon.svg', 'icon-192.png',
  'desk.css', 'git-panel.js', 'command-card.js', 'commands.js', 'worktree-option.js',
  'scopes.js', 'pairing-wait.js', 'devices-screen.js',
  'tools.css', 'thread-tools.js', 'plan-view.js', 'goal-view.js', 'subagents.js',
  'thread-manage.js', 'archived-list.js', 'context-meter.js', 'thread-housekeeping.js', 'thread-revert.js', 'collaboration-modes.js', 'tools-sheet.js',
  'fleet.js', 'fleet-view.js', 'fleet.css', 'inbox.js', 'inbox-screen.js', 'machines.js', 'machines-screen.js',
  'session.js', 'indicator.js', 'pending.js', 'pending-card.js', 'conversation.js', 'turn-window.js', 'composer.js', 'queued-list.js',
  'preview.js', 'preview.css', 'loading-screen.js', 'routes.js', 'pairing-flow.js', 'probe.js', 'held.js', 'try-now.js',
  'thread-title.js', 'device-words.js', 'live-channel.js',
  'voice.css', 'voice-state.js', 'voice-words.js', 'voice-call.js', 'voice-pcm.js', 'voice-mode.js', 'voice-items.js', 'dictation.js',
];
const SCOPE = new URL('./', self.location.href);
const versioned = (name) => /\.(js|css)$/.test(name);
const SHELL_URLS = new Set(SHELL.map((name) => new URL(versioned(name) ? ASSETS + name : name, SCOPE).href));
const DOCUMENT = new URL('index.html', SCOPE).href;
const NEVER = /^\/(files|uploads|push|metrics|healthz|health)(\/|$)/;

self.addEventListener('install', (event) => {
  // `cache: 'reload'` for a file at its plain name: the file itself, not what the browser's HTTP cache may hold
  // from an older version. A versioned file never changes: the copy the page just loaded is the one to keep.
  const fresh = (url) => (url.startsWith(new URL(ASSETS, SCOPE).href) ? 'default' : 'reload');
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll([...SHELL_URLS].map((url) => new Request(url, { cache: fresh(url) }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

/** The shell URL a request may be stored and answered under, or null: such a request is not ours to touch. */
function shellKey(request) {
  if (request.method !== 'GET' || request.headers.has('Authorization')) return null;
  const url = new URL(request.url);
  url.hash = ''; // a page load keeps its fragment (#/t/…) in request.url; the query stays significant
  if (url.origin !== self.location.origin || NEVER.test(url.pathname)) return null;
  if (request.mode === 'navigate') return url.href === SCOPE.href || url.href === DOCUMENT ? DOCUMENT : null;
  return SHELL_URLS.has(url.href) ? url.href : null;
}

self.addEventListener('fetch', (event) => {
  const key = shellKey(event.request);
  if (!key) return; // the browser fetches it as if there were no worker
  event.respondWith((async () => {
    try {
      const response = await fetch(event.request);
      if (response.ok && response.type === 'basic') {
        const copy = response.clone();
        caches.open(CACHE).then((cache) => cache.put(key, copy)).catch(() => {});
      }
      return response;
    } catch (err) {
      const cached = await caches.match(key, { cacheName: CACHE });
      if (cached) return cached;
      throw err;
    }
  })());
});

// -- notifications (BRIDGE.md "Push payload") ----------------------------------------------------------------
// A push shows one notification per tag (an approval's follow-up replaces it); an approval carries a
// single-use token that its Approve / Decline buttons post to /push/action. Text is shown as text.
self.addEventListener('push', (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (_) { data = {}; }
  if (!data || typeof data !== 'object') data = {};
  const title = typeof data.title === 'string' && data.title ? data.title : 'Codex Bridge';
  const options = {
    body: typeof data.body === 'string' ? data.body : '',
    tag: typeof data.tag === 'string' ? data.tag : undefined,
    icon: 'icon-192.png',
    data: {
      type: data.type, token: data.token, approvalId: data.approvalId,
      actionPath: data.actionPath, url: typeof data.url === 'string' ? data.url : '/',
    },
  };
  if (data.type === 'approval') {
    options.requireInteraction = true;
    options.renotify = true;
    if (typeof data.token === 'string') options.actions = [{ action: 'accept', title: 'Approve' }, { action: 'decline', title: 'Decline' }];
  }
  event.waitUntil(self.registration.showNotification(title, options));
});

function sameOrigin(path) {
  const url = new URL(typeof path === 'string' ? path : '/', self.location.origin);
  return url.origin === self.location.origin ? url : new URL('/', self.location.origin);
}

async function answer(notification, decision) {
  const d = notification.data || {};
  let message = null;
  try {
    const response = await fetch(sameOrigin(d.actionPath || '/push/action'), {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: d.token, decision, approvalId: d.approvalId }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      message = typeof body.message === 'string' ? body.message : `HTTP ${response.status}`;
    }
  } catch (_) {
    message = 'the workstation cannot be reached';
  }
  if (message) {
    await self.registration.showNotification('Could not answer the approval', { body: message, tag: notification.tag, icon: 'icon-192.png', data: { url: d.url } });
  }
}

// What a tap on a notification (or one of its buttons) does; a function of its own so that it can be driven
// directly in tests (a headless browser cannot click a system notification).
async function handleNotificationClick(notification, action) {
  const d = notification.data || {};
  notification.close();
  if ((action === 'accept' || action === 'decline') && d.token) return answer(notification, action);
  const target = sameOrigin(d.url);
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const client of windows) {
    if (new URL(client.url).origin === self.location.origin && 'focus' in client) {
      await client.focus();
      if ('navigate' in client) await client.navigate(target.href).catch(() => {});
      return undefined;
    }
  }
  return self.clients.openWindow(target.href);
}

self.addEventListener('notificationclick', (event) => {
  event.waitUntil(handleNotificationClick(event.notification, event.action));
});
