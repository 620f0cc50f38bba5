// A `!command` as a live card in the thread: the command line, its output as it streams, how it ended (exit
// code, or why it did not exit by itself) and Stop while it runs. Output is text (textContent), never markup.
import { h } from './dom.js';
import { oneLine } from './git-panel.js';
import { localPorts, previewLink } from './preview.js';

/** How a run ended, in one line: "Exit 0", "Exit 3", "Stopped", or the bridge's reason. */
export function describeExit(run) {
  if (run.running) return 'Running…';
  if (run.exitCode !== null && run.exitCode !== undefined) return `Exit ${run.exitCode}${run.truncated ? ' · output cut at 1 MiB' : ''}`;
  if (run.reason === 'stopped') return 'Stopped';
  return `Did not finish: ${String(run.reason || 'unknown reason').replace(/\s+/g, ' ')}`;
}

/**
 * commandCard(run, {stop(run) → Promise, onLayout, preview(port) → Promise<link?>}) → {el, update(change)}
 * With `preview`, a local URL in the output (a dev server it started) gets a Preview button (preview.js).
 */
export function commandCard(run, { stop, onLayout, preview } = {}) {
  const status = h('span', { class: 'command-status', attrs: { 'aria-live': 'polite' } });
  const output = h('pre', { class: 'command-output', attrs: { tabindex: '0', 'aria-label': 'Command output' } });
  const error = h('p', { class: 'command-error', hidden: true, attrs: { role: 'alert' } });
  const stopButton = h('button', { type: 'button', class: 'text-button', text: 'Stop', dataset: { scope: 'run' }, attrs: { 'aria-label': 'Stop command' } });
  stopButton.addEventListener('click', async () => {
    stopButton.disabled = true;
    try { await stop(run); }
    catch (err) { if (err.code !== 'not_found') { error.textContent = oneLine(err); error.hidden = false; } stopButton.disabled = false; }
  });
  const line = h('code', { class: 'command-line', text: run.command });
  const previews = h('span', { class: 'command-previews' });
  const offered = new Set();
  let tail = ''; // the end of the output so far: a URL split between two chunks is still found
  function offerPreviews(text) {
    if (!preview) return;
    const seen = tail + text;
    tail = seen.slice(-64);
    for (const port of localPorts(seen)) {
      if (offered.has(port)) continue;
      offered.add(port);
      const button = h('button', { type: 'button', class: 'text-button', text: `Preview :${port}`, dataset: { scope: 'operate' }, attrs: { 'aria-label': `Preview port ${port}` } });
      button.addEventListener('click', async () => {
        const link = await preview(port);
        if (link) previews.append(previewLink(link, port));
      });
      previews.append(button);
    }
  }
  const el = h('section', { class: 'command-card', dataset: { runId: run.runId }, attrs: { 'aria-label': 'Command' } },
    h('div', { class: 'command-head' }, h('span', { class: 'command-prompt', text: '!', attrs: { 'aria-hidden': 'true' } }), line, stopButton),
    output, h('div', { class: 'command-foot' }, status, previews), error);

  function update(change) {
    line.textContent = run.command;
    if (change && change.output) {
      const atEnd = output.scrollTop + output.clientHeight >= output.scrollHeight - 8;
      output.append(document.createTextNode(change.output));
      offerPreviews(change.output);
      if (atEnd) output.scrollTop = output.scrollHeight;
    } else if (!change || change.added) {
      output.textContent = run.output;
      offerPreviews(run.output || '');
    }
    output.hidden = !run.output;
    status.textContent = describeExit(run);
    el.classList.toggle('running', run.running);
    el.classList.toggle('failed', !run.running && run.exitCode !== 0);
    stopButton.hidden = !run.running;
    if (onLayout) onLayout();
  }
  update();
  return { el, update };
}
