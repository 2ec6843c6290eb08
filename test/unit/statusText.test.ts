// Rule: `baton status` with nothing to show says why: no unfinished execution points at --all, which lists the rest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderStatus } from '../../src/cli/statusCommand.js';

test('an empty listing of unfinished executions points at --all; an empty --all listing says there are none', () => {
  assert.equal(renderStatus([], '', true), 'No unfinished executions (baton status --all lists the finished ones too).');
  assert.equal(renderStatus([], '', false), 'No executions.');
});
