// Notifications: the "Notify me" control (permission is asked only after a tap, as browsers require), the
// Web Push subscription sent to the bridge (pushSubscribe), presence (the bridge pushes only to devices whose
// page is not on screen, so the page says when it is hidden or visible) and the service worker's registration.
// `session` below is the app's Session (session.js): requests go on its current connection.
import { h } from './dom.js';
import { toast, describeError } from './ui.js';

const SAVED = 'codex-bridge-push';
const HINT_HIDDEN = 'codex-bridge-push-hint-hidden';

/** iPhone/iPad Safari outside the Home Screen app: push exists only in the installed web app (iOS 16.4+). */
export function needsHomeScreen() {
  const ios = /iPhone|iPad|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
  const standalone = navigator.standalone === true || matchMedia('(display-mode: standalone)').matches;
  return ios && !standalone;
}

export function pushSupported() {
  return window.isSecureContext && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function savedState() {
  try { return JSON.parse(localStorage.getItem(SAVED) || 'null'); } catch (_) { return null; }
}

/** Tells the bridge whether this page is on screen, now and on every change. */
export function sendPresence(session) {
  if (!session) return;
  session.request('presence', { visible: document.visibilityState === 'visible' }).catch(() => {});
}

/** Subscribes this browser and registers the subscription with the bridge; returns the subscription id. */
export async function enablePush(session, publicKey) {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new Error('Notifications are blocked for this site in the browser settings.');
  const registration = await navigator.serviceWorker.ready;
  let subscription = await registration.pushManager.getSubscription();
  if (subscription) {
    // A subscription made for another key (another bridge) cannot be used: make a new one.
    const current = subscription.options && subscription.options.applicationServerKey;
    const wanted = keyBytes(publicKey);
    if (current && new Uint8Array(current).join() !== wanted.join()) { await subscription.unsubscribe(); subscription = null; }
  }
  if (!subscription) subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
  const json = subscription.toJSON();
  const answer = await session.request('pushSubscribe', { subscription: { endpoint: json.endpoint, keys: json.keys } });
  localStorage.setItem(SAVED, JSON.stringify({ subscriptionId: answer.subscriptionId, key: publicKey }));
  return answer.subscriptionId;
}

/**
 * After each handshake: a browser that has notifications on registers its current subscription again (the
 * endpoint may have changed, or the bridge dropped it); the bridge keeps one row per endpoint.
 */
export async function resyncPush(session, publicKey) {
  const state = savedState();
  if (!state || !publicKey || state.key !== publicKey || !pushSupported() || Notification.permission !== 'granted') return;
  try {
    const registration = await navigator.serviceWorker.getRegistration();
    const subscription = registration && await registration.pushManager.getSubscription();
    if (!subscription) { localStorage.removeItem(SAVED); return; }
    const json = subscription.toJSON();
    const answer = await session.request('pushSubscribe', { subscription: { endpoint: json.endpoint, keys: json.keys } });
    localStorage.setItem(SAVED, JSON.stringify({ subscriptionId: answer.subscriptionId, key: publicKey }));
  } catch (_) { /* tried again at the next connection */ }
}

export async function disablePush(session) {
  const state = savedState();
  localStorage.removeItem(SAVED);
  if (state && state.subscriptionId) await session.request('pushUnsubscribe', { subscriptionId: state.subscriptionId }).catch(() => {});
  const registration = await navigator.serviceWorker.getRegistration();
  const subscription = registration && await registration.pushManager.getSubscription();
  if (subscription) await subscription.unsubscribe();
}

/** The control on the threads screen; hidden when the bridge offers no push. */
export function notifyControl(ctx) {
  const text = h('span', { class: 'notify-text' });
  const button = h('button', { type: 'button', class: 'secondary notify-button' });
  const hide = h('button', { type: 'button', class: 'text-button notify-hide', text: 'Hide', hidden: true });
  const el = h('div', { class: 'notify-bar', hidden: true }, text, button, hide);
  let busy = false;

  function render() {
    const key = ctx.session.pushPublicKey;
    const state = savedState();
    const on = !!(state && state.key === key && typeof Notification !== 'undefined' && Notification.permission === 'granted');
    el.hidden = !key;
    hide.hidden = true;
    el.classList.remove('compact');
    if (!key) return;
    // Plain http (a LAN address) gives no push anywhere, the Home Screen app included: say how to get https.
    if (!window.isSecureContext) {
      el.hidden = localStorage.getItem(HINT_HIDDEN) === '1';
      hide.hidden = false;
      text.replaceChildren('Notifications need https, and this page came over plain http: run ',
        h('code', { text: 'codex-bridge serve --tls' }), ' on the workstation and scan the first code it prints.');
      button.hidden = true;
      return;
    }
    if (needsHomeScreen()) {
      el.hidden = localStorage.getItem(HINT_HIDDEN) === '1';
      el.classList.add('compact');
      text.textContent = 'For notifications, add this app to the Home Screen (Share, then Add to Home Screen).';
      button.hidden = true;
      hide.hidden = false;
      return;
    }
    if (!ctx.session.deviceId) {
      text.textContent = 'Notifications need a paired phone: scan a code from codex-bridge pair.';
      button.hidden = true;
      return;
    }
    if (!pushSupported()) {
      text.textContent = 'This browser cannot show notifications.';
      button.hidden = true;
      return;
    }
    button.hidden = false;
    button.disabled = busy;
    text.textContent = on ? 'Notifications are on for approvals and finished turns while this app is closed.' : 'Get a notification when Codex needs an approval or finishes.';
    button.textContent = on ? 'Turn off' : 'Notify me';
    button.dataset.on = on ? '1' : '';
  }

  hide.addEventListener('click', () => {
    localStorage.setItem(HINT_HIDDEN, '1');
    render();
  });
  button.addEventListener('click', async () => {
    if (busy) return;
    busy = true;
    render();
    try {
      if (button.dataset.on) {
        await disablePush(ctx.session);
        toast('Notifications off');
      } else {
        await enablePush(ctx.session, ctx.session.pushPublicKey);
        toast('Notifications on');
      }
    } catch (err) {
      toast(`Could not turn notifications on: ${describeError(err)}`);
    } finally {
      busy = false;
      render();
    }
  });
  render();
  return { el, render };
}

/**
 * Registers the service worker (sw.js: the app shell offline, and notifications) where the page may have one.
 * A registration that fails (say the network changed while sw.js was fetched) is tried again, a few times and
 * whenever the browser is back online: notifications wait for a registered worker.
 */
export function registerWorker() {
  if (!('serviceWorker' in navigator && window.isSecureContext)) return;
  let failures = 0;
  const register = () => navigator.serviceWorker.register('sw.js').catch(() => {
    failures += 1;
    if (failures < 6) setTimeout(register, 1000 * failures);
  });
  addEventListener('load', register);
  addEventListener('online', () => { failures = 0; register(); });
}
