// Markdown to DOM nodes, written for what agents produce: paragraphs, headings, emphasis, inline code,
// fenced code blocks, lists, block quotes, links, tables. Every piece of text becomes a text node and every
// element is made with createElement, so the input (attacker-controlled) can never become markup. Links are
// kept only for http:, https: and mailto: and open in a new tab without opener or referrer.

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const LIST = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+(.*))?$/;
const TABLE_SEP = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/;

function el(tag, className) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  return e;
}

/** Renders `text` into a new <div class="md">. */
export function renderMarkdown(text) {
  const root = el('div', 'md');
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  for (const node of blocks(lines, 0)) root.append(node);
  return root;
}

/** A link target that is safe to follow, normalised; null for anything else (javascript:, data:, relative). */
export function safeHref(raw) {
  const s = String(raw || '').trim();
  if (!s) return null;
  try {
    const url = new URL(s);
    if (url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:') return url.href;
  } catch (_) { /* not an absolute URL */ }
  return null;
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) ||
    /^ {0,3}([-*+]|1[.)])[ \t]+\S/.test(line);
}

function blocks(lines, depth) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    let m;
    if ((m = FENCE.exec(line))) {
      const fence = m[1];
      const lang = (m[2] || '').toLowerCase().replace(/[^a-z0-9+#-]/g, '').slice(0, 20);
      const indent = line.length - line.trimStart().length;
      const body = [];
      i++;
      while (i < lines.length) {
        const l = lines[i];
        const close = l.trim();
        if (close.startsWith(fence[0].repeat(fence.length)) && /^([`~])\1*$/.test(close) && close[0] === fence[0]) { i++; break; }
        body.push(indent ? l.replace(new RegExp(`^ {0,${indent}}`), '') : l);
        i++;
      }
      const pre = el('pre', 'code-block');
      const code = el('code');
      if (lang) { code.className = `lang-${lang}`; pre.dataset.lang = lang; }
      code.textContent = body.join('\n');
      pre.append(code);
      pre.tabIndex = 0; // scrollable horizontally with a keyboard too
      out.push(pre);
      continue;
    }
    if ((m = HEADING.exec(line)) && (m[2] !== undefined || /^ {0,3}#{1,6}\s*$/.test(line))) {
      const level = Math.min(6, m[1].length + 1); // the message sits under the page's own h1
      const hEl = el(`h${level}`);
      inline(m[2] || '', hEl);
      out.push(hEl);
      i++;
      continue;
    }
    if (RULE.test(line)) { out.push(el('hr')); i++; continue; }
    if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && lines[i].trim() && (m = QUOTE.exec(lines[i]) || [null, lines[i]])) {
        inner.push(m[1]);
        i++;
      }
      const q = el('blockquote');
      if (depth < 20) for (const n of blocks(inner, depth + 1)) q.append(n);
      out.push(q);
      continue;
    }
    if ((m = LIST.exec(line)) && m[4] !== undefined) {
      i = list(lines, i, out, depth);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      i = table(lines, i, out);
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || !lines[i].trim())) {
        body.push(lines[i].replace(/^( {4}|\t)/, ''));
        i++;
      }
      while (body.length && !body[body.length - 1].trim()) body.pop();
      const pre = el('pre', 'code-block');
      const code = el('code');
      code.textContent = body.join('\n');
      pre.append(code);
      pre.tabIndex = 0;
      out.push(pre);
      continue;
    }
    const para = [line];
    i++;
    while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) { para.push(lines[i]); i++; }
    const p = el('p');
    inline(para.join('\n').trim(), p);
    out.push(p);
  }
  return out;
}

function list(lines, i, out, depth) {
  const first = LIST.exec(lines[i]);
  const ordered = /\d/.test(first[2]);
  const marker = ordered ? first[2].slice(-1) : first[2];
  const listEl = el(ordered ? 'ol' : 'ul');
  if (ordered) {
    const start = parseInt(first[2], 10);
    if (start !== 1) listEl.start = start;
  }
  const items = [];
  let loose = false;
  const sameKind = (line) => {
    const m = LIST.exec(line);
    if (!m || m[4] === undefined || m[1].length > first[1].length + 1) return null;
    return (ordered ? /\d/.test(m[2]) && m[2].slice(-1) === marker : m[2] === marker) ? m : null;
  };
  while (i < lines.length) {
    const m = sameKind(lines[i]);
    if (!m) break;
    const contentIndent = m[1].length + m[2].length + (m[3].length - m[4].length);
    const body = [m[4]];
    i++;
    let blank = false;
    while (i < lines.length) {
      const l = lines[i];
      if (!l.trim()) { blank = true; body.push(''); i++; continue; }
      const indent = l.length - l.trimStart().length;
      if (indent >= Math.min(contentIndent, 4) && indent > m[1].length) {
        body.push(l.slice(Math.min(indent, contentIndent)));
        blank = false;
        i++;
        continue;
      }
      if (!blank && !startsBlock(l) && !LIST.test(l)) { body.push(l.trim()); i++; continue; } // lazy continuation
      break;
    }
    while (body.length && !body[body.length - 1].trim()) body.pop();
    const next = i < lines.length && sameKind(lines[i]);
    if (blank && next) loose = true;
    if (body.includes('')) loose = true;
    items.push(body);
    if (blank && !next) break;
  }
  for (const body of items) {
    const li = el('li');
    const children = depth < 20 ? blocks(body, depth + 1) : [];
    for (const n of children) {
      if (!loose && n.tagName === 'P') {
        if (li.lastChild) li.append(document.createTextNode(' '));
        while (n.firstChild) li.append(n.firstChild);
      }
      else li.append(n);
    }
    listEl.append(li);
  }
  out.push(listEl);
  return i;
}

function splitRow(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells = [];
  let cur = '';
  for (let k = 0; k < s.length; k++) {
    if (s[k] === '\\' && s[k + 1] === '|') { cur += '|'; k++; }
    else if (s[k] === '|') { cells.push(cur.trim()); cur = ''; }
    else cur += s[k];
  }
  cells.push(cur.trim());
  return cells;
}

function table(lines, i, out) {
  const head = splitRow(lines[i]);
  const aligns = splitRow(lines[i + 1]).map((c) => (c.endsWith(':') ? (c.startsWith(':') ? 'center' : 'right') : ''));
  i += 2;
  const wrap = el('div', 'table-wrap');
  const t = el('table');
  const thead = el('thead');
  const tr = el('tr');
  head.forEach((c, k) => { const th = el('th'); if (aligns[k]) th.className = `align-${aligns[k]}`; inline(c, th); tr.append(th); });
  thead.append(tr);
  t.append(thead);
  const tbody = el('tbody');
  while (i < lines.length && lines[i].trim() && lines[i].includes('|')) {
    const row = el('tr');
    const cells = splitRow(lines[i]);
    for (let k = 0; k < head.length; k++) {
      const td = el('td');
      if (aligns[k]) td.className = `align-${aligns[k]}`;
      inline(cells[k] || '', td);
      row.append(td);
    }
    tbody.append(row);
    i++;
  }
  t.append(tbody);
  wrap.append(t);
  out.push(wrap);
  return i;
}

// -- inline ------------------------------------------------------------------------------------------------

function isSpace(c) { return c === undefined || /\s/.test(c); }
function isWord(c) { return c !== undefined && /[\p{L}\p{N}]/u.test(c); }

function findClose(text, from, delim) {
  let k = from;
  while (k < text.length) {
    const at = text.indexOf(delim, k);
    if (at < 0) return -1;
    if (text[at - 1] === '\\') { k = at + 1; continue; }
    if (at > from && !isSpace(text[at - 1]) && (delim[0] !== '_' || !isWord(text[at + delim.length]))) {
      if (delim.length === 1 && text[at + 1] === delim) { k = at + 2; continue; } // part of a ** run
      return at;
    }
    k = at + 1;
  }
  return -1;
}

const MAX_LABEL = 1000; // link labels and targets longer than these are text: bounds the work per bracket
const MAX_URL = 2048;

function matchingBracket(text, open) {
  let depth = 0;
  const end = Math.min(text.length, open + MAX_LABEL);
  for (let k = open; k < end; k++) {
    const c = text[k];
    if (c === '\\') { k++; continue; }
    if (c === '`') { const close = text.indexOf('`', k + 1); if (close > 0 && close < end) { k = close; continue; } }
    if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return k;
  }
  return -1;
}

function linkTarget(text, at) {
  // (url "title") right after the closing bracket; url may be <…>; parentheses may nest once.
  if (text[at] !== '(') return null;
  let k = at + 1;
  while (text[k] === ' ') k++;
  let url = '';
  if (text[k] === '<') {
    const end = text.indexOf('>', k);
    if (end < 0) return null;
    url = text.slice(k + 1, end);
    k = end + 1;
  } else {
    let depth = 0;
    const start = k;
    const end = Math.min(text.length, k + MAX_URL);
    for (; k < end; k++) {
      const c = text[k];
      if (c === '\\') { k++; continue; }
      if (c === '(') depth++;
      else if (c === ')') { if (depth === 0) break; depth--; }
      else if (/\s/.test(c)) break;
    }
    url = text.slice(start, k);
  }
  while (text[k] === ' ') k++;
  if (text[k] === '"' || text[k] === "'") {
    const end = text.indexOf(text[k], k + 1);
    if (end < 0) return null;
    k = end + 1;
    while (text[k] === ' ') k++;
  }
  if (text[k] !== ')') return null;
  return { url, end: k + 1 };
}

function makeLink(href, parent) {
  const a = el('a');
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  parent.append(a);
  return a;
}

const BARE_URL = /^(https?:\/\/|mailto:)[^\s<>"]+/i;

function inline(text, parent, depth = 0) {
  // Searches that failed once fail for every later position too: remember them, so unclosed delimiters cost
  // one scan in all instead of one each (attacker-shaped text stays linear).
  const noClose = new Set();
  let buf = '';
  const flush = () => { if (buf) { parent.append(document.createTextNode(buf)); buf = ''; } };
  let k = 0;
  while (k < text.length) {
    const c = text[k];
    if (c === '\\' && k + 1 < text.length) {
      if (text[k + 1] === '\n') { flush(); parent.append(el('br')); k += 2; continue; }
      if (PUNCT.test(text[k + 1])) { buf += text[k + 1]; k += 2; continue; }
    }
    if (c === '\n') {
      if (buf.endsWith('  ')) { buf = buf.replace(/ +$/, ''); flush(); parent.append(el('br')); }
      else buf += '\n';
      k++;
      continue;
    }
    if (c === '`') {
      let run = 1;
      while (text[k + run] === '`') run++;
      const fence = '`'.repeat(run);
      let end = noClose.has(fence) ? -1 : text.indexOf(fence, k + run);
      while (end >= 0 && text[end + run] === '`') end = text.indexOf(fence, end + run + 1);
      if (end < 0) noClose.add(fence);
      if (end >= 0) {
        flush();
        let body = text.slice(k + run, end).replace(/\n/g, ' ');
        if (body.length > 2 && body.startsWith(' ') && body.endsWith(' ') && body.trim()) body = body.slice(1, -1);
        const code = el('code');
        code.textContent = body;
        parent.append(code);
        k = end + run;
        continue;
      }
      buf += fence;
      k += run;
      continue;
    }
    if (depth < 12 && (c === '*' || c === '_' || c === '~')) {
      const double = text[k + 1] === c;
      if (c === '~' && !double) { buf += c; k++; continue; }
      const delim = double ? c + c : c;
      const leftOk = !isSpace(text[k + delim.length]) && !(c === '_' && isWord(text[k - 1]));
      const close = leftOk && !noClose.has(delim) ? findClose(text, k + delim.length, delim) : -1;
      if (leftOk && close < 0) noClose.add(delim);
      if (close > k + delim.length - 1 && close !== k + delim.length) {
        flush();
        const tag = c === '~' ? 'del' : double ? 'strong' : 'em';
        const e = el(tag);
        inline(text.slice(k + delim.length, close), e, depth + 1);
        parent.append(e);
        k = close + delim.length;
        continue;
      }
      buf += delim;
      k += delim.length;
      continue;
    }
    if (c === '!' && text[k + 1] === '[') { // an image: shown as a link to it (remote images are not loaded)
      const close = matchingBracket(text, k + 1);
      const target = close > 0 ? linkTarget(text, close + 1) : null;
      if (target) {
        flush();
        const alt = text.slice(k + 2, close) || 'image';
        const href = safeHref(target.url);
        if (href) makeLink(href, parent).textContent = alt;
        else parent.append(document.createTextNode(alt));
        k = target.end;
        continue;
      }
    }
    if (c === '[' && depth < 12) {
      const close = matchingBracket(text, k);
      const target = close > 0 ? linkTarget(text, close + 1) : null;
      if (target) {
        flush();
        const href = safeHref(target.url);
        const label = text.slice(k + 1, close);
        if (href) inline(label, makeLink(href, parent), depth + 1);
        else inline(label, parent, depth + 1); // unsafe target: only the text
        k = target.end;
        continue;
      }
    }
    if (c === '<' && !noClose.has('>')) {
      const end = text.indexOf('>', k);
      if (end < 0) noClose.add('>');
      if (end > 0 && end - k < MAX_URL) {
        const inner = text.slice(k + 1, end);
        const href = /^[a-z][a-z0-9+.-]*:[^\s<>]*$/i.test(inner) ? safeHref(inner)
          : /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(inner) ? safeHref(`mailto:${inner}`) : null;
        if (href) {
          flush();
          makeLink(href, parent).textContent = inner;
          k = end + 1;
          continue;
        }
      }
    }
    if ((c === 'h' || c === 'H' || c === 'm' || c === 'M') && !isWord(text[k - 1])) {
      const m = BARE_URL.exec(text.slice(k, k + 2048));
      if (m) {
        let url = m[0];
        // Trailing punctuation belongs to the sentence; a closing parenthesis only if unbalanced.
        while (/[.,:;!?'*_~]$/.test(url) || (url.endsWith(')') && (url.split('(').length < url.split(')').length))) url = url.slice(0, -1);
        const href = safeHref(url);
        if (href && url.length > 8) {
          flush();
          makeLink(href, parent).textContent = url;
          k += url.length;
          continue;
        }
      }
    }
    buf += c;
    k++;
  }
  flush();
}
