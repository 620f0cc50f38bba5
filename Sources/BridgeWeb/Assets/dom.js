// Small DOM helpers. Everything the app shows is built with createElement and textContent: no HTML strings,
// so text from Codex, the repository or another client can never become markup.

/**
 * h('button', {class: 'primary', on: {click: fn}, attrs: {'aria-label': 'Send'}}, 'Send')
 * Children may be strings (become text nodes), nodes, arrays, null/undefined/false (skipped).
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
      else if (key === 'text') el.textContent = value;
      else if (key === 'on') for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
      else if (key === 'attrs') for (const [name, v] of Object.entries(value)) { if (v !== undefined && v !== null && v !== false) el.setAttribute(name, v === true ? '' : String(v)); }
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else el[key] = value; // properties such as type, value, disabled, href, htmlFor, hidden
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** A few line icons as SVG built with createElementNS (decorative: aria-hidden). */
const ICONS = {
  back: 'M15 5 8 12l7 7',
  send: 'M5 12h13M13 6l6 6-6 6',
  stop: 'M7 7h10v10H7z',
  plus: 'M12 5v14M5 12h14',
  folder: 'M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z',
  file: 'M7 3h7l5 5v13H7zM14 3v5h5',
  up: 'M12 19V5M6 11l6-6 6 6',
  diff: 'M12 4v8M8 8h8M8 18h8',
  lock: 'M7 11V8a5 5 0 0 1 10 0v3M5 11h14v9H5z',
  down: 'M12 5v14M6 13l6 6 6-6',
  copy: 'M9 9h10v10H9zM5 15V5h10',
  check: 'M5 12l5 5 9-10',
  image: 'M4 5h16v14H4zM4 16l5-5 4 4 3-3 4 4M15 9h.01',
  more: 'M5 12h.01M12 12h.01M19 12h.01',
  mic: 'M12 3a3 3 0 0 1 3 3v5a3 3 0 0 1-6 0V6a3 3 0 0 1 3-3zM6 11a6 6 0 0 0 12 0M12 17v4',
  wave: 'M4 10v4M8 7v10M12 4v16M16 7v10M20 10v4',
};

export function icon(name) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'icon');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', ICONS[name] || '');
  svg.append(path);
  return svg;
}

/** "3 min ago" style relative time for Unix seconds. */
export function relativeTime(seconds, now = Date.now() / 1000) {
  if (!seconds) return '';
  const d = Math.max(0, now - seconds);
  if (d < 45) return 'just now';
  if (d < 3600) return `${Math.round(d / 60)} min ago`;
  if (d < 86400) return `${Math.round(d / 3600)} h ago`;
  if (d < 86400 * 7) return `${Math.round(d / 86400)} d ago`;
  return new Date(seconds * 1000).toLocaleDateString();
}
