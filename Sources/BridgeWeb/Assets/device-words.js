// The Devices screen's words: what a scope lets a device do, what a device did (its audit entries: request kinds
// and the bridge's own events), what kind of client it is. No DOM here (Tests/webunit/devices.unit.mjs).

/** What each scope lets a device do, to follow "May …" (a checkbox) or "It may …" (a sentence). */
export const SCOPE_MAY = {
  observe: 'see threads, their changes and files',
  operate: 'start and drive threads and upload photos',
  approve: 'answer approvals and questions',
  publish: 'push and open pull requests',
  run: 'run commands',
  admin: 'manage devices and linked machines',
};

/** "see threads, …, and answer approvals and questions": the scopes as one list of things a device may do. */
export function mayText(scopes) {
  const said = (scopes || []).map((s) => SCOPE_MAY[s] || s);
  if (said.length < 2) return said[0] || 'nothing';
  return `${said.slice(0, -1).join(', ')}, and ${said[said.length - 1]}`;
}

// Every request kind (BridgeProtocol's RequestKind) and every event the bridge audits, said as done.
export const ACTIONS = {
  listThreads: 'Listed the threads', startThread: 'Started a thread', sendMessage: 'Sent a message', interrupt: 'Stopped a turn',
  subscribe: 'Followed a thread', unsubscribe: 'Stopped following a thread', readThread: 'Read a thread', getDiff: 'Read the changes',
  approve: 'Answered an approval', listDirectory: 'Browsed the folders', listModels: 'Listed the models', renameThread: 'Renamed a thread',
  archiveThread: 'Archived a thread', unarchiveThread: 'Unarchived a thread', readFile: 'Read a file', usage: 'Read the usage',
  pushSubscribe: 'Turned notifications on', pushUnsubscribe: 'Turned notifications off', presence: 'Said whether it is on screen',
  answerInput: 'Answered a question', cancelQueued: 'Cancelled a queued message', reorderQueued: 'Reordered the queue',
  editQueued: 'Edited a queued message', searchFiles: 'Searched the files', startReview: 'Started a review', forkThread: 'Forked a thread',
  listSkills: 'Listed the skills', gitStatus: 'Read the git status', gitCommit: 'Committed', gitBranch: 'Made a branch',
  gitSwitch: 'Switched branches', gitPush: 'Pushed', gitCommitMessage: 'Had Codex write a commit message',
  gitPullRequest: 'Opened a pull request', runCommand: 'Ran a command', stopCommand: 'Stopped a command',
  removeWorktree: 'Removed a worktree', listDevices: 'Listed the devices', setDeviceScopes: 'Changed what a device may do',
  renameDevice: 'Renamed a device', requestScopes: 'Asked to do more', revokeDevice: 'Revoked a device', pairDevice: 'Made a pairing code',
  listAudit: 'Read the activity', setGoal: 'Set a goal', clearGoal: 'Cleared a goal', listMachines: 'Listed the machines',
  addMachine: 'Linked a machine', removeMachine: 'Removed a machine', renameMachine: 'Renamed a machine', retryMachine: 'Tried a machine again', compactThread: 'Compacted a thread',
  deleteThread: 'Deleted a thread', searchThreads: 'Searched the threads', updateThreadSettings: 'Changed a thread’s settings',
  approveDeniedAction: 'Approved what the automatic review denied', listPermissionProfiles: 'Listed the permission profiles',
  listTools: 'Listed the tools', readTurns: 'Read earlier turns', listPreviews: 'Listed the previews', openPreview: 'Opened a preview',
  listVoices: 'Listed the voices', startVoice: 'Started voice', stopVoice: 'Ended voice',
  revertThread: 'Reverted a thread', listCollaborationModes: 'Listed the modes', accountUsage: 'Read the account’s usage',
  upload: 'Uploaded a file', pair: 'Paired', pairingRequested: 'Asked to pair', allowPairing: 'Allowed a pairing',
  denyPairing: 'Denied a pairing', pairingExpired: 'Pairing not confirmed', pairingAbandoned: 'Pairing abandoned',
  allowScopes: 'Granted more', denyScopes: 'Refused more', refusals: 'Was refused more',
};

// Why an action was refused, for "(refused: …)".
const OUTCOMES = {
  forbidden: 'not allowed for this device', forbidden_path: 'outside the allowed folders', not_found: 'not found',
  rate_limited: 'too many at once', bad_request: 'not understood', conflict: 'not possible then', unauthorized: 'not signed in',
  codex_unavailable: 'Codex was not running', codex_error: 'Codex refused', failed: 'it failed', denied: 'denied', expired: 'expired',
};

/** "Ran a command", "Pushed (refused: not allowed for this device)": an audit entry's kind and outcome in words. */
export function actionWords(e) {
  const what = ACTIONS[e.kind] || words(e.kind);
  if (e.outcome === 'ok') return what;
  return `${what} (refused: ${OUTCOMES[e.outcome] || String(e.outcome || '').replace(/_/g, ' ')})`;
}

/** A kind the app has no words for yet, as words all the same ("someNewKind" → "Some new kind"). */
function words(kind) {
  const text = String(kind || 'something').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A device's `platform` (what its client said when it paired) as a person says it. */
export function platformWords(platform) {
  const known = { web: 'Web app', ios: 'iPhone app', android: 'Android app', bridge: 'Linked bridge', cli: 'Command line' };
  return known[platform] || platform || '';
}
