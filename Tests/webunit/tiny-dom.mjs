// Just enough of the DOM for the web app's pure renderers under Node (no browser): elements and text nodes with
// append, firstChild/lastChild, textContent and properties. `serialize` shows a tree as tags and escaped text,
// so a test can see whether input became markup.
class Node {
  constructor() { this.childNodes = []; this.parentNode = null; }
  get firstChild() { return this.childNodes[0] || null; }
  get lastChild() { return this.childNodes[this.childNodes.length - 1] || null; }
  append(...nodes) {
    for (const n of nodes) {
      const node = typeof n === 'string' ? new Text(n) : n;
      if (node.parentNode) node.parentNode.childNodes.splice(node.parentNode.childNodes.indexOf(node), 1);
      node.parentNode = this;
      this.childNodes.push(node);
    }
  }
  appendChild(node) { this.append(node); return node; }
  get textContent() { return this.childNodes.map((c) => c.textContent).join(''); }
  set textContent(value) { this.childNodes = []; if (value !== '') this.append(new Text(String(value))); }
}

class Text extends Node {
  constructor(data) { super(); this.data = data; }
  get textContent() { return this.data; }
}

class Element extends Node {
  constructor(tag) { super(); this.tagName = tag.toUpperCase(); this.className = ''; this.dataset = {}; this.attributes = {}; }
  setAttribute(name, value) { this.attributes[name] = String(value); }
}

export function installTinyDOM() {
  globalThis.document = {
    createElement: (tag) => new Element(tag),
    createTextNode: (data) => new Text(String(data)),
    createDocumentFragment: () => new Node(),
  };
}

const escapeText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function serialize(node) {
  if (node instanceof Text) return escapeText(node.data);
  const inner = node.childNodes.map(serialize).join('');
  if (!(node instanceof Element)) return inner;
  const tag = node.tagName.toLowerCase();
  const href = node.href ? ` href="${node.href}"` : '';
  return `<${tag}${href}>${inner}</${tag}>`;
}
