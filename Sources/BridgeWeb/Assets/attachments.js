// Attachments in the composer: a photo button (the camera or the photo library on a phone) and paste. Each file
// goes to POST /uploads at once (the bridge checks its type and size) and shows as a thumbnail with a remove
// button; the message then carries the upload ids. What this phone uploaded stays known by upload id, so its
// own message in the thread shows the thumbnail; other clients show a plain "Image" chip.
import { h, icon } from './dom.js';

const thumbs = new Map(); // uploadId -> object URL of the local file

/** The thumbnail URL of an attachment this phone sent, from the path Codex reports for it. */
export function thumbnailFor(path) {
  const m = /(up-[0-9a-f]{32})\.[a-z0-9]+$/.exec(typeof path === 'string' ? path : '');
  return m ? thumbs.get(m[1]) || null : null;
}

/** getToken(): the Bearer credential; onError(text): tells the person. */
export function attachments(getToken, onError) {
  const tray = h('ul', { class: 'attachment-tray', hidden: true, attrs: { 'aria-label': 'Attachments' } });
  const file = h('input', { type: 'file', hidden: true, multiple: true, tabIndex: -1,
    accept: 'image/png,image/jpeg,image/webp,image/heic,image/heif,audio/*', attrs: { 'aria-hidden': 'true' } });
  const button = h('button', { type: 'button', class: 'attach', attrs: { 'aria-label': 'Attach a photo' } }, icon('image'));
  button.addEventListener('click', () => file.click());
  file.addEventListener('change', () => { add([...file.files]); file.value = ''; });
  let items = [];

  async function upload(f) {
    const res = await fetch('/uploads', { method: 'POST', headers: { Authorization: `Bearer ${getToken()}` }, body: f });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.message || `HTTP ${res.status}`);
    return body;
  }

  function render() {
    tray.hidden = items.length === 0;
  }

  function remove(entry) {
    items = items.filter((i) => i !== entry);
    entry.el.remove();
    render();
  }

  function add(files) {
    for (const f of files) {
      const url = f.type.startsWith('image/') ? URL.createObjectURL(f) : null;
      const entry = { id: null, el: null, promise: null };
      const close = h('button', { type: 'button', class: 'attachment-remove', text: '×', attrs: { 'aria-label': `Remove ${f.name || 'attachment'}` }, on: { click: () => remove(entry) } });
      entry.el = h('li', { class: 'attachment uploading' },
        url ? h('img', { class: 'attachment-thumb', src: url, alt: f.name || 'Attached image' }) : h('span', { class: 'chip', text: f.name || 'Audio' }),
        close);
      entry.promise = upload(f).then((answer) => {
        entry.id = answer.uploadId;
        entry.el.classList.remove('uploading');
        entry.el.dataset.uploadId = answer.uploadId;
        if (url) thumbs.set(answer.uploadId, url);
      }).catch((err) => {
        onError(`Not attached: ${err.message}`);
        remove(entry);
      });
      items.push(entry);
      tray.append(entry.el);
    }
    render();
  }

  return {
    button, file, tray, add,
    /** The upload ids, once every upload has finished. */
    async ids() {
      await Promise.allSettled(items.map((i) => i.promise));
      return items.filter((i) => i.id).map((i) => i.id);
    },
    clear() { items = []; tray.replaceChildren(); render(); },
    onPaste(e) {
      const files = [...((e.clipboardData && e.clipboardData.files) || [])];
      if (files.length) { e.preventDefault(); add(files); }
    },
  };
}
