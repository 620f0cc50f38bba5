// The service worker serves the app shell when the workstation cannot be reached, so an installed app opens
// and says "workstation unreachable" instead of showing a browser error page. Network first: a reachable
// bridge always serves its current files; the cache is only the fallback.
const CACHE = 'codex-bridge-shell-v3';
const SHELL = [
  './', 'index.html', 'app.css', 'app.js', 'fragment.js', 'dom.js', 'store.js', 'connection.js', 'threads.js',
  'ui.js', 'markdown.js', 'diff-view.js', 'approval-card.js', 'item-views.js', 'pairing.js', 'threads-screen.js',
  'thread-screen.js', 'new-thread-screen.js', 'diff-screen.js', 'file-screen.js', 'push.js', 'question-card.js', 'thread-extras.js', 'attachments.js', 'mention-picker.js', 'manifest.webmanifest', 'icon.svg', 'icon-192.png',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname === '/healthz' || url.pathname === '/health' || url.pathname === '/metrics') return;
  event.respondWith((async () => {
    try {
      const response = await fetch(request);
      if (response.ok) {
        const copy = response.clone();
        caches.open(CACHE).then((cache) => cache.put(request.mode === 'navigate' ? './' : request, copy)).catch(() => {});
      }
      return response;
    } catch (err) {
      const cached = await caches.match(request.mode === 'navigate' ? './' : request, { ignoreSearch: true });
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
