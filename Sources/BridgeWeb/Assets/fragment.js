// Imported first by app.js so that it runs before any other module: the pairing data in the URL fragment
// (#pair=v1&code=…&id=…&name=…&fp=…) is read and removed from the address bar at once, so it is not left in
// the history, a bookmark, a screenshot of the address bar or a shared link. A pairing link opened in a tab
// that already shows the app changes only the fragment (no reload): app.js takes it on `hashchange`.

/** The pairing data of the current fragment, removed from the address bar; null when it holds none. */
export function takePairingFragment() {
  const hash = location.hash;
  if (!hash.startsWith('#pair=') && !hash.includes('&code=')) return null;
  const params = new URLSearchParams(hash.slice(1));
  history.replaceState(history.state, '', location.pathname + location.search);
  return {
    version: params.get('pair') || '',
    code: params.get('code') || '',
    token: params.get('token') || '',
    serverId: params.get('id') || '',
    name: params.get('name') || '',
    fp: params.get('fp') || '',
  };
}

export const pairingFragment = takePairingFragment();
