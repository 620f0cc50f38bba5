// How much of the thread's context is left, from Codex's `thread/tokenUsage/updated` (relayed as an event): one
// number under the thread's title. Numbers only; nothing from the agent.

/** Compact token counts: 950, 12.3k, 1.2M. */
export function tokens(n) {
  if (!Number.isFinite(n) || n < 0) return '0';
  if (n < 1000) return String(Math.round(n));
  if (n < 1e6) return `${(n / 1000).toFixed(n < 10000 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

/**
 * What the meter says for Codex's `tokenUsage` ({total, last, modelContextWindow?}): one number, how much of the
 * context is left (the last request's tokens against the model's window), or when Codex does not know the window
 * how many tokens are in it; `detail` has the rest (the window, the thread's total) for a tooltip. Null when there
 * is nothing to say.
 */
export function describeContext(usage) {
  if (!usage || typeof usage !== 'object' || !usage.total) return null;
  const total = Number(usage.total.totalTokens) || 0;
  const inContext = usage.last ? Number(usage.last.totalTokens) || 0 : 0;
  const windowSize = Number(usage.modelContextWindow) || 0;
  const used = windowSize > 0 ? Math.min(100, Math.round((100 * inContext) / windowSize)) : null;
  const totalWords = `${tokens(total)} tokens used in this thread`;
  if (used === null) return { left: null, text: `${tokens(inContext)} tokens in context`, detail: totalWords };
  return { left: 100 - used, text: `${100 - used}% context left`, detail: `${tokens(inContext)} of ${tokens(windowSize)} tokens in context · ${totalWords}` };
}

/**
 * The meter, in the thread's header (so it stays in sight however long the thread): "62% context left", marked
 * when little is left (a compaction is near).
 */
export function contextMeter() {
  const el = document.createElement('p');
  el.className = 'context-meter';
  el.hidden = true;
  return {
    el,
    update(usage) {
      const said = describeContext(usage);
      el.hidden = !said;
      if (!said) return;
      el.textContent = said.text;
      el.title = said.detail;
      el.classList.toggle('low', said.left !== null && said.left <= 15);
    },
  };
}
