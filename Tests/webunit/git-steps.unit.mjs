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
