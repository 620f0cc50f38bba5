// One thread: its header (title, folder, the More menu), what stands above the conversation (its machine, goal,
// context, sub-agents), the sheets the menu opens (goal, settings, rename, delete), the conversation
// (conversation.js) and the composer (composer.js). It reads the thread once and hands the store's change
// records to the part they are for.
import { h } from './dom.js';
import { header, menuButton, toast, displayPath, describeError } from './ui.js';
import { goalLine, goalForm } from './goal-view.js';
import { subAgentPanel } from './subagents.js';
import { renameForm, archiveThread } from './thread-manage.js';
import { compactThread, deleteForm, settingsForm } from './thread-housekeeping.js';
import { revertForm, revertNote } from './thread-revert.js';
import { toolsSheet } from './tools-sheet.js';
import { previewSheet } from './preview.js';
import { contextMeter } from './context-meter.js';
import { rootsFor, watchFleet } from './fleet.js';
import { whereLine, machineNote } from './fleet-view.js';
import { conversationView } from './conversation.js';
import { composerView } from './composer.js';
import { threadTitle } from './thread-title.js';
import { voiceMode } from './voice-mode.js';

/** Turns read at once when a thread opens, and per earlier page. */
const TURNS_PER_PAGE = 6;

export function threadScreen(ctx, threadId) {
  const { store, session } = ctx;
  const thread = store.ensure(threadId);
  // Asked first: the workstation reads the thread while this screen is built (on a phone's CPU, ~0.1 s; P9).
  const readThread = () => session.request('readThread', { threadId, turns: TURNS_PER_PAGE });
  let early = thread.loaded ? null : readThread();
  early?.catch(() => {}); // handled where load() takes it
  // Diff and Review live in a menu: the header keeps its room for the thread's title.
  const openDiff = () => ctx.navigate(`#/t/${encodeURIComponent(threadId)}/diff`);
  // Review: Codex reviews the folder's uncommitted changes as a new turn (startReview).
  let reviewing = false;
  async function startReview() {
    if (reviewing) return;
    reviewing = true;
    menu.setDisabled('Review', true);
    try { await session.request('startReview', { threadId, target: 'uncommitted' }); talk.stick(); }
    catch (err) { toast(`No review: ${describeError(err)}`); }
    finally { reviewing = false; menu.setDisabled('Review', false); }
  }
  const menu = menuButton({ label: 'More', items: [
    { label: 'Diff', onSelect: openDiff, title: 'The changes in this folder' },
    { label: 'Review', onSelect: startReview, title: 'Codex reviews the uncommitted changes', scope: 'operate' },
    // Goal: Codex works towards an objective in turns of its own (setGoal / clearGoal).
    { label: 'Goal', onSelect: () => { closeSheets(); goalEditor.toggle(thread.goal); }, title: 'Set or clear the thread\'s goal', scope: 'operate' },
    { label: 'Settings', onSelect: () => { closeSheets(); settings.open(thread); sheetShown(); }, title: 'Model, effort and approvals for the next turns', scope: 'operate' },
    { label: 'Preview', onSelect: () => { closeSheets(); previewer.open(); sheetShown(); }, title: 'See the workstation\'s dev server of this thread', scope: 'operate' },
    // Voice: talk with Codex (voice-mode.js). In this menu, as Diff and Review: a button of its own in the header
    // left the title two clipped words on a phone.
    { label: 'Voice', onSelect: () => openVoice(), title: 'Talk with Codex', scope: 'operate' },
    { label: 'Tools', onSelect: () => { closeSheets(); tools.open(); }, title: 'MCP servers and hooks: why a tool is there or missing' },
    { label: 'Revert', onSelect: () => { closeSheets(); reverter.open(thread); sheetShown(); }, title: 'Remove the last turns from the conversation (files stay as they are)', scope: 'operate' },
    { label: 'Compact', onSelect: compact, title: 'Codex summarises the conversation to free its context', scope: 'operate' },
    { label: 'Rename', onSelect: () => { closeSheets(); renamer.open(threadTitle(thread)); sheetShown(); }, title: 'Give the thread a name', scope: 'operate' },
    { label: 'Archive', onSelect: archive, title: 'Take the thread out of the list', scope: 'operate' },
    { label: 'Delete', onSelect: () => { closeSheets(); deleter.open(); sheetShown(); }, title: 'Remove the thread for good', scope: 'operate' },
  ] });
  let deleted = false; // once: the answer and Codex's thread/deleted both say so
  const closeSheets = () => { goalEditor.close(); renamer.close(); settings.close(); deleter.close(); reverter.close(); tools.close(); previewer.close(); };
  async function compact() {
    talk.stick();
    await compactThread({ request: (kind, fields) => session.request(kind, { threadId, ...fields }) });
  }
  async function archive() {
    if (await archiveThread({ request: (kind, fields) => session.request(kind, { threadId, ...fields }), store, thread })) ctx.back('#/');
  }
  const meter = contextMeter(); // in the header: in sight however long the thread
  const openVoice = () => { closeSheets(); composer.voiceNote.hidden = true; voice.open(); };
  const head = header(ctx, { title: '', back: () => ctx.back('#/'), actions: [menu.el], aside: meter.el });
  const goal = goalLine();
  // Goal and Rename open at the end of the thread, above the composer: the view goes there, and stays at the end
  // when they close.
  const sheetShown = () => talk.scrollToEnd(false);
  const sheetHidden = () => { if (talk.stuck) talk.scrollToEnd(false); };
  const goalEditor = goalForm({
    request: (kind, fields) => session.request(kind, { threadId, ...fields }),
    onError: (err) => toast(`Goal not changed: ${describeError(err)}`),
    onShow: sheetShown,
    onHide: sheetHidden,
  });
  const renamer = renameForm({
    request: (kind, fields) => session.request(kind, { threadId, ...fields }),
    onRenamed(name) { store.commit(thread, [{ set: { name } }]); renderHeader(); store.listChanged(); sheetHidden(); },
  });
  const deleter = deleteForm({
    request: (kind, fields) => session.request(kind, { threadId, ...fields }),
    onDeleted() { deleted = true; store.forget(threadId); toast('Thread deleted.', { follows: true }); ctx.back('#/'); },
  });
  const reverter = revertForm({
    request: (kind, fields) => session.request(kind, { threadId, ...fields }),
    onReverted() { toast('Reverted. Files were not changed.'); sheetHidden(); },
  });
  const reverted = revertNote();
  const settings = settingsForm({
    request: (kind, fields) => session.request(kind, { threadId, ...fields }),
    models: () => session.request('listModels', {}).then((a) => a.models || []),
    onSaved() { toast('Settings saved for the next turns.'); sheetHidden(); },
  });
  const previewer = previewSheet({
    request: (kind, fields) => session.request(kind, { threadId, ...fields }),
    previewPort: () => session.previewPort,
  });
  const tools = toolsSheet({
    request: (kind, fields) => session.request(kind, { threadId, ...fields }),
    onShow: sheetShown,
    onHide: sheetHidden,
  });
  const subAgents = subAgentPanel();
  const announcer = h('div', { class: 'visually-hidden', attrs: { 'aria-live': 'polite' } }); // for screen readers
  const announce = (text) => { announcer.textContent = text; };
  // The bridge cannot be reached (the connection gave up a few attempts): nothing known runs, nothing can stop.
  let unreachable = session.unreachable;
  // Paged history: the newest turns at once, earlier pages as the person scrolls up (BRIDGE.md readThread {turns}).
  const loadOlder = () => session.request('readTurns', { threadId, cursor: thread.olderTurns, limit: TURNS_PER_PAGE })
    .then((page) => store.applyOlderTurns(threadId, page));
  const talk = conversationView({ session, thread, announce, unreachable: () => unreachable, implementPlan, loadOlder });
  const sheets = h('div', { class: 'thread-sheets' }, goalEditor.el, renamer.el, settings.el, deleter.el, reverter.el, tools.el, previewer.el);
  // Voice takes the composer's place while open; its transcripts arrive as the thread's items.
  const voice = voiceMode({
    request: (kind, fields) => session.request(kind, { threadId, ...fields }),
    // The live channel (BRIDGE.md, live-channel.js) of the current socket, when the bridge speaks it: the audio's way
    // when the browser has no WebRTC.
    liveStream: () => (session.conn?.live ? (id, handlers) => session.conn.live.stream(id, handlers) : null),
    onOpen(open) { composer.form.hidden = open; el.classList.toggle('in-voice', open); if (!open) menu.el.querySelector('button')?.focus({ preventScroll: true }); talk.onLayout(); },
  });
  const composer = composerView({ session, store, thread, talk, sheets, sheetShown, running: () => store.isRunning(thread), unreachable: () => unreachable });
  const machine = machineNote(thread, session); // its machine unreachable (issue 33), with Try now
  const main = h('main', { class: 'thread-main' }, machine.el, reverted.el, goal.el, subAgents.el, talk.placeholder, talk.el);
  const el = h('div', { class: 'screen thread-screen' }, head.el, main, sheets, talk.jump, composer.form, voice.el, composer.voiceNote, composer.note, announcer);
  // "Jump to latest" floats just above what is stuck to the bottom (the composer, or the voice panel in its place),
  // whose height changes with the text size (at 200% the composer is three rows), the field's lines, the tray.
  const foot = typeof ResizeObserver === 'function'
    ? new ResizeObserver(() => el.style.setProperty('--foot', `${(voice.el.hidden ? composer.form : voice.el).offsetHeight}px`))
    : null;
  foot?.observe(composer.form);
  foot?.observe(voice.el);

  // "Implement this plan": the follow-up runs in default mode, and the thread stays there.
  async function implementPlan() {
    talk.stick();
    try {
      await session.request('sendMessage', { threadId, text: 'Implement the plan.', collaborationMode: 'default' });
      store.commit(thread, [{ set: { collaborationMode: 'default' } }]);
      composer.plan.set(false);
    } catch (err) {
      toast(`Not sent: ${describeError(err)}`);
      throw err;
    }
  }

  function renderAll() {
    talk.render();
    renderHeader();
    composer.renderQueue();
    subAgents.update(thread, store);
    composer.plan.set(thread.collaborationMode === 'plan');
    talk.scrollToEnd(false);
  }

  function renderHeader() {
    head.setTitle(threadTitle(thread) || 'Thread');
    document.title = `${threadTitle(thread) || 'Thread'} · Codex Bridge`;
    head.setSubtitle(whereLine(thread, displayPath(thread.cwd, rootsFor(thread, session.policy.roots))));
    machine.update();
    goal.update(thread.goal);
    meter.update(thread.tokenUsage);
    const running = store.isRunning(thread);
    menu.setHidden('Review', running);
    menu.setHidden('Revert', running);
    el.classList.toggle('running', running);
    composer.update();
  }

  const unwatchFleet = watchFleet(() => renderHeader());
  const unwatch = store.watchThread(threadId, (change) => {
    switch (change.type) {
      case 'reset': renderAll(); return;
      case 'queue': composer.renderQueue(change); break;
      case 'status': renderHeader(); return;
      case 'usage': meter.update(thread.tokenUsage); return;
      case 'subAgents': subAgents.update(thread, store); return;
      case 'voice': voice.bridgeSaid(change); return;
      // Deleted elsewhere (another phone, the desk): nothing left to show.
      // Reverted (here or elsewhere): its later turns are gone; read it again.
      case 'reverted': reverted.show(); reverter.close(); load(); return;
      case 'deleted': if (!deleted) { deleted = true; toast('This thread was deleted.', { follows: true }); ctx.back('#/'); } return;
      default: if (!talk.apply(change)) return;
    }
    renderHeader();
    talk.onLayout();
  });

  // A sub-agent's own thread (its task, its state) changes outside this thread's events.
  const unwatchList = store.watchList(() => subAgents.update(thread, store));

  // -- loading -------------------------------------------------------------------------------------------
  let loading = false;
  function load() {
    if (thread.loaded) { renderAll(); return; }
    if (loading) return;
    loading = true;
    renderAll();
    talk.setPlaceholder('Loading…');
    const reading = early || readThread();
    early = null;
    reading.then((answer) => {
      loading = false;
      store.applyThreadAnswer(threadId, answer);
    }).catch((err) => {
      loading = false;
      talk.setPlaceholder(err.code === 'not_found' ? 'This thread does not exist on the workstation.' : `Could not load the thread: ${describeError(err)}`);
      if (thread.turns.length) talk.setPlaceholder(null);
    });
  }
  load();

  return {
    el,
    title: () => threadTitle(thread) || 'Thread',
    reload() { if (!thread.loaded) load(); },
    onStatus(s) {
      voice.connectionChanged(s); // a reconnect ends a voice session: the bridge ended it with the connection
      const now = s === 'offline';
      if (now === unreachable) return;
      unreachable = now;
      talk.reachabilityChanged();
      composer.renderActions();
    },
    destroy() {
      foot?.disconnect();
      unwatch();
      unwatchFleet();
      menu.destroy();
      unwatchList();
      talk.destroy();
      voice.destroy();
      composer.destroy();
    },
  };
}
