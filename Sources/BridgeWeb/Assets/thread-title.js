// What a thread is called wherever it is named (the list, its header, the inbox, the page title), and the one line
// under its title in the list. No DOM here (Tests/webunit/threads.unit.mjs).

/** The lines of `text` that hold something, trimmed, their runs of white space made one space. */
function lines(text) {
  return String(text || '').split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

/**
 * Codex's own name for the thread when it has one (a rename, or the title Codex gave it), else the first line of
 * its first message (Codex's `preview`), trimmed; '' when there is neither.
 */
export function threadTitle(t) {
  return lines(t && t.name)[0] || lines(t && t.preview)[0] || '';
}

/**
 * The line under a thread's title in the list: the last line of its last answer when this phone has seen it, else
 * what the title leaves of the first message (all of it under Codex's name, the lines after the first under a title
 * made of its first line); '' when the title already says all there is.
 */
export function rowPreview(t) {
  if (t && t.lastAnswer) return t.lastAnswer;
  const prompt = lines(t && t.preview);
  return (lines(t && t.name).length ? prompt : prompt.slice(1)).join(' ');
}
