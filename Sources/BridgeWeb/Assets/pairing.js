// Pairing: the device name sent with hello, pairing-code normalisation, and the screen shown when this
// browser has no credential for the bridge (how to pair, and a field to type the code by hand).
import { h } from './dom.js';

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]{10}$/;

/** As BRIDGE.md says: any case, dashes and spaces ignored, O read as 0, I and L as 1. */
export function normalizeCode(text) {
  const code = String(text || '').toUpperCase().replace(/[\s-]+/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  return CROCKFORD.test(code) ? code : null;
}

// Chromium tells the model only when asked (a high-entropy client hint): asked once, early, so the name is ready
// by the time the pairing hello goes out.
let hintedModel = '';
if (navigator.userAgentData && navigator.userAgentData.getHighEntropyValues) {
  navigator.userAgentData.getHighEntropyValues(['model']).then((v) => { hintedModel = (v && v.model) || ''; }).catch(() => {});
}

function browserHints() {
  const d = navigator.userAgentData;
  return { platform: d ? d.platform : '', mobile: d ? d.mobile : undefined, brands: d ? d.brands : [], model: hintedModel, touch: navigator.maxTouchPoints || 0 };
}

/**
 * "Safari on iPhone", "Chrome on Pixel 8", "Firefox on Android phone", … for `devices list`: from the user agent and,
 * where the browser has them, its client hints (`navigator.userAgentData`: platform, brands, model).
 */
export function deviceName(ua = navigator.userAgent, hints = browserHints()) {
  return `${browserOf(ua, (hints.brands || []).map((b) => b.brand))} on ${deviceOf(ua, hints)}`;
}

function browserOf(ua, brands) {
  if (/EdgiOS|EdgA?\//.test(ua) || brands.includes('Microsoft Edge')) return 'Edge';
  if (/OPR\/|OPiOS/.test(ua) || brands.includes('Opera')) return 'Opera';
  if (/SamsungBrowser/.test(ua)) return 'Samsung Internet';
  if (/Firefox|FxiOS/.test(ua)) return 'Firefox';
  if (/CriOS|Chrome\/|Chromium/.test(ua) || brands.includes('Google Chrome')) return 'Chrome';
  if (/Safari/.test(ua) && /iPhone|iPad|iPod|Macintosh/.test(ua)) return 'Safari';
  return /AppleWebKit/.test(ua) ? 'WebKit' : 'Browser'; // Safari exists only on Apple's systems
}

function deviceOf(ua, hints) {
  const platform = hints.platform || '';
  if (/iPad/.test(ua) || (/Macintosh/.test(ua) && hints.touch > 1)) return 'iPad'; // iPadOS asks for the desktop site
  if (/iPhone|iPod/.test(ua)) return 'iPhone';
  if (/Android/.test(ua) || platform === 'Android') {
    const model = modelName(hints.model) || modelName((/Android[^;)]*;\s*([^;)]+?)(?:\s+Build\/[^;)]*)?\)/.exec(ua) || [])[1]);
    if (model) return model;
    const mobile = platform && typeof hints.mobile === 'boolean' ? hints.mobile : /Mobile/.test(ua);
    return mobile ? 'Android phone' : 'Android tablet';
  }
  if (platform === 'Windows' || /Windows/.test(ua)) return 'Windows';
  if (platform === 'macOS' || /Macintosh|Mac OS X/.test(ua)) return 'Mac';
  if (/^Chrome ?OS$/.test(platform) || /CrOS/.test(ua)) return 'Chromebook';
  if (platform === 'Linux' || /Linux/.test(ua)) return 'Linux';
  return platform || 'an unknown system';
}

/** A model as the browser gives it; '' for none or the reduced user agent's placeholder ("K"). */
function modelName(model) {
  const m = String(model || '').trim();
  return m && m !== 'K' && m.length <= 40 && !/^(Mobile|Tablet|wv|rv:)/i.test(m) ? m : '';
}

/**
 * The pairing screen. options.message: why it is shown (e.g. unpaired); options.onCode(code, name): pair with a code,
 * naming this phone so (the name the browser suggests unless the person typed another).
 * Returns {el, setError(text), setBusy(bool)}.
 */
export function pairingScreen(ctx, { message, onCode }) {
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const info = h('p', { class: 'form-info', attrs: { 'aria-live': 'polite' }, hidden: true });
  const input = h('input', {
    type: 'text', id: 'pair-code', class: 'code-input', placeholder: '7K3QZ-9M2XA', maxLength: 16,
    attrs: { autocomplete: 'one-time-code', autocapitalize: 'characters', autocorrect: 'off', spellcheck: 'false', inputmode: 'text', enterkeyhint: 'go' },
  });
  const name = h('input', { type: 'text', id: 'pair-name', class: 'name-input', value: deviceName(), maxLength: 100, attrs: { autocomplete: 'off', enterkeyhint: 'go' } });
  const submit = h('button', { type: 'submit', class: 'primary wide', text: 'Pair' });
  const form = h('form', { class: 'pair-form' },
    h('label', { htmlFor: 'pair-code', text: 'Pairing code' }), input, error, info,
    h('label', { htmlFor: 'pair-name', text: 'Name this phone' }), name, submit);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const code = normalizeCode(input.value);
    if (!code) {
      showError('A pairing code has 10 letters and digits, like 7K3QZ-9M2XA.');
      return;
    }
    onCode(code, name.value.trim() || deviceName());
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
