// How full the thread's context is and how many tokens it has used, from Codex's `thread/tokenUsage/updated`
// (relayed as an event): a line with a <meter> at the top of the thread. Numbers only; nothing from the agent.

/** Compact token counts: 950, 12.3k, 1.2M. */
export function tokens(n) {
  if (!Number.isFinite(n) || n < 0) return '0';
  if (n < 1000) return String(Math.round(n));
  if (n < 1e6) return `${(n / 1000).toFixed(n < 10000 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

/**
 * What the meter says for Codex's `tokenUsage` ({total, last, modelContextWindow?}): the context's fullness
 * (the last request's tokens against the model's window, when Codex knows the window) and the thread's total.
 * Null when there is nothing to say.
 */
export function describeContext(usage) {
  if (!usage || typeof usage !== 'object' || !usage.total) return null;
  const total = Number(usage.total.totalTokens) || 0;
  const inContext = usage.last ? Number(usage.last.totalTokens) || 0 : 0;
  const windowSize = Number(usage.modelContextWindow) || 0;
  const percent = windowSize > 0 ? Math.min(100, Math.round((100 * inContext) / windowSize)) : null;
  const full = percent === null ? `${tokens(inContext)} tokens in context` : `Context ${percent}% full (${tokens(inContext)} of ${tokens(windowSize)})`;
  return { percent, text: `${full} · ${tokens(total)} tokens used in this thread` };
}

export function contextMeter() {
  const meter = document.createElement('meter');
  meter.min = 0;
  meter.max = 100;
  meter.low = 60;
  meter.high = 85;
  meter.optimum = 0;
  meter.setAttribute('aria-label', 'Context used');
  const text = document.createElement('span');
  const el = document.createElement('p');
  el.className = 'context-meter';
  el.hidden = true;
  el.append(meter, text);
  return {
    el,
    update(usage) {
      const said = describeContext(usage);
      el.hidden = !said;
      if (!said) return;
      meter.hidden = said.percent === null;
      if (said.percent !== null) meter.value = said.percent;
      text.textContent = said.text;
    },
  };
}
