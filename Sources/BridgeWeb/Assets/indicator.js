// The connection indicator in every screen's header (role=status), the "not encrypted" mark, and the banner a
// screen shows while the workstation cannot be reached. They follow the session's status.
import { h } from './dom.js';
import { tryWorkstation } from './try-now.js';

// Before pairing there is no connection to speak of: the indicator says "Not paired". After a few failed attempts
// it is the workstation that cannot be reached (the phone's own network may be fine): said so, not "Offline".
const STATUS = { connected: 'Connected', reconnecting: 'Reconnecting…', offline: 'Workstation unreachable', connecting: 'Connecting…', rejected: 'Refused', unpaired: 'Not paired',
  pending: 'Waiting for approval' };

/** {indicator, banner}: elements the screens place (ctx.indicator, ctx.banner), kept up to date. */
export function connectionIndicator(session) {
  const statusText = h('span', { class: 'status-text', text: 'Connecting…' });
  const status = h('span', { class: 'status connecting', attrs: { role: 'status' } }, h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }), statusText);
  const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(location.hostname);
  const insecure = location.protocol === 'http:' && !loopback
    ? h('span', { class: 'insecure', title: 'This connection is plain http: anyone on the network can read it', text: 'not encrypted' })
    : null;
  const indicator = h('div', { class: 'indicator' }, insecure, status);
  // While the workstation cannot be reached (and until it is again: a Try now that failed says Reconnecting… a moment).
  const banner = h('div', { class: 'banner', hidden: true },
    h('span', { text: 'The app keeps trying and reconnects by itself; what you send meanwhile waits here.' }), ' ', tryWorkstation(session));
  let away = false;
  session.on('status', (s) => {
    statusText.textContent = STATUS[s] || s;
    status.className = `status ${s}`;
    away = s === 'offline' || (away && s === 'reconnecting');
    banner.hidden = !away || !session.credentials;
  });
  return { indicator, banner };
}
