// Machines (admin scope, issue 33): the workstations linked to this bridge, with their state, Rename and
// Remove, and "Add a workstation": its pairing link pasted, or a bridge found on this network and the code its
// `codex-bridge pair` shows. What `codex-bridge machines` does on the workstation. Every name and address here
// comes from another machine: text only (machines.js cleans it).
import { h, relativeTime } from './dom.js';
import { header, toast, describeError } from './ui.js';
import { may } from './scopes.js';
import { normalizeCode } from './pairing.js';
import { STATES, MAX_NAME, linkedMachine, nearbyMachine, nearbyAddress, pairingLink, typedName, nearbyFields } from './machines.js';
import { tryMachine } from './try-now.js';
import { problemText } from './fleet.js';

let serial = 0;

/** This screen's own text with `commands` in backquotes: the commands become code (not broken at a dash). */
function withCode(text) {
  return text.split('`').map((part, i) => (i % 2 ? h('code', { class: 'command', text: part }) : part));
}

/** A labelled text field; `id` ties the label to it. */
function field(label, input, hint) {
  return h('div', { class: 'machine-field-row' }, h('label', { htmlFor: input.id, text: label }), input,
    hint ? h('p', { class: 'field-hint' }, withCode(hint)) : null);
}

function textInput(id, props = {}) {
  return h('input', { type: 'text', id, class: 'text-input', ...props, attrs: { autocomplete: 'off', autocapitalize: 'off', autocorrect: 'off', spellcheck: 'false', ...(props.attrs || {}) } });
}

