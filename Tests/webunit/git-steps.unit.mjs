// The git panel's steps (issue 37 item 7): each offered only when it means something.
import assert from 'node:assert/strict';
import test from 'node:test';
import { gitSteps } from '../../Sources/BridgeWeb/Assets/git-panel.js';

test('nothing pushed yet: push, no pull request', () => {
  const s = gitSteps({ branch: 'fix', files: [], ahead: 0 });
  assert.deepEqual(s, { push: { enabled: true, label: 'Push to origin' }, pullRequest: false, next: 'Next: Push to origin publishes fix.' });
});

test('commits ahead: push them first', () => {
  const s = gitSteps({ branch: 'fix', upstream: 'origin/fix', files: [], ahead: 2 });
  assert.equal(s.push.enabled, true);
  assert.equal(s.pullRequest, false);
  assert.equal(s.next, 'Next: Push sends 2 commits to origin/fix.');
});

test('pushed whole on a branch: the pull request; on main: nothing', () => {
  assert.deepEqual(gitSteps({ branch: 'fix', upstream: 'origin/fix', files: [], ahead: 0 }),
    { push: { enabled: false, label: 'Push' }, pullRequest: true, next: 'Next: open a pull request for this branch.' });
  assert.deepEqual(gitSteps({ branch: 'main', upstream: 'origin/main', files: [], ahead: 0 }),
    { push: { enabled: false, label: 'Push' }, pullRequest: false, next: 'Nothing to commit or push.' });
});

test('uncommitted changes: no hint (Commit is the step); detached: no push', () => {
  assert.equal(gitSteps({ branch: 'fix', files: [{ path: 'a' }] }).next, '');
  assert.equal(gitSteps({ files: [] }).push.enabled, false);
});

test('no remote to push to (issue 46 item 5): no Push, the way to add one instead; another remote is pushed to by name', () => {
  const none = gitSteps({ branch: 'main', files: [], ahead: 0, remotes: [] });
  assert.deepEqual(none, { push: { enabled: false, label: 'Push' }, pullRequest: false, next: '', noRemote: true });
  const backup = gitSteps({ branch: 'fix', files: [], ahead: 0, remotes: ['backup'] });
  assert.deepEqual(backup.push, { enabled: true, label: 'Push to backup', remote: 'backup' });
  assert.equal(backup.next, 'Next: Push to backup publishes fix.');
  // A branch that tracks its upstream pushes there, whatever the remotes are called.
  assert.equal(gitSteps({ branch: 'fix', upstream: 'origin/fix', files: [], ahead: 1, remotes: ['origin'] }).noRemote, undefined);
});
