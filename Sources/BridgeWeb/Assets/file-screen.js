// One file of a thread's directory (readFile): text with line numbers, an image shown, anything else named with a
// download button (GET /files, for a file too large to show too).
import { h } from './dom.js';
import { header, describeError } from './ui.js';

export function fileScreen(ctx, threadId, path) {
  const { session } = ctx;
  const head = header(ctx, { title: path.split('/').pop() || path, subtitle: path, back: () => ctx.back(`#/t/${encodeURIComponent(threadId)}/diff`) });
  const body = h('div', { class: 'file-host' }, h('p', { class: 'empty', text: 'Loading…' }));
  const el = h('div', { class: 'screen file-screen' }, head.el, h('main', { class: 'diff-main' }, body));
  let alive = true;

  // GET /files needs the Bearer header, so the file is fetched here and handed to the browser as a blob download.
  function downloadButton(note) {
    const status = h('p', { class: 'empty', text: note });
    const button = h('button', { class: 'primary', type: 'button', text: 'Download' });
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const query = new URLSearchParams({ threadId, path });
        const res = await fetch(`/files?${query}`, { headers: { Authorization: `Bearer ${ctx.session.token}` } });
        if (!res.ok) {
          const err = await res.json().catch(() => ({}));
          throw Object.assign(new Error(err.message || `HTTP ${res.status}`), { code: err.code });
        }
        const url = URL.createObjectURL(await res.blob());
        const link = h('a', { href: url, attrs: { download: path.split('/').pop() || 'file' } });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60000);
      } catch (err) {
        status.textContent = `Could not download ${path}: ${describeError(err)}`;
      } finally {
        button.disabled = false;
      }
    });
    return h('div', { class: 'file-download' }, status, button);
  }

  async function load() {
    try {
      const file = await session.request('readFile', { threadId, path });
      if (!alive) return;
      if (typeof file.text === 'string') {
        const lines = file.text.replace(/\n$/, '').split('\n');
        const pre = h('pre', { class: 'file-lines', tabIndex: 0 });
        lines.forEach((line, i) => { pre.append(h('span', { class: 'fl' }, h('span', { class: 'ln', text: String(i + 1), attrs: { 'aria-hidden': 'true' } }), h('span', { text: line }))); });
        body.replaceChildren(pre);
      } else if (/^image\/(png|jpeg|gif|webp)$/.test(file.mimeType) && file.base64) {
        // A data: URL of the bytes as an image (the CSP allows data: images); never SVG, which could script.
        body.replaceChildren(h('img', { class: 'file-image', src: `data:${file.mimeType};base64,${file.base64}`, alt: path }));
      } else {
        body.replaceChildren(downloadButton(`${file.mimeType}, ${file.size} bytes: not shown here.`));
      }
    } catch (err) {
      if (!alive) return;
      if (err && err.code === 'too_large') body.replaceChildren(downloadButton(`${path} is too large to show here.`));
      else body.replaceChildren(h('p', { class: 'empty', text: `Could not open ${path}: ${describeError(err)}` }));
    }
  }
  load();
  return { el, title: () => path, reload: load, destroy() { alive = false; } };
}
