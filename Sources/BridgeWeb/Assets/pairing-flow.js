// Pairing as the app shows it: the pairing screen, a pairing link's fragment (read at load or on hashchange), the
// wait while the workstation's owner confirms, and what a refused or failed pairing says. The session does the
// pairing itself (session.js); this only picks the screen for each of its steps.
import { pairingScreen } from './pairing.js';
import { pairingWaitScreen } from './pairing-wait.js';
import { toast } from './ui.js';

/** Wires the session's pairing events to screens shown through `show`; `route()` shows the app once paired. */
export function pairingFlow(ctx, show, route) {
  const { session } = ctx;

  function showPairing(message, error) {
    const s = pairingScreen(ctx, {
      message,
      onCode(code, name) {
        session.beginPairing(code, name);
        s.setBusy(true);
        s.setError('');
        session.connect();
      },
    });
    show(s);
    if (!session.conn) session.setStatus(session.credentials ? 'rejected' : 'unpaired');
    if (error) s.setError(error);
    if (session.pairing) s.setBusy(true);
    return s;
  }

  /** Redeems a fragment's code, or keeps its static token; true when it started pairing or showed why it cannot. */
  function useFragment(fragment) {
    if (fragment.version !== 'v1') {
      showPairing(undefined, 'This pairing link is from a newer version of codex-bridge; reload this page and scan again.');
      return true;
    }
    if (fragment.code) {
      session.beginPairing(fragment.code, undefined, fragment.name);
      showPairing().setInfo(fragment.name ? `Pairing with ${fragment.name}…` : 'Pairing…');
      session.connect();
      return true;
    }
    if (fragment.token && session.useToken(fragment)) {
      ctx.navigate('#/', { replace: true });
      return true;
    }
    return false;
  }

  session.on('paired', () => ctx.navigate('#/', { replace: true }));
  session.on('refused', (message) => showPairing(message));
  session.on('pending', ({ check, deviceId, expiresAt }) => show(pairingWaitScreen(ctx, {
    check, deviceId, expiresAt,
    onCancel() {
      session.cancelPairing();
      showPairing(undefined, 'Pairing cancelled. Scan a new code to try again.');
    },
  })));
  session.on('pairingFailed', (message) => {
    if (!session.credentials) { showPairing(undefined, message); return; }
    // Still paired with the bridge this phone knew (the session went back to it): say why the new code did not work.
    route();
    toast(message, { ms: 8000 });
  });

  return { showPairing, useFragment };
}