export function machinesScreen(ctx) {
  const head = header(ctx, { title: 'Machines', subtitle: ctx.session.serverName || '', back: () => ctx.back('#/') });
  const denied = h('p', { class: 'notice', hidden: true, text: 'This device may not manage machines (it needs the admin scope).' });
  const list = h('div', { class: 'machine-list' });
  const addCard = addSection();
  const main = h('main', { class: 'devices-main machines-main' }, ctx.banner, denied,
    h('p', { class: 'muted intro', text: 'Workstations linked to this one: their threads are in this phone\'s list and their approvals in Needs you.' }),
    h('h2', { class: 'section-title', text: 'Linked workstations' }), list, addCard.el);
  const el = h('div', { class: 'screen machines-screen' }, head.el, main);
  let alive = true;
  let held = null; // the latest list while a card is being edited: shown when the editing ends
  let editing = 0;
  let pendingLoad = null;

  // -- the linked machines --------------------------------------------------------------------------------
  function render(answer) {
    const all = (answer.machines || []).map(linkedMachine).filter(Boolean);
    if (editing) { held = all; return; }
    held = null;
    list.replaceChildren(...(all.length ? all.map(card) : [h('p', { class: 'muted empty-machines', text: 'No other workstation is linked yet. Add one below.' })]));
  }

  function editDone() {
    editing = Math.max(0, editing - 1);
    if (!editing && held) render({ machines: held });
  }

  function card(m) {
    const state = STATES[m.state];
    const nameEl = h('h3', { class: 'device-name machine-name', text: m.name });
    const meta = [m.address, m.addedAt ? `added ${relativeTime(m.addedAt)}` : null].filter(Boolean).join(' · ');
    const renameButton = h('button', { type: 'button', class: 'secondary', text: 'Rename', attrs: { 'aria-label': `Rename ${m.name}` } });
    const removeButton = h('button', { type: 'button', class: 'danger', text: 'Remove', attrs: { 'aria-label': `Remove ${m.name}` } });
    const actions = h('div', { class: 'device-actions machine-actions' }, renameButton, removeButton);

    // Rename, in place: the name becomes a field with Save and Cancel.
    const n = ++serial;
    const input = textInput(`machine-rename-${n}`, { value: m.name, maxLength: MAX_NAME, attrs: { enterkeyhint: 'done' } });
    const renameError = h('p', { class: 'form-error', attrs: { role: 'alert' } });
    const save = h('button', { type: 'submit', class: 'primary', text: 'Save' });
    const cancel = h('button', { type: 'button', class: 'secondary', text: 'Cancel' });
    const renameForm = h('form', { class: 'rename-form', hidden: true },
      field('Name', input, `As this phone and the others paired here show it (1 to ${MAX_NAME} characters).`), renameError,
      h('div', { class: 'confirm-actions row' }, save, cancel));
    function closeRename() {
      renameForm.hidden = true;
      actions.hidden = false;
      renameButton.focus();
      editDone();
    }
    renameButton.addEventListener('click', () => {
      editing += 1;
      renameForm.hidden = false;
      actions.hidden = true;
      renameError.textContent = '';
      input.value = m.name;
      input.focus();
      input.select();
    });
    cancel.addEventListener('click', closeRename);
    renameForm.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); closeRename(); } });
    renameForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      const { name, error } = typedName(input.value);
      if (!name || error) { renameError.textContent = error || 'Type a name.'; input.focus(); return; }
      if (name === m.name) { closeRename(); return; }
      save.disabled = true;
      try {
        const answer = await ctx.session.request('renameMachine', { machineId: m.id, name });
        toast(`Renamed to ${name}`);
        closeRename();
        if (alive) render(answer);
      } catch (err) {
        renameError.textContent = `Not renamed: ${describeError(err)}`;
      } finally {
        save.disabled = false;
      }
    });

    // Remove asks first, and says what it does not do: the other workstation still lists this bridge.
    const confirmId = `machine-remove-${n}`;
    const yes = h('button', { type: 'button', class: 'danger', text: 'Remove' });
    const no = h('button', { type: 'button', class: 'secondary', text: 'Cancel' });
    const confirm = h('div', { class: 'confirm-self confirm-remove', hidden: true, attrs: { role: 'group', 'aria-labelledby': confirmId } },
      h('p', { class: 'confirm-title', id: confirmId, text: `Remove ${m.name}?` }),
      h('p', { class: 'muted' }, `Its threads leave this phone's list. ${m.name} still lists this bridge as a device until it is revoked there (`,
        h('code', { class: 'command', text: 'codex-bridge devices revoke' }), ' on that workstation).'),
      h('div', { class: 'confirm-actions' }, yes, no));
    function closeConfirm() {
      confirm.hidden = true;
      actions.hidden = false;
      removeButton.focus();
      editDone();
    }
    removeButton.addEventListener('click', () => {
      editing += 1;
      confirm.hidden = false;
      actions.hidden = true;
      no.focus();
    });
    no.addEventListener('click', closeConfirm);
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      try {
        const answer = await ctx.session.request('removeMachine', { machineId: m.id });
        toast(`${m.name} is removed`);
        editDone();
        if (alive) render(answer);
      } catch (err) {
        yes.disabled = false;
        toast(`Not removed: ${describeError(err)}`);
        closeConfirm();
        load();
      }
    });

    return h('section', { class: `card device-card machine-card is-${m.state}`, dataset: { machineId: m.id }, attrs: { 'aria-label': m.name } },
      h('div', { class: 'device-head' }, nameEl, h('span', { class: `chip machine-state-chip ${state.cls}`, text: state.chip })),
      meta ? h('p', { class: 'device-meta machine-address', text: meta }) : null,
      m.problem ? h('p', { class: 'machine-state-note problem', attrs: { role: 'status' } }, problemText(m.name, m.problem),
        m.state === 'offline' ? [' ', tryMachine(ctx.session, m.id, m.name)] : null)
        : state.note ? h('p', { class: `machine-state-note ${m.state}` }, withCode(state.note),
          m.state === 'offline' ? [' ', tryMachine(ctx.session, m.id, m.name)] : null) : null,
      renameForm, actions, confirm);
  }

  // -- adding one -----------------------------------------------------------------------------------------
  function addSection() {
    const link = textInput('machine-link', { placeholder: 'codex-bridge://pair?…', attrs: { inputmode: 'url', enterkeyhint: 'go' } });
    const name = textInput('machine-name', { maxLength: MAX_NAME, placeholder: 'Its own name' });
    const addButton = h('button', { type: 'submit', class: 'primary', text: 'Add workstation' });
    const linkForm = h('form', { class: 'add-machine-form' },
      field('Pairing link', link, 'On the other workstation, run `codex-bridge pair --json` and paste its "url" here.'),
      field('Name (optional)', name), addButton);
    const findButton = h('button', { type: 'button', class: 'secondary', text: 'Find on this network' });
    const nearby = h('div', { class: 'nearby' });
    const progress = h('p', { class: 'waiting add-progress', hidden: true, attrs: { role: 'status' } });
    const error = h('p', { class: 'form-error add-error', attrs: { role: 'alert' } });
    const section = h('section', { class: 'card add-machine', attrs: { 'aria-labelledby': 'add-machine-title' } },
      h('h2', { id: 'add-machine-title', text: 'Add a workstation' }),
      linkForm,
      h('p', { class: 'or', text: 'or' }),
      findButton, nearby, progress, error);
    let busy = false;

    function showError(text) {
      error.textContent = text;
      if (error.scrollIntoView) error.scrollIntoView({ block: 'nearest' });
    }

    function setBusy(text) {
      busy = !!text;
      for (const b of section.querySelectorAll('button')) b.disabled = busy;
      progress.hidden = !busy;
      progress.replaceChildren(...(busy ? [h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }), h('span', { text })] : []));
      if (busy && progress.scrollIntoView) progress.scrollIntoView({ block: 'nearest' }); // below the form on a phone
    }

    async function add(fields, label) {
      if (busy) return;
      error.textContent = '';
      setBusy(`Linking ${label}… If that workstation confirms new devices (serve --confirm-pairing), this waits until its owner allows it there.`);
      const before = new Set([...list.querySelectorAll('.machine-card')].map((c) => c.dataset.machineId));
      try {
        const answer = await ctx.session.request('addMachine', fields);
        if (!alive) return;
        const added = (answer.machines || []).map(linkedMachine).filter((m) => m && !before.has(m.id));
        toast(added.length ? `${added[0].name} is linked` : 'Linked again');
        link.value = '';
        name.value = '';
        nearby.replaceChildren();
        render(answer);
      } catch (err) {
        if (!alive) return;
        showError(err.code === 'closed'
          ? 'The connection to this bridge dropped while linking: look at the list once it is back.'
          : `Not added: ${describeError(err)}`);
      } finally {
        if (alive) setBusy('');
      }
    }

    linkForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const url = pairingLink(link.value);
      if (!url) { showError('Paste the pairing link first (codex-bridge pair --json on the other workstation).'); link.focus(); return; }
      const typed = typedName(name.value);
      if (typed.error) { showError(typed.error); name.focus(); return; }
      add({ url, ...(typed.name ? { name: typed.name } : {}) }, 'the workstation');
    });

    findButton.addEventListener('click', async () => {
      if (busy) return;
      error.textContent = '';
      setBusy('Looking for workstations on this network…');
      try {
        const answer = await ctx.session.request('listMachines', { nearby: true });
        if (!alive) return;
        render(answer);
        showNearby((answer.nearby || []).map(nearbyMachine).filter(Boolean));
      } catch (err) {
        if (alive) showError(`Could not look: ${describeError(err)}`);
      } finally {
        if (alive) setBusy('');
      }
    });

    function showNearby(found) {
      if (!found.length) {
        nearby.replaceChildren(h('p', { class: 'muted nearby-empty', attrs: { role: 'status' }, text: 'No other workstation found on this network. A bridge is found when it listens on the network and avahi runs on both workstations; else paste its pairing link above.' }));
        return;
      }
      const items = found.map((n) => h('li', null, h('button', {
        type: 'button', class: 'nearby-pick', attrs: { 'aria-label': `${n.name}, ${nearbyAddress(n)}` },
        on: { click: () => pick(n) },
      }, h('span', { class: 'nearby-name', text: n.name }),
      h('span', { class: 'nearby-where', text: `${nearbyAddress(n)}${n.tls ? '' : ' · not encrypted'}` }))));
      nearby.replaceChildren(h('h3', { class: 'nearby-title', text: 'On this network' }),
        h('p', { class: 'visually-hidden', attrs: { role: 'status' }, text: found.length === 1 ? 'One workstation found.' : `${found.length} workstations found.` }),
        h('ul', { class: 'nearby-list' }, items));
    }

    function pick(n) {
      const code = textInput('nearby-code', { class: 'text-input code-input', placeholder: '7K3QZ-9M2XA', maxLength: 16, attrs: { autocapitalize: 'characters', enterkeyhint: 'go' } });
      const nearbyName = textInput('nearby-name', { maxLength: MAX_NAME, placeholder: n.name });
      const go = h('button', { type: 'submit', class: 'primary', text: 'Add this workstation' });
      const back = h('button', { type: 'button', class: 'secondary', text: 'Cancel', on: { click: () => showNearby([n]) } });
      const form = h('form', { class: 'add-machine-form nearby-form' },
        h('h3', { class: 'nearby-title', text: `Link ${n.name}` }),
        h('p', { class: 'muted', text: `${nearbyAddress(n)}${n.fingerprint ? ' · its certificate is pinned' : ''}` }),
        field('Pairing code', code, 'The 10-character code `codex-bridge pair` shows on that workstation.'),
        field('Name for it (optional)', nearbyName), h('div', { class: 'confirm-actions row' }, go, back));
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const normalized = normalizeCode(code.value);
        if (!normalized) { showError('A pairing code has 10 letters and digits, like 7K3QZ-9M2XA.'); code.focus(); return; }
        const typed = typedName(nearbyName.value);
        if (typed.error) { showError(typed.error); nearbyName.focus(); return; }
        error.textContent = '';
        add(nearbyFields(n, normalized, typed.name), n.name);
      });
      nearby.replaceChildren(form);
      code.focus();
    }

    return { el: section };
  }

  async function load() {
    denied.hidden = may('admin');
    addCard.el.hidden = !may('admin');
    if (!may('admin')) { list.replaceChildren(); return; }
    try {
      const answer = await ctx.session.request('listMachines');
      if (alive) render(answer);
    } catch (err) {
      if (err.code === 'closed' || !alive) return;
      list.replaceChildren(h('p', { class: 'form-error', text: `Could not list the machines: ${describeError(err)}` }));
    }
  }

  // A machine went online or offline, was linked, renamed or left: read the list again (once for a burst).
  function onFleet() {
    clearTimeout(pendingLoad);
    pendingLoad = setTimeout(load, 200);
  }

  load();
  return {
    el,
    title: () => 'Machines',
    reload: load,
    onFleet,
    destroy() { alive = false; clearTimeout(pendingLoad); },
  };
}
