// The store's part for the `!commands` phones run (commandStarted/commandOutput/commandExited): kept on the
// thread as `commands` (runId → run), in the order they started. The connection drops duplicates by seq.

/** Most output kept per run in the page (the bridge keeps at most 1 MiB). */
const MAX_OUTPUT = 1 << 20;

/** Applies one message; returns true when it was one of these kinds. */
export function applyCommand(store, msg) {
  if (msg.kind !== 'commandStarted' && msg.kind !== 'commandOutput' && msg.kind !== 'commandExited') return false;
  const t = store.ensure(msg.threadId);
  if (!t.commands) t.commands = new Map();
  let run = t.commands.get(msg.runId);
  const added = !run;
  if (!run) {
    run = { runId: msg.runId, command: '', cwd: '', deviceId: null, output: '', running: true, exitCode: null, reason: null, truncated: false };
    t.commands.set(msg.runId, run);
  }
  let output = '';
  switch (msg.kind) {
    case 'commandStarted':
      Object.assign(run, { command: String(msg.command || ''), cwd: String(msg.cwd || ''), deviceId: msg.deviceId || null });
      break;
    case 'commandOutput':
      output = String(msg.data || '').slice(0, Math.max(0, MAX_OUTPUT - run.output.length));
      run.output += output;
      break;
    default:
      Object.assign(run, { running: false, exitCode: typeof msg.exitCode === 'number' ? msg.exitCode : null, reason: msg.reason || null, truncated: !!msg.truncated });
  }
  store.emit(t, { type: 'command', run, added, output });
  return true;
}

/** Commands of the thread still running. */
export function runningCommands(t) {
  let n = 0;
  for (const run of (t.commands || new Map()).values()) if (run.running) n++;
  return n;
}
