// The service worker serves the app shell when the workstation cannot be reached, so an installed app opens
// and says "workstation unreachable" instead of showing a browser error page. Network first: a reachable
// bridge always serves its current files; the cache is only the fallback.
const CACHE = 'codex-bridge-shell-v3';
const SHELL = [
  './', 'index.html', 'app.css', 'app.js', 'fragment.js', 'dom.js', 'store.js', 'connection.js', 'threads.js',
  'ui.js', 'markdown.js', 'diff-view.js', 'approval-card.js', 'item-views.js', 'pairing.js', 'threads-screen.js',
  'thread-screen.js', 'new-thread-screen.js', 'diff-screen.js', 'file-screen.js', 'question-card.js', 'thread-extras.js', 'attachments.js', 'mention-picker.js', 'manifest.webmanifest', 'icon.svg', 'icon-192.png',
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
