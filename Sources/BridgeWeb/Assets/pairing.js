// Pairing: the device name sent with hello, pairing-code normalisation, and the screen shown when this
// browser has no credential for the bridge (how to pair, and a field to type the code by hand).
import { h } from './dom.js';

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]{10}$/;

/** As BRIDGE.md says: any case, dashes and spaces ignored, O read as 0, I and L as 1. */
export function normalizeCode(text) {
  const code = String(text || '').toUpperCase().replace(/[\s-]+/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  return CROCKFORD.test(code) ? code : null;
}

/** "Safari on iOS", "Chrome on Android", … for `devices list`. */
export function deviceName(ua = navigator.userAgent) {
  let os = 'unknown OS';
  if (/iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1)) os = 'iOS';
  else if (/Android/.test(ua)) os = 'Android';
  else if (/Windows/.test(ua)) os = 'Windows';
  else if (/Mac OS X|Macintosh/.test(ua)) os = 'macOS';
  else if (/CrOS/.test(ua)) os = 'ChromeOS';
  else if (/Linux/.test(ua)) os = 'Linux';
  let browser = 'Browser';
  if (/EdgA?\//.test(ua)) browser = 'Edge';
  else if (/SamsungBrowser/.test(ua)) browser = 'Samsung Internet';
  else if (/Firefox|FxiOS/.test(ua)) browser = 'Firefox';
  else if (/CriOS|Chrome|Chromium/.test(ua)) browser = 'Chrome';
  else if (/Safari/.test(ua)) browser = 'Safari';
  return `${browser} on ${os}`;
}

/**
 * The pairing screen. options.message: why it is shown (e.g. unpaired); options.onCode(code): pair with a code.
 * Returns {el, setError(text), setBusy(bool)}.
 */
export function pairingScreen(ctx, { message, onCode }) {
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const info = h('p', { class: 'form-info', attrs: { 'aria-live': 'polite' }, hidden: true });
  const input = h('input', {
    type: 'text', id: 'pair-code', class: 'code-input', placeholder: '7K3QZ-9M2XA', maxLength: 16,
    attrs: { autocomplete: 'one-time-code', autocapitalize: 'characters', autocorrect: 'off', spellcheck: 'false', inputmode: 'text', enterkeyhint: 'go' },
  });
  const submit = h('button', { type: 'submit', class: 'primary wide', text: 'Pair' });
  const form = h('form', { class: 'pair-form' },
    h('label', { htmlFor: 'pair-code', text: 'Pairing code' }), input, error, info, submit);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const code = normalizeCode(input.value);
    if (!code) {
      showError('A pairing code has 10 letters and digits, like 7K3QZ-9M2XA.');
      return;
    }
    onCode(code);
  });
  function showError(text) {
    error.textContent = text || '';
    error.hidden = !text;
  }
  const el = h('div', { class: 'screen pair-screen' },
    h('header', { class: 'bar' }, h('div', { class: 'titles' }, h('h1', { class: 'title', text: 'Codex Bridge' })), ctx.indicator),
    h('main', { class: 'pair-main' },
      message ? h('p', { class: 'notice', attrs: { role: 'alert' }, text: message }) : null,
      h('h2', { text: 'Pair this phone' }),
      h('ol', { class: 'steps' },
        h('li', null, 'On your workstation, run ', h('code', { text: 'codex-bridge pair' }), '.'),
        h('li', null, "Scan its QR code with your phone's camera (when it shows two, the second) and open the link."),
        h('li', null, 'Or type the 10-character code it shows here:')),
      form));
  return {
    el,
    title: () => 'Pair',
    setError: showError,
    setInfo(text) { info.textContent = text || ''; info.hidden = !text; },
    setBusy(busy) { submit.disabled = busy; submit.textContent = busy ? 'Pairing…' : 'Pair'; },
    destroy() {},
  };
}
