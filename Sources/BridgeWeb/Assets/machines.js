// The Machines screen's rules (issue 33), apart from its DOM so Tests/webunit runs them in node: what a linked
// machine's state means, what a pasted pairing link is, what `addMachine` is sent for a bridge found nearby.
// Names, hosts and addresses come from other machines: they are cleaned here and only ever shown as text. In
// this module's own text, `backquotes` mark a command (the screen shows it as code).
import { cleanName, linkProblem } from './fleet.js';

export const MAX_NAME = 64;

/** Each state a linked machine can be in: its chip and, when it is not plain, what it means and what to do. */
export const STATES = {
  online: { chip: 'Online', cls: 'ok', note: '' },
  offline: { chip: 'Offline', cls: 'offline', note: 'Not reachable now. This bridge keeps trying and links it again by itself.' },
  pending: { chip: 'Not confirmed yet', cls: 'pending', note: 'Its owner has not allowed this link yet: run `codex-bridge devices pending` on that workstation.' },
  revoked: {
    chip: 'Revoked', cls: 'failed',
    note: 'That workstation refused this bridge\'s credential: the link was revoked there. To link it again, add it below with a new pairing code from `codex-bridge pair` on it.',
  },
};

/** A `machines` entry as the screen shows it, or null when it is not one. */
export function linkedMachine(m) {
  if (!m || typeof m !== 'object' || typeof m.id !== 'string' || !m.id) return null;
  return {
    id: m.id,
    name: cleanName(m.name, m.id),
    address: cleanName(m.address, '', 300),
    state: Object.hasOwn(STATES, m.state) ? m.state : 'offline',
    addedAt: Number.isFinite(m.addedAt) ? m.addedAt : null,
    problem: linkProblem(m.error),
  };
}

/** A `nearby` entry (a bridge found over mDNS), or null when it cannot be linked (no host or port). */
export function nearbyMachine(n) {
  if (!n || typeof n !== 'object') return null;
  const host = cleanName(n.host, '', 255);
  const port = Number(n.port);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return {
    id: typeof n.id === 'string' ? n.id : null,
    name: cleanName(n.name, host),
    host,
    port,
    tls: n.tls === true,
    fingerprint: typeof n.fingerprint === 'string' && n.fingerprint ? n.fingerprint : null,
  };
}

/** Where a nearby bridge is, as text: `host:port` (an IPv6 address in brackets). */
export function nearbyAddress(n) {
  return `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`;
}

/**
 * The pairing link in what the person pasted: the link itself, or the `url` (else `webUrl`) of the whole
 * `codex-bridge pair --json` output. Trimmed; '' when nothing was pasted. The bridge judges the link.
 */
export function pairingLink(text) {
  const given = String(text || '').trim();
  if (given.startsWith('{')) {
    try {
      const json = JSON.parse(given);
      const url = json && (json.url || json.webUrl);
      if (typeof url === 'string') return url.trim();
    } catch (_) {
      // not JSON after all: the bridge says what is wrong with it
    }
  }
  return given;
}

/** The name the person typed: '' (none given), else trimmed; `error` when the bridge would refuse it. */
export function typedName(text) {
  const name = String(text || '').trim();
  const bad = [...name].length > MAX_NAME || [...name].some((c) => c.codePointAt(0) < 0x20 || c.codePointAt(0) === 0x7f);
  return { name, error: bad ? `A name is 1 to ${MAX_NAME} characters, without control characters.` : '' };
}

/** `addMachine`'s fields for a nearby bridge, the code its `codex-bridge pair` shows (normalized) and a name. */
export function nearbyFields(n, code, name) {
  const fields = { host: n.host, port: n.port, code };
  if (n.fingerprint) fields.fingerprint = n.fingerprint;
  if (name) fields.name = name;
  return fields;
}
