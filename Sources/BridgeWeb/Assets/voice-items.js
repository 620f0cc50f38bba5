// The store's part for voice (BRIDGE.md "Voice: talking to Codex"): the journaled transcript parts
// (bridge/voiceTranscript, and readThread's `voice`) become items of the thread, so a voice session reads as text
// in the conversation, here and on every other phone; bridge/voice says a session started or ended (a small notice,
// and a `voice` change the thread screen's voice mode hears). Change records as in threads.js; the item's view is
// item-views.js's.
const str = (v) => (typeof v === 'string' ? v : '');

/** A transcript part as an item's fields; its id from the event's seq, so a replay or readThread keeps it once. */
function part(seq, role, text) {
  return { id: `voice-${seq}`, type: 'voiceTranscript', role: role === 'assistant' ? 'assistant' : 'user', text: str(text), seq };
}

/** Why a session ended, for the notice in the conversation. */
const ENDED = {
  stopped: 'Voice ended.',
  disconnected: 'Voice ended: the phone that started it lost its connection.',
  closed: 'Voice ended by Codex.',
  error: 'Voice ended with an error.',
  codexStopped: 'Voice ended: Codex stopped on the workstation.',
};

/** The records for a bridge/voice or bridge/voiceTranscript event; null for any other. */
export function voiceRecords(t, msg, turnId) {
  const data = msg.data || {};
  if (msg.type === 'bridge/voiceTranscript') {
    if (!str(data.text)) return [];
    return [{ notice: part(msg.seq ?? `${t.turns.length}-${Date.now()}`, data.role, data.text), turn: turnId }];
  }
  if (msg.type !== 'bridge/voice') return null;
  const started = data.state === 'started';
  const text = started ? 'Voice started.' : `${ENDED[data.reason] || 'Voice ended.'}${data.message && !started ? ` ${str(data.message)}` : ''}`;
  return [
    { notice: { id: `voice-state-${msg.seq ?? Date.now()}`, text, noticeKind: 'voice' }, turn: turnId },
    { emit: { type: 'voice', state: str(data.state), transport: str(data.transport), reason: str(data.reason), message: str(data.message), deviceId: str(data.deviceId) } },
  ];
}

/**
 * readThread's `voice` ([{seq, role, text, beforeItemId?}], oldest first): each part an item, once, where it was said
 * (before the first item started after it; without one, or one not held, last).
 */
export function voiceAnswerRecords(answer) {
  const parts = Array.isArray(answer && answer.voice) ? answer.voice : [];
  return parts
    .filter((p) => p && typeof p.seq === 'number' && str(p.text))
    .map((p) => ({ notice: part(p.seq, p.role, p.text), before: str(p.beforeItemId) || null }));
}
