// What this device may do (helloAck.scopes, then scopesChanged): the page shows only that. Elements marked
// data-scope="operate" (and the composer, the New thread button, approval buttons: see app.css) are hidden while
// the scope is missing; html carries one class per scope held (may-observe, may-operate, …).
import { h } from './dom.js';

export const ALL_SCOPES = ['observe', 'operate', 'approve', 'publish', 'run', 'admin'];

let current = ALL_SCOPES.slice();

/** Applies `scopes` (a bridge without scopes sends none: everything). */
export function setScopes(scopes) {
  current = Array.isArray(scopes) ? scopes.filter((s) => ALL_SCOPES.includes(s)) : ALL_SCOPES.slice();
  const root = document.documentElement;
  for (const s of ALL_SCOPES) root.classList.toggle(`may-${s}`, current.includes(s));
  root.classList.add('scopes-known');
}

export function may(scope) { return current.includes(scope); }

export function scopes() { return current.slice(); }

// What a device without the scope may not do, for "This phone may not …".
const MAY_NOT = {
  observe: 'see threads', operate: 'start or drive threads', approve: 'answer approvals and questions',
  publish: 'push or open pull requests', run: 'run commands', admin: 'manage devices',
};

/**
 * Says what this phone may not do and why, with a button that asks the workstation for the scope
 * (`requestScopes`); the answer's check code and the command that grants it follow. Shown only while the scope
 * is missing (app.css: `.scope-ask[data-needs]`). request(kind, fields) → Promise. Returns the element.
 */
export function scopeAsk(request, scope) {
  const text = h('p', { class: 'scope-ask-text', text: `This phone may not ${MAY_NOT[scope] || scope}: it lacks the “${scope}” scope, which only the workstation can grant.` });
  const ask = h('button', { type: 'button', class: 'secondary', text: 'Ask the workstation' });
  const answer = h('div', { class: 'scope-ask-answer', attrs: { 'aria-live': 'polite' } });
  ask.addEventListener('click', async () => {
    ask.disabled = true;
    try {
      const asked = await request('requestScopes', { scopes: [scope] });
      const until = new Date(asked.expiresAt * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      el.dataset.check = asked.check;
      answer.replaceChildren(
        h('p', null, 'Asked. Check code ', h('strong', { class: 'scope-check', text: asked.check }),
          ': the workstation shows the request; to grant it there, run'),
        h('pre', { class: 'code-block', tabIndex: 0 }, h('code', { text: `codex-bridge devices allow ${asked.deviceId} --check ${asked.check}` })),
        h('p', { class: 'muted', text: `It waits until ${until}. This page follows as soon as it is granted.` }));
      ask.textContent = 'Ask again';
    } catch (err) {
      answer.replaceChildren(h('p', { class: 'form-error', text: `Not asked: ${err && err.message ? err.message : err}` }));
    } finally {
      ask.disabled = false;
    }
  });
  const el = h('div', { class: 'scope-ask', dataset: { needs: scope } }, text, ask, answer);
  return el;
}

/**
 * The workstation refused a request for scopes, or nobody decided it in time (`scopeRequestEnded`): every "Ask
 * the workstation" on the page that shows that request says so. Returns what to tell the person.
 */
export function scopeRequestEnded(msg) {
  const what = (msg.scopes || []).join(', ') || 'more scopes';
  const said = msg.outcome === 'expired'
    ? `Nobody answered the request for “${what}” in time; you may ask again.`
    : `The workstation declined the request for “${what}”.`;
  for (const el of document.querySelectorAll('.scope-ask')) {
    if (el.dataset.check !== msg.check) continue;
    delete el.dataset.check;
    el.querySelector('.scope-ask-answer').replaceChildren(h('p', { class: 'form-error', text: said }));
  }
  return said;
}
