// What the fleet looks like (issue 33): a thread's machine chip, the list's machine filter, the new thread's
// machine picker. Shown only when the fleet has more than one machine. Machine names are text, never markup.
import { h } from './dom.js';
import { isFleet, machines, machine, machineName, machineOf, isOffline, isHome, problemText } from './fleet.js';
import { tryMachine } from './try-now.js';

let shownMachine = ''; // the list's filter for this session: '' (every machine) or a machine id
const STATE_TEXT = { offline: 'offline', pending: 'not confirmed yet' }; // `pending`: its owner has not allowed the link

/** The machine chip on a thread row (dashed when the machine cannot be reached: the row's state says Offline). */
export function machineChip(thread) {
  if (!isFleet()) return null;
  const id = machineOf(thread);
  const offline = isOffline(id);
  return h('span', { class: `chip machine${offline ? ' offline' : ''}`, text: machineName(id), attrs: { title: offline ? `${machineName(id)} is offline` : `On ${machineName(id)}` } });
}

/** Whether the list shows `thread` under the current machine filter. */
export function shownByFilter(thread) {
  if (!isFleet() || !shownMachine) return true;
  if (!machines().some((m) => m.id === shownMachine)) return true; // the machine left: every thread again
  return machineOf(thread) === shownMachine;
}

/** The list's machine filter: "All" and one toggle per machine; `onChange` redraws the list. */
export function machineFilter(onChange) {
  const el = h('div', { class: 'machine-filter', hidden: true, attrs: { role: 'group', 'aria-label': 'Machines' } });
  function render() {
    el.hidden = !isFleet();
    if (el.hidden) { el.replaceChildren(); return; }
    if (shownMachine && !machines().some((m) => m.id === shownMachine)) shownMachine = '';
    const button = (id, label, state) => h('button', {
      type: 'button', class: `machine-toggle${state ? ' offline' : ''}`,
      attrs: { 'aria-pressed': String(shownMachine === id) },
      on: { click: () => { shownMachine = id; render(); onChange(); } },
    }, label, state ? h('span', { class: 'machine-state', text: ` · ${state}` }) : null);
    el.replaceChildren(button('', 'All machines', null), ...machines().map((m) => button(m.id, m.name, STATE_TEXT[m.state] || null)));
  }
  render();
  return { el, render };
}

/**
 * The new thread's machine picker: a labelled select of the machines (an offline one disabled), or null with
 * one machine. `onChange(id)` with the id chosen (the home bridge's id included).
 */
export function machinePicker(current, onChange) {
  if (!isFleet()) return null;
  const select = h('select', { name: 'machine' }, machines().map((m) => h('option', {
    value: m.id, text: m.state === 'online' ? m.name : `${m.name} (${STATE_TEXT[m.state] || m.state})`, selected: m.id === current, disabled: m.state !== 'online' && m.id !== current,
  })));
  select.addEventListener('change', () => onChange(select.value));
  return h('label', { class: 'field machine-field' }, h('span', { text: 'Machine' }), select);
}

/** A thread's header subtitle: its folder, after its machine's name when there are several machines. */
export function whereLine(thread, path) {
  return isFleet() ? [machineName(machineOf(thread)), path].filter(Boolean).join(' · ') : path;
}

/** The thread screen's note while the thread's machine cannot be reached (role=status: it is announced), with Try now. */
export function machineNote(thread, session) {
  const text = h('span', { attrs: { role: 'status' } });
  const el = h('p', { class: 'thread-note machine-note', hidden: true }, text);
  let retry = null;
  function update() {
    const id = machineOf(thread);
    const offline = isFleet() && isOffline(id);
    const problem = offline ? machine(id)?.problem : null;
    el.hidden = !offline;
    text.textContent = problem
      ? `${problemText(machineName(id), problem)} This thread carries on when it is back; what you send waits for it.`
      : offline ? `${machineName(id)} is unreachable. This thread carries on when it is back; what you send waits for it.` : '';
    if (offline && !retry && !isHome(id)) el.append(' ', retry = tryMachine(session, id, machineName(id)));
  }
  update();
  return { el, update };
}

/**
 * The thread list's notes, one per linked machine that cannot be reached now, each with Try now; `onChange` is
 * not needed: `render()` is called when the fleet changes.
 */
export function offlineMachines(session) {
  const el = h('div', { class: 'machine-notes' });
  function render() {
    const away = isFleet() ? machines().filter((m) => !isHome(m.id) && m.state === 'offline') : [];
    el.replaceChildren(...away.map((m) => h('p', { class: 'thread-note machine-note' },
      h('span', { text: `${m.name} is unreachable: its threads carry on when it is back.` }), ' ', tryMachine(session, m.id, m.name))));
    el.hidden = !away.length;
  }
  render();
  return { el, render };
}
