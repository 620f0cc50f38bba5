// Devices (admin scope): every paired device with its platform, scopes, last seen and recent actions, scope
// toggles, Rename and Revoke; a pairing link for another device; the bridge's recent activity. What
// `codex-bridge devices`, `pair` and `audit` do on the workstation.
import { h, relativeTime } from './dom.js';
import { header, toast, describeError } from './ui.js';
import { ALL_SCOPES, may } from './scopes.js';
import { SCOPE_MAY, mayText, actionWords, platformWords } from './device-words.js';

const STANDARD = ['observe', 'operate', 'approve'];

const WHO = { sharedSecret: 'Shared secret', desk: 'Desk TUI', notification: 'Notification', workstation: 'Workstation', bridge: 'Bridge' };

function actionText(e) {
  const done = actionWords(e);
  // A linked home bridge's request: who it says it acted for (as it reported it).
  const behalf = e.onBehalfOf;
  if (!behalf) return done;
  return `${done}, for ${behalf.name || behalf.deviceId || WHO[behalf.actor] || behalf.actor} at that bridge`;
}

function actionRow(e, { who = false } = {}) {
  const by = e.actor === 'device' ? (e.deviceName || e.deviceId) : (WHO[e.actor] || e.actor);
  return h('li', { class: `action ${e.outcome === 'ok' ? 'ok' : 'refused'}` },
    h('span', { class: 'action-what', text: who ? `${by}: ${actionText(e)}` : actionText(e) }),
    h('span', { class: 'action-when', text: relativeTime(e.at) }));
}

/** A checkbox per scope, each said as what it lets the device do ("May push and open pull requests"). */
function scopeBoxes(name, checked, { disabled = false, onChange } = {}) {
  return h('fieldset', { class: 'scope-boxes' },
    h('legend', { class: 'visually-hidden', text: 'What it may do' }),
    ALL_SCOPES.map((scope) => {
      const id = `${name}-${scope}`;
      const box = h('input', { type: 'checkbox', id, value: scope, checked: checked.includes(scope), disabled });
      if (onChange) box.addEventListener('change', () => onChange(box));
      return h('label', { class: 'scope-box', htmlFor: id }, box, h('span', { class: 'scope-text', text: `May ${SCOPE_MAY[scope]}` }));
    }));
}

function checkedScopes(fieldset) {
  return Array.from(fieldset.querySelectorAll('input:checked'), (b) => b.value);
}

/**
 * Rename: a field with the name, Save and Cancel; the bridge's refusal (an empty or too long name, control
 * characters) is said under the field. save(name) → Promise.
 */
function renameForm(d, save) {
  const id = `rename-${d.id}`;
  const input = h('input', { type: 'text', id, class: 'name-input', value: d.name, maxLength: 64, attrs: { autocomplete: 'off', enterkeyhint: 'done', 'aria-describedby': `${id}-error` } });
  const error = h('p', { class: 'form-error', id: `${id}-error`, attrs: { role: 'alert' } });
  const ok = h('button', { type: 'submit', class: 'primary', text: 'Save' });
  const cancel = h('button', { type: 'button', class: 'secondary', text: 'Cancel' });
  const el = h('form', { class: 'rename-device', hidden: true },
    h('label', { htmlFor: id, text: 'Name' }), input, error, h('div', { class: 'confirm-actions' }, ok, cancel));
  let back = null;
  const close = () => { el.hidden = true; error.textContent = ''; if (back) back.focus(); };
  cancel.addEventListener('click', close);
  el.addEventListener('submit', async (e) => {
    e.preventDefault();
    ok.disabled = true;
    error.textContent = '';
    try { await save(input.value); }
    catch (err) { error.textContent = `Not renamed: ${describeError(err)}`; input.focus(); }
    finally { ok.disabled = false; }
  });
  return { el, open(from) { back = from; el.hidden = false; input.value = d.name; input.focus(); input.select(); } };
}

