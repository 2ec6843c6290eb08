// Rule: an unknown field's message suggests the known name it most likely misspells, and only one that is close
// and not tied.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closestName, didYouMean } from '../../src/core/suggest.js';

const TEAM = ['name', 'context', 'agents', 'setup', 'kickoff'];
const NEXT = ['template_name', 'task_description', 'step_token', 'model_output_so_far', 'task_id', 'request', 'source', 'evidence'];

test('closestName: table of misspellings', () => {
  const table: Array<[string, readonly string[], string | undefined]> = [
    ['kickof', TEAM, 'kickoff'],
    ['kikcoff', TEAM, 'kickoff'], // two neighbours swapped
    ['Kickoff', TEAM, 'kickoff'],
    ['agent', TEAM, 'agents'],
    ['step-token', NEXT, 'step_token'],
    ['stepToken', NEXT, 'step_token'],
    ['step_tokn', NEXT, 'step_token'],
    ['templateName', NEXT, 'template_name'],
    ['model_output', NEXT, undefined], // too far
    ['xyz', TEAM, undefined],
    ['nme', TEAM, 'name'],
    ['nam', ['name', 'nap'], undefined], // tied
    ['', TEAM, undefined],
  ];
  for (const [name, known, want] of table) assert.equal(closestName(name, known), want, name);
});

test('didYouMean: the phrase, or nothing', () => {
  assert.equal(didYouMean('kickof', TEAM), " (did you mean 'kickoff'?)");
  assert.equal(didYouMean('zzzzzz', TEAM), '');
});
