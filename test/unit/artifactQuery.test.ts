// Rule: every workflow-artifacts:// form of the spec parses to one ArtifactQuery with a clamped limit (an execution's
// `#artifact_id` to that one artifact); anything else is invalid_input listing the valid forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArtifactsUri } from '../../src/core/broker/artifactQuery.js';
import type { ArtifactQuery } from '../../src/core/api.js';
import { BatonError } from '../../src/core/errors.js';

const ok: Array<[string, ArtifactQuery]> = [
  ['workflow-artifacts://recent', { type: 'recent', limit: 50 }],
  ['workflow-artifacts://recent?limit=50', { type: 'recent', limit: 50 }],
  ['workflow-artifacts://recent?limit=7', { type: 'recent', limit: 7 }],
  ['workflow_artifacts://recent?limit=50', { type: 'recent', limit: 50 }],
  ['workflow-artifacts://type/design_doc', { type: 'by_type', artifact_type: 'design_doc', limit: 100 }],
  ['workflow_artifacts://type/design_doc?limit=100', { type: 'by_type', artifact_type: 'design_doc', limit: 100 }],
  ['workflow-artifacts://type/code_review?limit=3', { type: 'by_type', artifact_type: 'code_review', limit: 3 }],
  ['workflow-artifacts://final', { type: 'final', limit: 50 }],
  ['workflow-artifacts://final?limit=20', { type: 'final', limit: 20 }],
  ['workflow-artifacts://final/a1b2c3d4', { type: 'execution', execution_id: 'a1b2c3d4', is_final: true, limit: 50 }],
  ['workflow-artifacts://a1b2c3d4', { type: 'execution', execution_id: 'a1b2c3d4', limit: 50 }],
  ['workflow-artifacts://a1b2c3d4/', { type: 'execution', execution_id: 'a1b2c3d4', limit: 50 }],
  ['workflow-artifacts://a1b2c3d4?final=true', { type: 'execution', execution_id: 'a1b2c3d4', is_final: true, limit: 50 }],
  ['workflow-artifacts://a1b2c3d4?final=false', { type: 'execution', execution_id: 'a1b2c3d4', limit: 50 }],
  ['workflow-artifacts://a1b2c3d4?final=true&limit=5', { type: 'execution', execution_id: 'a1b2c3d4', is_final: true, limit: 5 }],
  ['workflow-artifacts://task%20one', { type: 'execution', execution_id: 'task one', limit: 50 }],
  ['WORKFLOW-ARTIFACTS://recent', { type: 'recent', limit: 50 }],
  // `#artifact_id` after an execution reads that one artifact (the uri of an inline artifact cut to a budget)
  ['workflow-artifacts://a1b2c3d4#01a2-b3', { type: 'execution', execution_id: 'a1b2c3d4', artifact_id: '01a2-b3', limit: 1 }],
  ['workflow-artifacts://final/a1b2c3d4#x', { type: 'execution', execution_id: 'a1b2c3d4', is_final: true, artifact_id: 'x', limit: 1 }],
  ['workflow-artifacts://a1b2c3d4#', { type: 'execution', execution_id: 'a1b2c3d4', limit: 50 }],
  ['workflow-artifacts://recent#x', { type: 'recent', limit: 50 }],
  // clamping
  ['workflow-artifacts://recent?limit=0', { type: 'recent', limit: 1 }],
  ['workflow-artifacts://recent?limit=-5', { type: 'recent', limit: 1 }],
  ['workflow-artifacts://recent?limit=500', { type: 'recent', limit: 500 }],
  ['workflow-artifacts://type/adr?limit=100000', { type: 'by_type', artifact_type: 'adr', limit: 500 }],
];

for (const [uri, expected] of ok) {
  test(`parses ${uri}`, () => {
    assert.deepEqual(parseArtifactsUri(uri), expected);
  });
}

const bad: Array<[string, RegExp]> = [
  ['workflow-artifacts://', /no query/],
  ['workflow-artifacts://recent?limit=abc', /limit 'abc'/],
  ['workflow-artifacts://recent?limit=1.5', /limit/],
  ['workflow-artifacts://recent?limit=', /limit/],
  ['workflow-artifacts://recent?limit=5&limit=6', /twice/],
  ['workflow-artifacts://recent?final=true', /unknown parameter 'final'/],
  ['workflow-artifacts://recent?sort=asc', /unknown parameter 'sort'/],
  ['workflow-artifacts://recent/extra', /not a known form/],
  ['workflow-artifacts://type', /artifact type/],
  ['workflow-artifacts://type/adr/extra', /too many/],
  ['workflow-artifacts://final/a/b', /too many/],
  ['workflow-artifacts://abc?final=yes', /final must be/],
  ['workflow-artifacts://%E0%A4%A', /percent-encoding/],
  ['current-step://abc', /must start with workflow-artifacts/],
];

for (const [uri, why] of bad) {
  test(`rejects ${uri}`, () => {
    assert.throws(() => parseArtifactsUri(uri), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'invalid_input'), String(ex));
      assert.match(ex.message, why);
      assert.match(ex.message, /Valid forms: workflow-artifacts:\/\/recent\?limit=50, .*workflow-artifacts:\/\/\{execution_id\}\?final=true/);
      return true;
    });
  });
}
