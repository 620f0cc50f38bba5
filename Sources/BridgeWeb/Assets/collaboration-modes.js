// Codex's collaboration-mode presets (BRIDGE.md `listCollaborationModes`): what the Plan toggle of the composer and
// of a new thread stands for. Read once per connection and shared; a failed read is tried again next time.
const read = new WeakMap(); // session -> Promise<[{mode, name, model?, effort?}]>

export function collaborationModes(session) {
  let modes = read.get(session);
  if (!modes) {
    modes = session.request('listCollaborationModes', {}).then((answer) => (Array.isArray(answer.modes) ? answer.modes : []));
    modes.catch(() => read.delete(session));
    read.set(session, modes);
  }
  return modes;
}

/**
 * The Plan toggle as Codex's plan preset makes it: {label, title}, or null when Codex offers no plan preset. Its
 * name and effort are Codex's configuration: text only.
 */
export function planPreset(modes) {
  const preset = (modes || []).find((m) => m && m.mode === 'plan' && typeof m.name === 'string' && m.name.trim());
  if (!preset) return null;
  const applies = [preset.model && `model ${preset.model}`, preset.effort && `${preset.effort} reasoning effort`].filter(Boolean);
  return {
    label: preset.name.trim().slice(0, 24),
    title: `${preset.name.trim()}: Codex asks and proposes a plan instead of editing${applies.length ? ` (${applies.join(', ')})` : ''}`,
  };
}
