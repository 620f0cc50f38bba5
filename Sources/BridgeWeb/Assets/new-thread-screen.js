// A new thread: pick the folder by browsing the bridge's roots (no typing paths), then the prompt and,
// optionally, the model and reasoning effort Codex offers and the sandbox and approval policy the bridge allows.
// With a fleet (issue 33) a machine picker comes first: the folders browsed are that machine's, the thread
// starts there (startThread's `machine`), with that machine's defaults.
import { h, icon } from './dom.js';
import { header, toast, displayPath, basename, describeError } from './ui.js';
import { pref, setPref } from './store.js';
import { attachments } from './attachments.js';
import { worktreeFields, worktreeRequest } from './worktree-option.js';
import { oneLine } from './git-panel.js';
import { planToggle } from './plan-view.js';
import { collaborationModes } from './collaboration-modes.js';
import { home, isHome, isFleet, machineName, rootsOf } from './fleet.js';
import { machinePicker } from './fleet-view.js';

const SANDBOX_LABELS = { 'read-only': 'Read only', 'workspace-write': 'Workspace write', 'danger-full-access': 'Full access (dangerous)' };
const APPROVAL_LABELS = { untrusted: 'Ask for anything untrusted', 'on-failure': 'Ask when a command fails', 'on-request': 'Ask when Codex wants to', never: 'Never ask' };

