// "Tools" from a thread's More menu (BRIDGE.md `listTools`): why a tool is there or missing — the MCP servers
// Codex has for the thread (state, sign-in, tool names) and the hooks around its turns. Everything shown comes
// from configuration or from what a server advertises: rendered as text.
import { h } from './dom.js';
import { describeError } from './ui.js';

const STATES = {
  connected: 'connected', starting: 'starting', notStarted: 'not started', failed: 'failed',
  authenticationRequired: 'needs sign-in', cancelled: 'cancelled', disabled: 'disabled',
};

function serverView(server) {
  const state = server.status ? STATES[server.status] || server.status : 'state unknown';
  const bad = ['failed', 'authenticationRequired', 'disabled', 'cancelled'].includes(server.status);
  const tools = server.tools || [];
  return h('li', { class: 'tool-server' },
    h('div', { class: 'tool-head' },
      h('strong', { text: server.title || server.name }),
      h('span', { class: `tool-state${bad ? ' bad' : ''}`, text: state })),
    h('p', { class: 'muted tool-names', text: tools.length ? tools.join(', ') : 'No tools' }));
}

function hookView(hook) {
  const what = hook.command || hook.handler || 'hook';
  const when = hook.matcher ? `${hook.event} (${hook.matcher})` : hook.event;
  return h('li', { class: 'tool-hook' },
    h('div', { class: 'tool-head' },
      h('strong', { text: when }),
      h('span', { class: `tool-state${hook.enabled ? '' : ' bad'}`, text: hook.enabled ? (hook.trust || 'enabled') : 'off' })),
    h('p', { class: 'muted tool-names', text: what }));
}

/** The sheet; `open()` asks the bridge and shows what it said. */
export function toolsSheet({ request, onShow, onHide }) {
  const body = h('div', { class: 'tools-body' });
  const close = h('button', { type: 'button', class: 'text-button', text: 'Close' });
  const el = h('section', { class: 'goal-form tools-sheet', hidden: true, attrs: { 'aria-label': 'Tools' } },
    h('h3', { class: 'tools-title', text: 'Tools' }), body, h('div', { class: 'goal-actions' }, close));
  const hide = () => { el.hidden = true; onHide?.(); };
  close.addEventListener('click', hide);
  return {
    el,
    close() { el.hidden = true; },
    async open() {
      body.replaceChildren(h('p', { class: 'muted', text: 'Asking Codex…' }));
      el.hidden = false;
      onShow?.();
      try {
        const answer = await request('listTools', {});
        const servers = answer.mcpServers || [];
        const hooks = answer.hooks || [];
        body.replaceChildren(
          h('h4', { text: 'MCP servers' }),
          servers.length ? h('ul', { class: 'tool-list' }, servers.map(serverView)) : h('p', { class: 'muted', text: 'None configured.' }),
          h('h4', { text: 'Hooks' }),
          hooks.length ? h('ul', { class: 'tool-list' }, hooks.map(hookView)) : h('p', { class: 'muted', text: 'None.' }),
          ...(answer.problems || []).map((p) => h('p', { class: 'tool-problem', text: p })));
      } catch (err) {
        body.replaceChildren(h('p', { class: 'tool-problem', text: `Codex did not say: ${describeError(err)}` }));
      }
      close.focus({ preventScroll: true });
    },
  };
}
