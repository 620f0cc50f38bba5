// The store's part for the `!commands` phones run (commandStarted/commandOutput/commandExited): kept in the
// thread's `commands` map (runId → run), in the order they started. The connection drops duplicates by seq.

/** Most output kept per run in the page (the bridge keeps at most 1 MiB). */
const MAX_OUTPUT = 1 << 20;

/** The change records (threads.js) for one of these messages; null for any other. */
export function commandRecords(t, msg) {
  if (msg.kind !== 'commandStarted' && msg.kind !== 'commandOutput' && msg.kind !== 'commandExited') return null;
  const known = t.commands.get(msg.runId);
  const run = known || { runId: msg.runId, command: '', cwd: '', deviceId: null, output: '', running: true, exitCode: null, reason: null, truncated: false };
  let output = '';
  let fields;
  switch (msg.kind) {
    case 'commandStarted':
      fields = { command: String(msg.command || ''), cwd: String(msg.cwd || ''), deviceId: msg.deviceId || null };
      break;
    case 'commandOutput':
      output = String(msg.data || '').slice(0, Math.max(0, MAX_OUTPUT - run.output.length));
      fields = { output: run.output + output };
      break;
    default:
      fields = { running: false, exitCode: typeof msg.exitCode === 'number' ? msg.exitCode : null, reason: msg.reason || null, truncated: !!msg.truncated };
  }
  return [
    ...(known ? [] : [{ put: 'commands', key: msg.runId, value: run }]),
    { put: 'commands', key: msg.runId, value: fields },
    { emit: { type: 'command', run, added: !known, output } },
  ];
}

/** Commands of the thread still running. */
export function runningCommands(t) {
  let n = 0;
  for (const run of t.commands.values()) if (run.running) n++;
  return n;
}
