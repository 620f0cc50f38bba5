// A thread's composer: the message box (Send steers a running turn; `!command` runs a command), Stop, Queue
// (send after the running turn ends) and the list of queued messages (queued-list.js), Plan, photos and @-mentions of files. A
// message typed while the workstation (or the linked machine the thread runs on: held.js) cannot be reached waits in
// the conversation and goes once it is back.
import { h, icon } from './dom.js';
import { toast, describeError } from './ui.js';
import { attachments } from './attachments.js';
import { mentionPicker } from './mention-picker.js';
import { oneLine } from './git-panel.js';
import { planToggle, modeFor } from './plan-view.js';
import { collaborationModes } from './collaboration-modes.js';
import { isHome, isOffline, machineName, machineOf } from './fleet.js';
import { scopeAsk } from './scopes.js';
import { queuedList as queuedListView } from './queued-list.js';
import { savedDraft, saveDraft } from './store.js';
import { dictation } from './dictation.js';

/**
 * session, store, thread: the screen's; talk: its conversation (conversation.js); sheets: where a scope request
 * goes, sheetShown() after it went; running(): a turn runs; unreachable(): the workstation cannot be reached.
 * Returns {form, note, voiceNote, plan, update(), renderActions(), renderQueue(change), destroy()}.
 */
