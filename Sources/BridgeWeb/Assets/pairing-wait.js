// "Confirm on your workstation": shown while a bridge started with --confirm-pairing waits for
// `codex-bridge devices allow ID --check CODE`. The four-digit check code is on the workstation too (serve's
// terminal, `codex-bridge devices pending`): the same digits mean the workstation is looking at this phone, and
// `devices allow` refuses a pairing whose code is not the one this phone shows.
import { h } from './dom.js';

export function pairingWaitScreen(ctx, { check, deviceId, expiresAt, onCancel }) {
  const digits = String(check || '').split('');
  const left = h('p', { class: 'wait-left', attrs: { 'aria-live': 'off' } });
  const command = `codex-bridge devices allow ${deviceId} --check ${digits.join('')}`;
  const cancel = h('button', { type: 'button', class: 'secondary wide', text: 'Cancel', on: { click: () => onCancel() } });
  const el = h('div', { class: 'screen pair-screen wait-screen' },
    h('header', { class: 'bar' }, h('div', { class: 'titles' }, h('h1', { class: 'title', text: 'Codex Bridge', tabIndex: -1 })), ctx.indicator),
    h('main', { class: 'pair-main' },
      h('h2', { text: 'Confirm on your workstation' }),
      h('p', { text: 'This bridge lets a new phone in only once someone at the workstation says so. Check that it shows the same code:' }),
      h('p', { class: 'check-code', attrs: { role: 'img', 'aria-label': `Check code ${digits.join(' ')}` } },
        ...digits.map((d) => h('span', { class: 'check-digit', text: d, attrs: { 'aria-hidden': 'true' } }))),
      h('p', null, 'Then, on the workstation, run'),
      h('pre', { class: 'code-block wait-command', tabIndex: 0 }, h('code', { text: command })),
      h('p', { class: 'muted' }, 'or look at ', h('code', { text: 'codex-bridge devices pending' }), '. This page goes on by itself once it is allowed.'),
      h('p', { class: 'waiting' }, h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }), h('span', { text: 'Waiting for the workstation…' })),
      left,
      cancel));
  function tick() {
    const seconds = Math.max(0, Math.round(expiresAt - Date.now() / 1000));
    left.textContent = seconds > 0 ? `The request expires in ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}.` : 'The request expired.';
  }
  tick();
  const timer = setInterval(tick, 1000);
  return {
    el,
    title: () => 'Confirm on your workstation',
    destroy() { clearInterval(timer); },
  };
}
