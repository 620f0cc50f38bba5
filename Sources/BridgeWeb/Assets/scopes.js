// What this device may do (helloAck.scopes, then scopesChanged): the page shows only that. Elements marked
// data-scope="operate" (and the composer, the New thread button, approval buttons: see app.css) are hidden while
// the scope is missing; html carries one class per scope held (may-observe, may-operate, …).
export const ALL_SCOPES = ['observe', 'operate', 'approve', 'publish', 'run', 'admin'];

export const SCOPE_TEXT = {
  observe: 'See threads, their changes and files',
  operate: 'Start and drive threads, upload photos (the agent can read every file you can)',
  approve: 'Answer approvals and questions',
  publish: 'Push and open pull requests',
  run: 'Run commands',
  admin: 'Manage devices and linked machines',
};

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