export function composerView({ session, store, thread, talk, sheets, sheetShown, running, unreachable }) {
  const threadId = thread.id;
  const input = h('textarea', { class: 'composer-input', rows: 1, placeholder: 'Message', attrs: { 'aria-label': 'Message', enterkeyhint: 'send', autocomplete: 'off' } });
  const send = h('button', { type: 'submit', class: 'send', attrs: { 'aria-label': 'Send' } }, icon('send'));
  const stop = h('button', { type: 'button', class: 'stop', hidden: true, attrs: { 'aria-label': 'Stop' } }, icon('stop'));
  // While a turn runs, Queue holds the message until it ends instead of steering the turn with it.
  const queueToggle = h('button', { type: 'button', class: 'queue-toggle', hidden: true, text: 'Queue', attrs: { 'aria-pressed': 'false', title: 'Send after the running turn ends' } });
  queueToggle.addEventListener('click', () => queueToggle.setAttribute('aria-pressed', String(queueToggle.getAttribute('aria-pressed') !== 'true')));
  const queued = queuedListView({ session, thread });
  // Plan: the next message runs in plan mode (the thread remembers it; off again sends it in default mode).
  const plan = planToggle(collaborationModes(session));
  const attached = attachments(() => session.token, (text) => toast(text));
  input.addEventListener('paste', attached.onPaste);
  // Dictate: speech into the box (dictation.js); its sentences (why not here, what to do) show under the composer.
  // Voice (voice-mode.js) has its button in the header: the box keeps its width.
  const voiceNote = h('p', { class: 'voice-note', hidden: true });
  const dictate = dictation({ input, attachAllowed: () => isHome(machineOf(thread)), attach: (f) => attached.add([f]),
    changed: () => { grow(); renderActions(); saveDraft(threadId, input.value); }, note: voiceNote });
  const mentions = mentionPicker(input, (query) => session.request('searchFiles', { threadId, query, limit: 8 }), () => talk.onLayout());
  // While a turn runs Queue takes Plan's place and Stop takes Send's until there is text to send: the message box
  // keeps its width.
  const form = h('form', { class: 'composer' }, queued.el, mentions.el, attached.tray, attached.file, attached.button, plan.el, queueToggle, input, dictate.button, stop, send);
  // Without `operate` the composer is hidden (app.css) and this says why.
  const note = h('p', { class: 'scope-note', dataset: { needs: 'operate' }, text: 'This device can follow threads but not drive them (it lacks the operate scope).' });

  /** Stop while a turn runs and the box is empty, else Send (one place, so the box keeps its width). */
  function renderActions() {
    const stopping = running() && !input.value.trim() && !unreachable();
    stop.hidden = !stopping;
    send.hidden = stopping;
  }

  function grow() {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight, 180)}px`;
  }
  // The draft: what is typed and not sent yet survives a reload (store.js), per thread.
  input.value = savedDraft(threadId);
  if (input.value) requestAnimationFrame(grow); // its height once it is on screen
  input.addEventListener('input', () => { grow(); renderActions(); saveDraft(threadId, input.value); });
  // With a keyboard (a fine pointer), Enter sends and Shift+Enter starts a new line; on a phone Enter is a new line.
  const keyboard = window.matchMedia && window.matchMedia('(pointer: fine)').matches;
  input.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || e.isComposing) return;
    if (e.metaKey || e.ctrlKey || (keyboard && !e.shiftKey)) { e.preventDefault(); form.requestSubmit(); }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    mentions.close();
    send.disabled = true;
    input.value = '';
    saveDraft(threadId, '');
    grow();
    renderActions();
    talk.stick();
    // Not connected: the request waits in the connection and goes out once it is back (its id makes it count
    // once); meanwhile the message is shown as waiting. The same for a linked machine that cannot be reached: the
    // message waits in session.held until its home bridge says it is back.
    const machine = machineOf(thread);
    const linked = !isHome(machine);
    const note = () => (linked && isOffline(machine) ? machineName(machine) : null);
    let waiting = session.connected && !note() ? null : talk.pendingBubble(text, note());
    const deliver = (kind, fields) => {
      const answer = linked
        ? session.held.send(machine, kind, fields, { onHeld: () => { waiting ||= talk.pendingBubble(text, machineName(machine)); } })
        : session.request(kind, fields);
      send.disabled = false; // on its way, or waiting (shown): the next message may follow, and goes after it
      return answer;
    };
    try {
      // `!command`: run in the thread's folder, in Codex's sandbox (a live card shows it), not sent to the agent.
      if (text.startsWith('!') && text.slice(1).trim()) {
        await deliver('runCommand', { threadId, command: text.slice(1).trim() });
        return;
      }
      const queue = !queueToggle.hidden && queueToggle.getAttribute('aria-pressed') === 'true';
      const ids = await attached.ids();
      const mode = modeFor(plan.on, thread.collaborationMode);
      await deliver('sendMessage', { threadId, text, ...(queue ? { mode: 'queue' } : {}), ...(ids.length ? { attachments: ids } : {}), ...(mode ? { collaborationMode: mode } : {}) });
      if (mode) store.commit(thread, [{ set: { collaborationMode: mode } }]);
      attached.clear();
    } catch (err) {
      if (!input.value) { input.value = text; saveDraft(threadId, text); }
      grow();
      renderActions();
      // A scope this phone lacks (`!ls` without run): say so where the message was, with Ask the workstation.
      if (err && err.code === 'forbidden' && err.scope && !sheets.querySelector(`.scope-ask[data-needs="${err.scope}"]`)) {
        sheets.append(scopeAsk((kind, fields) => session.request(kind, fields), err.scope));
        sheetShown();
      } else {
        toast(`Not sent: ${text.startsWith('!') ? oneLine(err) : describeError(err)}`);
      }
    } finally {
      send.disabled = false;
      if (waiting) { waiting.remove(); talk.onLayout(); }
    }
  });

  stop.addEventListener('click', async () => {
    stop.disabled = true;
    try { await session.request('interrupt', { threadId }); }
    catch (err) { if (err.code !== 'conflict') toast(describeError(err)); }
    finally { stop.disabled = false; }
  });

  return {
    form,
    note,
    voiceNote,
    plan,
    renderActions,
    /** The messages waiting for the running turn to end (queued-list.js); `change`: the store's `queue` record. */
    renderQueue: queued.render,
    /** The thread's state changed: what the composer offers follows it. */
    update() {
      attached.button.hidden = !isHome(machineOf(thread)); // a photo is uploaded to this bridge: not for another machine's thread
      const busy = running();
      queueToggle.hidden = !busy;
      plan.show(!busy); // a running turn keeps its mode; Queue takes the room
      dictate.update();
      dictate.button.hidden = busy; // while a turn runs Queue and Stop need the room; the box keeps its width
      renderActions();
    },
    destroy() { dictate.destroy(); },
  };
}