/** The question before this phone revokes itself: open(returnFocusTo) shows it; Cancel puts it away. */
function selfConfirm(onConfirm) {
  const yes = h('button', { type: 'button', class: 'danger', text: 'Revoke this phone' });
  const no = h('button', { type: 'button', class: 'secondary', text: 'Cancel' });
  const el = h('div', { class: 'confirm-self', hidden: true, attrs: { role: 'group', 'aria-labelledby': 'confirm-self-title' } },
    h('p', { class: 'confirm-title', id: 'confirm-self-title', text: 'Revoke this phone?' }),
    h('p', { class: 'muted', text: 'It is unpaired at once: this page stops working and needs a new pairing code from the workstation.' }),
    h('div', { class: 'confirm-actions' }, yes, no));
  let back = null;
  no.addEventListener('click', () => { el.hidden = true; if (back) back.focus(); });
  yes.addEventListener('click', () => { yes.disabled = true; onConfirm(); });
  return { el, open(from) { back = from; el.hidden = false; no.focus(); } };
}

export function devicesScreen(ctx) {
  const { session } = ctx;
  const head = header(ctx, { title: 'Devices', subtitle: ctx.session.serverName || '', back: () => ctx.back('#/') });
  const list = h('div', { class: 'device-list' });
  const activity = h('ul', { class: 'action-list activity' });
  const pairResult = h('div', { class: 'pair-result', attrs: { 'aria-live': 'polite' } });
  const pairScopes = scopeBoxes('new', STANDARD);
  const pairButton = h('button', { type: 'button', class: 'primary', text: 'Make a pairing link' });
  const denied = h('p', { class: 'notice', hidden: true, text: 'This device may not manage devices (it needs the admin scope).' });
  const main = h('main', { class: 'devices-main' }, ctx.banner, denied,
    h('h2', { class: 'section-title', text: 'Paired devices' }), list,
    h('section', { class: 'card pair-card', attrs: { 'aria-labelledby': 'pair-title' } },
      h('h2', { id: 'pair-title', text: 'Pair another device' }), pairScopes, pairButton, pairResult),
    h('h2', { class: 'section-title', text: 'Recent activity' }), activity);
  const el = h('div', { class: 'screen devices-screen' }, head.el, main);

  pairButton.addEventListener('click', async () => {
    const scopes = checkedScopes(pairScopes);
    if (!scopes.length) { toast('Choose at least one scope.'); return; }
    pairButton.disabled = true;
    try {
      const answer = await session.request('pairDevice', { scopes, ttl: 600 });
      const link = `${location.origin}${location.pathname}#pair=v1&code=${answer.code}`;
      const copy = h('button', { type: 'button', class: 'secondary', text: 'Copy link' });
      copy.addEventListener('click', async () => {
        try { await navigator.clipboard.writeText(link); toast('Link copied'); } catch (_) { toast('Copy is not available here: select the link'); }
      });
      pairResult.replaceChildren(
        h('p', null, 'Open this link on the other device (single use, for 10 minutes), or type the code ', h('strong', { class: 'pair-code', text: `${answer.code.slice(0, 5)}-${answer.code.slice(5)}` }), ':'),
        h('pre', { class: 'code-block pair-link', tabIndex: 0 }, h('code', { text: link })), copy,
        h('p', { class: 'muted', text: `It may ${mayText(answer.scopes)}.` }));
      load();
    } catch (err) {
      toast(`No pairing code: ${describeError(err)}`);
    } finally {
      pairButton.disabled = false;
    }
  });

  function card(d) {
    const badges = [
      d.current ? h('span', { class: 'chip ok', text: 'This phone' }) : null,
      d.connected && !d.current ? h('span', { class: 'chip running', text: 'Connected' }) : null,
      d.revoked ? h('span', { class: 'chip failed', text: 'Revoked' }) : null,
    ];
    const meta = [platformWords(d.platform), d.lastSeenAt ? `seen ${relativeTime(d.lastSeenAt)}` : null, d.lastAddress ? `from ${d.lastAddress}` : null].filter(Boolean).join(' · ');
    const boxes = scopeBoxes(`d-${d.id}`, d.scopes || [], {
      disabled: d.revoked,
      async onChange(box) {
        const scopes = checkedScopes(boxes);
        if (!scopes.length) {
          box.checked = true;
          toast('A device needs at least one scope; revoke it instead.');
          return;
        }
        for (const b of boxes.querySelectorAll('input')) b.disabled = true;
        try {
          const answer = await session.request('setDeviceScopes', { deviceId: d.id, scopes });
          toast(`${d.name} may now ${mayText(answer.device.scopes)}.`);
        } catch (err) {
          box.checked = !box.checked;
          toast(`Not changed: ${describeError(err)}`);
        }
        for (const b of boxes.querySelectorAll('input')) b.disabled = false;
      },
    });
    const revoke = h('button', { type: 'button', class: 'danger', text: 'Revoke', hidden: d.revoked, attrs: { 'aria-label': d.current ? 'Revoke' : `Revoke ${d.name}` } });
    // This phone's own Revoke asks first, saying what it means (the page is unpaired at once).
    const confirmSelf = d.current ? selfConfirm(() => revokeNow()) : null;
    let armed = null;
    async function revokeNow() {
      revoke.disabled = true;
      try {
        await session.request('revokeDevice', { deviceId: d.id });
        toast(`${d.name} is revoked: its connections close within 2 s.`);
        load();
      } catch (err) {
        revoke.disabled = false;
        revoke.textContent = 'Revoke';
        toast(`Not revoked: ${describeError(err)}`);
      }
    }
    revoke.addEventListener('click', async () => {
      if (confirmSelf) { confirmSelf.open(revoke); return; }
      if (!armed) {
        revoke.textContent = 'Tap again to revoke';
        armed = setTimeout(() => { armed = null; revoke.textContent = 'Revoke'; }, 4000);
        return;
      }
      clearTimeout(armed);
      armed = null;
      await revokeNow();
    });
    const rename = h('button', { type: 'button', class: 'secondary', text: 'Rename', hidden: d.revoked, attrs: { 'aria-label': d.current ? 'Rename this phone' : `Rename ${d.name}` } });
    const renamer = d.revoked ? null : renameForm(d, async (name) => {
      const answer = await session.request('renameDevice', { deviceId: d.id, name });
      toast(`Renamed: ${answer.device.name}`);
      load();
    });
    if (renamer) rename.addEventListener('click', () => renamer.open(rename));
    const recent = d.recentActions || [];
    return h('section', { class: `card device-card${d.revoked ? ' revoked' : ''}`, dataset: { deviceId: d.id }, attrs: { 'aria-label': d.name } },
      h('div', { class: 'device-head' }, h('h3', { class: 'device-name', text: d.name }), ...badges),
      h('p', { class: 'device-meta', text: meta }),
      d.revoked ? null : boxes,
      recent.length ? h('details', { class: 'device-recent' },
        h('summary', { text: `Last: ${actionText(recent[0])}, ${relativeTime(recent[0].at)}` }),
        h('ul', { class: 'action-list' }, recent.map((e) => actionRow(e)))) : h('p', { class: 'muted', text: 'No actions yet.' }),
      h('div', { class: 'device-actions' }, rename, revoke), renamer && renamer.el, confirmSelf && confirmSelf.el);
  }

  async function load() {
    denied.hidden = may('admin');
    if (!may('admin')) { list.replaceChildren(); activity.replaceChildren(); return; }
    try {
      const [devices, audit] = await Promise.all([session.request('listDevices'), session.request('listAudit', { limit: 20 })]);
      const all = devices.devices || [];
      const active = all.filter((d) => !d.revoked);
      const revoked = all.filter((d) => d.revoked);
      // This phone first: it is the card a person looks for.
      active.sort((a, b) => Number(!!b.current) - Number(!!a.current));
      list.replaceChildren(...active.map(card));
      if (revoked.length) list.append(h('details', { class: 'revoked-devices' }, h('summary', { text: `Revoked (${revoked.length})` }), revoked.map(card)));
      if (!all.length) list.replaceChildren(h('p', { class: 'muted', text: 'No paired devices.' }));
      activity.replaceChildren(...(audit.entries || []).map((e) => actionRow(e, { who: true })));
    } catch (err) {
      if (err.code === 'closed') return;
      list.replaceChildren(h('p', { class: 'form-error', text: `Could not list the devices: ${describeError(err)}` }));
    }
  }

  load();
  return { el, title: () => 'Devices', reload: load, destroy() {} };
}
