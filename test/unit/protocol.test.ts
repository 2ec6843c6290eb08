// Rule: the extension accepts only well-formed panel messages — known types, exact fields, names /^[\w.-]{1,100}$/
// (step names may nest them as a pipeline does: `fan/lint`, `loop[2]/review`, never `.` or `..`), non-blank feedback
// of at most 10k characters — and rejects everything else as null.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_FEEDBACK_CHARS, parseFromWebview, parseToWebview } from '../../src/shared/protocol.js';

const good: Array<[string, unknown, unknown]> = [
  ['ready', { type: 'panel/ready' }, { type: 'panel/ready' }],
  ['refresh', { type: 'panel/refresh' }, { type: 'panel/refresh' }],
  ['approve', { type: 'panel/approve', stepName: 'implement_fix' }, { type: 'panel/approve', stepName: 'implement_fix' }],
  ['approve dotted/dashed', { type: 'panel/approve', stepName: 'phase-1.task_2' }, { type: 'panel/approve', stepName: 'phase-1.task_2' }],
  ['approve a nested pipeline step', { type: 'panel/approve', stepName: 'checks/signoff' }, { type: 'panel/approve', stepName: 'checks/signoff' }],
  ['approve in a loop pass', { type: 'panel/approve', stepName: 'again[12]/review' }, { type: 'panel/approve', stepName: 'again[12]/review' }],
  ['select', { type: 'panel/selectStep', stepName: 'review' }, { type: 'panel/selectStep', stepName: 'review' }],
  ['reject trims feedback', { type: 'panel/reject', stepName: 'review', feedback: '  add a test \n' }, { type: 'panel/reject', stepName: 'review', feedback: 'add a test' }],
  ['reject at the limit', { type: 'panel/reject', stepName: 'r', feedback: 'x'.repeat(MAX_FEEDBACK_CHARS) }, { type: 'panel/reject', stepName: 'r', feedback: 'x'.repeat(MAX_FEEDBACK_CHARS) }],
  ['open artifact (uuid)', { type: 'panel/openArtifact', artifactId: '0b6f3c1e-3d2a-4f43-9d9b-1c2d3e4f5a6b' }, { type: 'panel/openArtifact', artifactId: '0b6f3c1e-3d2a-4f43-9d9b-1c2d3e4f5a6b' }],
];

for (const [name, raw, expected] of good) {
  test(`accepts ${name}`, () => {
    assert.deepEqual(parseFromWebview(raw), expected);
  });
}

const bad: Array<[string, unknown]> = [
  ['null', null],
  ['undefined', undefined],
  ['a string', 'panel/ready'],
  ['an array', [{ type: 'panel/ready' }]],
  ['no type', { stepName: 'a' }],
  ['numeric type', { type: 7 }],
  ['unknown type', { type: 'panel/delete' }],
  ['type from the other direction', { type: 'panel/init', executionId: 'x', state: {} }],
  ['ready with extra field', { type: 'panel/ready', x: 1 }],
  ['approve without step', { type: 'panel/approve' }],
  ['approve with numeric step', { type: 'panel/approve', stepName: 42 }],
  ['approve with empty step', { type: 'panel/approve', stepName: '' }],
  ['approve with 101-char step', { type: 'panel/approve', stepName: 'a'.repeat(101) }],
  ['approve with an empty segment', { type: 'panel/approve', stepName: 'a//b' }],
  ['approve with a leading slash', { type: 'panel/approve', stepName: '/a' }],
  ['approve with a 101-char segment', { type: 'panel/approve', stepName: `a/${'b'.repeat(101)}` }],
  ['approve with a dot segment', { type: 'panel/approve', stepName: 'a/./b' }],
  ['approve with a bad pass', { type: 'panel/approve', stepName: 'loop[x]/b' }],
  ['approve with a space', { type: 'panel/approve', stepName: 'a b' }],
  ['approve with a newline', { type: 'panel/approve', stepName: 'a\n' }],
  ['approve with markup', { type: 'panel/approve', stepName: '<img>' }],
  ['approve with extra field', { type: 'panel/approve', stepName: 'a', decision: 'reject' }],
  ['reject without feedback', { type: 'panel/reject', stepName: 'a' }],
  ['reject with blank feedback', { type: 'panel/reject', stepName: 'a', feedback: '  \n ' }],
  ['reject with numeric feedback', { type: 'panel/reject', stepName: 'a', feedback: 5 }],
  ['reject with feedback over 10k', { type: 'panel/reject', stepName: 'a', feedback: 'x'.repeat(MAX_FEEDBACK_CHARS + 1) }],
  ['reject with a bad step', { type: 'panel/reject', stepName: '../x', feedback: 'no' }],
  ['open artifact with object id', { type: 'panel/openArtifact', artifactId: { id: 'a' } }],
  ['open artifact with a path', { type: 'panel/openArtifact', artifactId: '/etc/passwd' }],
  ['select with null step', { type: 'panel/selectStep', stepName: null }],
];

for (const [name, raw] of bad) {
  test(`rejects ${name}`, () => {
    assert.equal(parseFromWebview(raw), null);
  });
}

test('the webview side keeps well-formed extension messages and drops malformed ones', () => {
  const state = { executionId: 'e1', steps: [], timeline: [] };
  assert.equal(parseToWebview({ type: 'panel/init', executionId: 'e1', state })?.type, 'panel/init');
  assert.equal(parseToWebview({ type: 'panel/update', state })?.type, 'panel/update');
  assert.deepEqual(parseToWebview({ type: 'panel/error', message: 'boom' }), { type: 'panel/error', message: 'boom' });
  assert.equal(parseToWebview({ type: 'panel/update', state: { steps: [] } }), null);
  assert.equal(parseToWebview({ type: 'panel/init', state }), null);
  assert.equal(parseToWebview({ type: 'panel/error', message: 1 }), null);
  assert.equal(parseToWebview({ type: 'panel/ready' }), null);
  assert.equal(parseToWebview('panel/update'), null);
});
