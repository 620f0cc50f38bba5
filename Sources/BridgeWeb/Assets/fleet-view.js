// What the fleet looks like (issue 33): a thread's machine chip, the list's machine filter, the new thread's
// machine picker. Shown only when the fleet has more than one machine. Machine names are text, never markup.
import { h } from './dom.js';
import { isFleet, machines, machine, machineName, machineOf, isOffline, problemText } from './fleet.js';

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

/** The thread screen's note while the thread's machine cannot be reached (role=status: it is announced). */
export function machineNote(thread) {
  const el = h('p', { class: 'thread-note machine-note', hidden: true, attrs: { role: 'status' } });
  function update() {
    const id = machineOf(thread);
    const offline = isFleet() && isOffline(id);
    const problem = offline ? machine(id)?.problem : null;
    el.hidden = !offline;
    el.textContent = problem
      ? `${problemText(machineName(id), problem)} This thread carries on when it is back.`
      : offline ? `${machineName(id)} is unreachable. This thread carries on when it is back.` : '';
  }
  update();
  return { el, update };
}
