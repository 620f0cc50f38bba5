// A long thread's conversation kept small (issue 36): the turns far from the viewport are collapsed to one line
// each (their item views dropped; the store keeps the items) and expanded again when they come near, and what is
// on screen stays where it is while turns are added, collapsed or expanded above it. Pure parts are tested by
// node --test (Tests/webunit).

/** Items rendered at most before far turns are collapsed. */
export const MAX_RENDERED_ITEMS = 240;
/** Turns within this many pixels of the viewport are never collapsed; a line within half of it is expanded. */
export const NEAR = 800;

/**
 * Items drawn whole when the conversation is drawn at its end (opening a thread, jumping there at once): enough to
 * fill a phone's screen and the margin above it several times. The turns before them come as lines, drawn as the
 * person scrolls near them, so opening a long thread draws a third of its first page (6 turns of 20 items) on a
 * phone's slow CPU (P9).
 */
export const END_ITEMS = 40;

/**
 * The index of the first turn to draw whole at the end: the last turns holding at least `min` items, and every
 * turn still running. counts: [{items, running}], oldest first.
 */
export function firstDrawn(counts, min = END_ITEMS) {
  let drawn = 0;
  let first = counts.length;
  while (first > 0 && (drawn < min || counts[first - 1].running)) {
    first -= 1;
    drawn += counts[first].items;
  }
  for (let i = 0; i < first; i++) if (counts[i].running) return i;
  return first;
}

/**
 * Which turns to collapse so that at most `max` items stay rendered: the farthest from the viewport first, never
 * one within `near` pixels of it nor a running one. entries: [{id, items, distance, running}].
 */
export function turnsToCollapse(entries, max = MAX_RENDERED_ITEMS, near = NEAR) {
  let total = entries.reduce((n, e) => n + e.items, 0);
  const out = [];
  const far = entries.filter((e) => !e.running && e.distance > near).sort((a, b) => b.distance - a.distance);
  for (const e of far) {
    if (total <= max) break;
    out.push(e.id);
    total -= e.items;
  }
  return out;
}

/** Pixels between a box ({top, bottom}) and a viewport of `height` (0 when the box shows). */
export function distanceFromViewport(rect, height) {
  if (rect.bottom < 0) return -rect.bottom;
  if (rect.top > height) return rect.top - height;
  return 0;
}

/** The one line a collapsed turn shows: the message that started it and how many items it holds. */
export function turnLine(prompt, count) {
  const text = (prompt || '').replace(/\s+/g, ' ').trim();
  const short = text.length > 90 ? `${text.slice(0, 89)}…` : text;
  return `${short || 'Turn'} · ${count} ${count === 1 ? 'item' : 'items'}`;
}

/**
 * Runs `change` (which adds, collapses or expands turns in `container`) keeping the first child of `container` on
 * screen where it was, so the person's place does not move. The page's own scroll anchoring is off
 * (app.css: overflow-anchor), so this is the one adjustment in every engine.
 */
export function keepPlace(container, change) {
  let anchor = null;
  for (const child of container.children) {
    if (child.getBoundingClientRect().bottom > 0) { anchor = child; break; }
  }
  const before = anchor ? anchor.getBoundingClientRect().top : 0;
  change();
  if (!anchor || !anchor.isConnected) return;
  const delta = anchor.getBoundingClientRect().top - before;
  if (Math.abs(delta) >= 1) window.scrollBy(0, delta);
}