export function newThreadScreen(ctx) {
  const { session } = ctx;
  const head = header(ctx, { title: 'New thread', subtitle: 'Choose a folder', back: () => ctx.back('#/') });
  const main = h('main', { class: 'new-main' });
  const el = h('div', { class: 'screen new-screen' }, head.el, main);
  let alive = true;
  let path = null; // the folder shown; null: the list of roots
  let chosen = null;
  let entries = [];
  let loading = false;
  let machineId = home(); // the machine the thread starts on
  let machineError = ''; // why the chosen machine's folders are not shown

  let truncated = false;
  const resolvedRoots = new Set(); // a root as listDirectory resolved it (symbolic links followed)
  const roots = () => (isHome(machineId) ? ctx.session.policy.roots || [] : rootsOf(machineId) || []);
  const onMachine = (fields) => (isHome(machineId) ? fields : { ...fields, machine: machineId });
  const trim = (p) => p.replace(/\/+$/, '') || '/';
  const isRoot = (p) => resolvedRoots.has(trim(p)) || roots().some((r) => trim(r) === trim(p));

  function parentOf(p) {
    const parts = p.replace(/\/+$/, '').split('/');
    parts.pop();
    return parts.join('/') || '/';
  }

  async function open(p) {
    path = p;
    loading = true;
    render();
    try {
      const asked = machineId;
      const answer = await session.request('listDirectory', onMachine({ path: p }));
      if (!alive || path !== p || asked !== machineId) return;
      entries = answer.entries || [];
      truncated = !!answer.truncated;
      if (isRoot(p) && answer.path) resolvedRoots.add(trim(answer.path));
      path = answer.path || p;
    } catch (err) {
      entries = [];
      toast(describeError(err));
      if (err.code === 'forbidden_path' && !isRoot(p)) path = roots().length === 1 ? roots()[0] : null;
    } finally {
      loading = false;
      // "Use this folder" is offered while the listing is on its way: once a folder is chosen the prompt form is
      // up (maybe with a message typed) and the listing must not draw it again.
      if (alive && !chosen) render();
    }
  }

  /** Another machine chosen: its folders, from what it allows (its policy in the fleet list). */
  function chooseMachine(id) {
    machineId = id;
    path = null;
    entries = [];
    chosen = null;
    machineError = '';
    resolvedRoots.clear();
    begin();
  }

  function begin() {
    if (!isHome(machineId) && rootsOf(machineId) === null) {
      machineError = `${machineName(machineId)} has not been reached yet: its folders are not known`;
      render();
      return;
    }
    if (roots().length === 1) open(roots()[0]);
    else render();
  }

  function picker() {
    const showHidden = pref('showHidden', false);
    const items = [];
    if (machineError) {
      items.push(h('li', { class: 'empty', text: machineError }));
    } else if (loading && path === null) {
      items.push(h('li', { class: 'empty', text: `Asking ${machineName(machineId)} for its folders…` }));
    } else if (path === null) {
      for (const r of roots()) {
        items.push(h('li', null, h('button', { type: 'button', class: 'dir', on: { click: () => open(r) } },
          icon('folder'), h('span', { class: 'dir-name', text: basename(r) }),
          h('span', { class: 'dir-path', text: r, attrs: { 'aria-hidden': 'true' } }))));
      }
      if (!roots().length) items.push(h('li', { class: 'empty', text: isHome(machineId) ? 'The bridge has no folders configured (serve --root).' : `${machineName(machineId)} shows no folders.` }));
    } else {
      for (const e of entries) {
        if (!showHidden && e.name.startsWith('.')) continue;
        if (e.kind === 'dir') {
          const child = `${path.replace(/\/+$/, '')}/${e.name}`;
          items.push(h('li', null, h('button', { type: 'button', class: 'dir', on: { click: () => open(child) } },
            icon('folder'), h('span', { class: 'dir-name', text: e.name }),
            e.git ? h('span', { class: 'chip git', text: 'git', attrs: { 'aria-hidden': 'true' } }) : null)));
        } else {
          items.push(h('li', { class: 'file' }, icon('file'), h('span', { text: e.name })));
        }
      }
      if (!loading && !items.length) items.push(h('li', { class: 'empty', text: 'No folders here.' }));
      if (truncated) items.push(h('li', { class: 'empty', text: 'This folder has more entries than can be shown.' }));
    }
    const toggle = h('input', { type: 'checkbox', checked: showHidden, on: { change: (e) => { setPref('showHidden', e.target.checked); render(); } } });
    const canGoUp = path !== null && (!isRoot(path) || roots().length > 1);
    const where = isFleet() ? `Folders on ${machineName(machineId)}` : 'Folders on the workstation';
    return h('div', { class: 'picker' },
      machinePicker(machineId, chooseMachine),
      h('div', { class: 'picker-bar' },
        canGoUp ? h('button', { type: 'button', class: 'icon-button', attrs: { 'aria-label': 'Parent folder' }, on: { click: () => { if (isRoot(path)) { path = null; render(); } else open(parentOf(path)); } } }, icon('up')) : null,
        h('p', { class: 'picker-path', text: path === null ? where : displayPath(path, roots()) }),
        h('label', { class: 'toggle' }, toggle, h('span', { text: 'Hidden' }))),
      h('ul', { class: `dir-list${loading ? ' loading' : ''}` }, items),
      path !== null ? h('div', { class: 'sticky-actions' }, h('button', { type: 'button', class: 'primary wide', text: 'Use this folder', on: { click: () => { chosen = path; render(); } } })) : null);
  }

  function select(label, name, values, labels, fallback) {
    if (!values || values.length < 2) return null;
    const s = h('select', { name }, values.map((v) => h('option', { value: v, text: labels[v] || v, selected: v === fallback })));
    return h('label', { class: 'field' }, h('span', { text: label }), s);
  }

  // The models Codex offers (listModels), asked once per screen; until they arrive the pickers say "Default".
  let models = null;
  const modelsReady = session.request('listModels', {}).then((a) => { models = a.models || []; }, () => { models = []; });

  /// Model and Effort pickers: "Default" leaves the choice to Codex; the efforts follow the chosen model.
  function modelPickers() {
    const model = h('select', { name: 'model' }, h('option', { value: '', text: 'Default' }));
    const effort = h('select', { name: 'effort' }, h('option', { value: '', text: 'Default' }));
    const fillEfforts = () => {
      const list = models || [];
      const chosenModel = list.find((m) => m.id === model.value) || list.find((m) => m.isDefault);
      const efforts = chosenModel ? chosenModel.efforts : [];
      effort.replaceChildren(h('option', { value: '', text: chosenModel && chosenModel.defaultEffort ? `Default (${chosenModel.defaultEffort})` : 'Default' }),
        ...efforts.map((e) => h('option', { value: e, text: e })));
    };
    modelsReady.then(() => {
      model.replaceChildren(h('option', { value: '', text: 'Default' }),
        ...(models || []).map((m) => h('option', { value: m.id, text: m.isDefault ? `${m.displayName} (default)` : m.displayName })));
      fillEfforts();
    });
    model.addEventListener('change', fillEfforts);
    return [h('label', { class: 'field' }, h('span', { text: 'Model' }), model), h('label', { class: 'field' }, h('span', { text: 'Effort' }), effort)];
  }

  function promptForm() {
    // Another machine's policy and models are its own (not in this session): its defaults apply there, and a
    // photo uploaded here is this bridge's, so neither is offered for it.
    const linked = !isHome(machineId);
    const policy = linked ? {} : ctx.session.policy;
    const input = h('textarea', { class: 'prompt-input', rows: 5, placeholder: 'What should Codex do?', attrs: { 'aria-label': 'Message', autocomplete: 'off' } });
    const sandbox = select('Sandbox', 'sandbox', policy.sandboxes, SANDBOX_LABELS, policy.defaultSandbox);
    const approvals = select('Approval policy', 'approvalPolicy', policy.approvalPolicies, APPROVAL_LABELS, policy.defaultApprovalPolicy);
    const start = h('button', { type: 'submit', class: 'primary wide', text: 'Start' });
    const chosenOptions = h('span', { class: 'options-now', attrs: { 'aria-hidden': 'true' } });
    const attached = attachments(() => ctx.session.token, (text) => toast(text));
    if (!linked) input.addEventListener('paste', attached.onPaste);
    const plan = planToggle(collaborationModes(ctx.session)); // the first turn in plan mode: Codex asks and proposes before it edits
    const where = displayPath(chosen, roots());
    const form = h('form', { class: 'prompt-form' },
      h('div', { class: 'chosen' }, icon('folder'),
        h('span', { class: 'chosen-path', text: isFleet() ? `${machineName(machineId)} · ${where}` : where }),
        h('button', { type: 'button', class: 'text-button', text: 'Change', on: { click: () => { chosen = null; render(); } } })),
      input,
      h('div', { class: 'prompt-attachments' }, linked ? null : [attached.button, attached.file], plan.el, linked ? null : attached.tray),
      h('details', { class: 'options' }, h('summary', null, h('span', { text: 'Options' }), chosenOptions),
        linked ? h('p', { class: 'options-note', text: `Model, sandbox and approvals: ${machineName(machineId)}'s defaults.` }) : modelPickers(),
        sandbox, approvals, worktreeFields()),
      start);
    const describe = () => {
      const data = new FormData(form);
      chosenOptions.textContent = [data.get('model'), data.get('effort'), SANDBOX_LABELS[data.get('sandbox')] || data.get('sandbox'), APPROVAL_LABELS[data.get('approvalPolicy')] || data.get('approvalPolicy')]
        .filter(Boolean).join(' · ');
    };
    form.addEventListener('change', describe);
    describe();
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const prompt = input.value.trim();
      if (!prompt) { input.focus(); return; }
      start.disabled = true;
      const fields = onMachine({ cwd: chosen, prompt });
      const data = new FormData(form);
      const wt = worktreeRequest(data); // New worktree (worktree-option.js)
      if (wt.error) { start.disabled = false; toast(wt.error); return; }
      if (wt.worktree) fields.worktree = wt.worktree;
      if (data.get('sandbox')) fields.sandbox = data.get('sandbox');
      if (data.get('approvalPolicy')) fields.approvalPolicy = data.get('approvalPolicy');
      if (data.get('model')) fields.model = data.get('model');
      if (data.get('effort')) fields.effort = data.get('effort');
      if (plan.on) fields.collaborationMode = 'plan';
      try {
        const ids = linked ? [] : await attached.ids();
        if (ids.length) fields.attachments = ids;
        const answer = await session.request('startThread', fields);
        const t = ctx.store.ensure(answer.threadId);
        // Subscribed from its first event: what arrives live is the whole thread.
        ctx.store.commit(t, [{ set: {
          listed: true, loaded: true, complete: true, cwd: answer.cwd || chosen, preview: t.preview || prompt, updatedAt: Date.now() / 1000,
          ...(isHome(machineId) ? {} : { machine: machineId }),
          ...(fields.collaborationMode ? { collaborationMode: fields.collaborationMode } : {}),
        } }, { list: true }]);
        ctx.navigate(`#/t/${encodeURIComponent(answer.threadId)}`, { replace: true });
      } catch (err) {
        start.disabled = false;
        toast(`Could not start: ${fields.worktree ? oneLine(err) : describeError(err)}`);
      }
    });
    setTimeout(() => input.focus(), 0);
    return form;
  }

  function render() {
    head.setSubtitle(chosen ? 'Tell Codex what to do' : 'Choose a folder');
    // The listing arriving re-renders the picker: the keyboard keeps its place (the same control gets focus back)
    // instead of falling to the page.
    const focused = main.contains(document.activeElement) ? document.activeElement : null;
    const same = (e) => e.tagName === focused.tagName && e.className === focused.className && e.textContent === focused.textContent;
    main.replaceChildren(chosen ? promptForm() : picker());
    if (focused) { const again = [...main.querySelectorAll(focused.tagName)].find(same); if (again) again.focus(); }
  }

  begin();
  return {
    el,
    title: () => 'New thread',
    reload() { if (!chosen && path === null && !loading) { machineError = ''; begin(); } },
    onFleet() { if (!chosen && path === null && !loading) render(); }, // a machine went offline or came back
    destroy() { alive = false; },
  };
}
