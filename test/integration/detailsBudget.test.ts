// Rule: get_execution_details({ includeArtifacts: true }) carries at most DETAILS_ARTIFACTS_BUDGET_BYTES of artifacts,
// their metadata and content, the newest contents first: every listed artifact has its metadata and size, and a
// content cut or left out says so (truncated: true, and the workflow-artifacts://EXECUTION#ARTIFACT_ID URI that reads
// that one artifact whole, base64 included, however many artifacts the run has). A cut keeps whole base64 quanta and whole
// characters; a run whose artifacts fit gets the answer it always got. Real core on a sql.js file, real MCP client.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DETAILS_ARTIFACTS_BUDGET_BYTES } from '../../src/core/lifecycle/records.js';
import { openLifecycle, type LifecycleRig } from '../helpers/lifecycleHarness.js';

const BUDGET = DETAILS_ARTIFACTS_BUDGET_BYTES;

interface Listed {
  id: string;
  name: string;
  encoding: string;
  content: string;
  sizeBytes: number;
  truncated?: boolean;
  uri?: string;
}

describe('get_execution_details: the artifact content budget', () => {
  let rig: LifecycleRig;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-budget-'));
    rig = await openLifecycle({ dbPath: join(dir, 'baton.db') });
  });
  after(async () => {
    await rig.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async () => (await rig.ok('start_execution', { workflowName: 'bug-fix' })).id as string;
  const store = async (executionId: string, name: string, contentType: string, content: string) =>
    (await rig.ok('store_artifact', { executionId, name, contentType, content })).id as string;
  /** The artifact a `workflow-artifacts://` URI reads. */
  const readUri = async (uri: string) => {
    const res = await rig.client.readResource({ uri });
    const body = JSON.parse((res.contents[0] as { text: string }).text) as { artifacts: Array<{ artifact_id: string; content: string; type: string }>; total: number };
    assert.equal(body.total, 1, `${uri} reads one artifact`);
    return body.artifacts[0]!;
  };

  it('keeps an answer with three 1 MB artifacts within the budget, lists them all, and reads each whole at its uri', async () => {
    const id = await start();
    const bytes = Buffer.from(Array.from({ length: 1024 * 1024 }, (_, i) => (i * 31 + 7) % 256));
    const texts = ['a'.repeat(1024 * 1024), `${'b'.repeat(100)}${'é'.repeat(600_000)}`];
    const ids = [
      await store(id, 'one.txt', 'text', texts[0]!), await store(id, 'two.md', 'markdown', texts[1]!),
      await store(id, 'three.bin', 'binary', bytes.toString('base64')), await store(id, 'tail.txt', 'text', 'abc'),
    ];
    const r = await rig.call('get_execution_details', { executionId: id, includeArtifacts: true });
    assert.equal(r.isError, false, r.text);
    const listed = r.sc.artifacts as Listed[];
    assert.deepEqual(listed.map((a) => a.id), ids, 'every artifact listed, in the order stored');
    assert.deepEqual(listed.map((a) => a.sizeBytes), [1024 * 1024, Buffer.byteLength(texts[1]!), 1024 * 1024, 3], 'each with its whole size');
    const answer = Buffer.byteLength(JSON.stringify(r.sc));
    assert.ok(answer <= BUDGET + 4096, `answer ${answer} bytes`);
    const artifactsBytes = Buffer.byteLength(JSON.stringify(listed));
    assert.ok(artifactsBytes <= BUDGET, `artifacts, metadata and content, within the budget: ${artifactsBytes}`);
    // Newest first: the tail whole, then the binary takes what the metadata leaves of the budget (less the room a
    // whole artifact's metadata was charged for a uri it does not carry), cut on a base64 quantum (4 characters); the
    // two older ones are left out.
    const [one, two, three, tail] = listed;
    assert.deepEqual([tail!.content, tail!.truncated, tail!.uri], ['abc', undefined, undefined]);
    assert.equal(three!.content.length % 4, 0);
    assert.ok(artifactsBytes > BUDGET - 256, `the budget is used: ${artifactsBytes}`);
    assert.ok(bytes.toString('base64').startsWith(three!.content));
    assert.deepEqual(Buffer.from(three!.content, 'base64'), bytes.subarray(0, (three!.content.length / 4) * 3));
    assert.deepEqual([one!.content, two!.content], ['', '']);
    for (const a of [one, two, three] as Listed[]) {
      assert.equal(a.truncated, true, a.name);
      assert.equal(a.uri, `workflow-artifacts://${id}#${a.id}`);
    }
    assert.match(r.text, /3 of 4 listed artifacts cut or left out to fit the 256 KB artifacts budget; each has truncated: true and a uri that reads it whole\./);
    assert.deepEqual(Buffer.from((await readUri(three!.uri!)).content, 'base64'), bytes, 'the base64 artifact whole');
    assert.equal((await readUri(one!.uri!)).content, texts[0]);
    assert.equal((await readUri(two!.uri!)).content, texts[1]);
  });

  it('inlines the newest whole while the budget lasts and cuts the next on a character boundary, never inside a pair', async () => {
    const id = await start();
    // 3 UTF-16 units per character, 2 of them a surrogate pair: an odd budget would split one if cut by length.
    const emoji = 'x😀'.repeat(BUDGET);
    const small = 'small "quoted" text\n';
    const [oldest, , newest] = [await store(id, 'emoji.txt', 'text', emoji), await store(id, 'empty.txt', 'text', ''), await store(id, 'small.txt', 'text', small)];
    const listed = (await rig.ok('get_execution_details', { executionId: id, includeArtifacts: true })).artifacts as Listed[];
    const byId = new Map(listed.map((a) => [a.id, a]));
    assert.equal(byId.get(newest)!.content, small);
    assert.equal(byId.get(newest)!.truncated, undefined, 'a whole content is not marked');
    assert.equal(listed[1]!.truncated, undefined, 'nor an empty one');
    const cut = byId.get(oldest)!;
    assert.equal(cut.truncated, true);
    assert.ok(emoji.startsWith(cut.content) && cut.content.length > 0);
    assert.ok(!/[\ud800-\udbff]$/.test(cut.content), 'no lone high surrogate at the end');
    const artifactsBytes = Buffer.byteLength(JSON.stringify(listed));
    assert.ok(artifactsBytes <= BUDGET, `within the budget, metadata included: ${artifactsBytes}`);
    // Short of it by less than a character and the uri room the two whole artifacts' metadata was charged for.
    assert.ok(artifactsBytes > BUDGET - 256, `the budget is used: ${artifactsBytes}`);
  });

  it('answers a run whose artifacts fit exactly as before: whole contents, no truncated or uri fields', async () => {
    const id = await start();
    const contents = ['# Report\nAll good ✓', '{"ok":true}', 'AAEC/w=='];
    const ids = [await store(id, 'a.md', 'markdown', contents[0]!), await store(id, 'b.json', 'json', contents[1]!), await store(id, 'c.bin', 'binary', contents[2]!)];
    const d = await rig.ok('get_execution_details', { executionId: id, includeArtifacts: true });
    assert.deepEqual(d.artifacts.map((a: Listed) => [a.id, a.content, a.sizeBytes]), ids.map((a, i) => [a, contents[i], i === 2 ? 4 : Buffer.byteLength(contents[i]!)]));
    assert.deepEqual(Object.keys(d.artifacts[0]).sort(), [
      'content', 'contentType', 'createdAt', 'encoding', 'executionId', 'id', 'isFinal', 'metadata', 'mimeType', 'name', 'sizeBytes', 'stepId', 'stepName',
    ]);
    assert.equal((await rig.call('get_execution_details', { executionId: id, includeArtifacts: true })).text, `Execution ${id} (bug-fix) is pending with 0 steps.`);
  });

  it('reads a cut artifact at its uri when the run has more artifacts than workflow-artifacts:// lists at once', async () => {
    const id = await start();
    for (let i = 0; i < 55; i++) await store(id, `note-${i}.txt`, 'text', `note ${i}`);
    const big = 'z'.repeat(BUDGET + 10);
    const bigId = await store(id, 'big.txt', 'text', big);
    const listed = (await rig.ok('get_execution_details', { executionId: id, includeArtifacts: true })).artifacts as Listed[];
    assert.equal(listed.length, 56);
    const cut = listed.at(-1)!;
    assert.equal(cut.id, bigId);
    assert.equal(cut.truncated, true);
    assert.equal((await readUri(cut.uri!)).content, big);
    // The budget went to the newest: the small older ones are listed but left out, not cut to stubs.
    assert.ok(listed.slice(0, 55).every((a) => a.truncated === true && a.content === '' && a.sizeBytes > 0), JSON.stringify(listed[0]));
  });

  it('refuses an artifact uri naming no artifact of that execution, saying where the artifacts are listed', async () => {
    const id = await start();
    await assert.rejects(rig.client.readResource({ uri: `workflow-artifacts://${id}#no-such-artifact` }),
      /No artifact "no-such-artifact" in execution .*; an execution's artifacts are listed by workflow-artifacts:\/\/\{execution_id\} and get_execution_details/);
  });

  it('describes the budget (and store_artifact where a stored artifact reads whole) and lists truncated and uri in the output schema', async () => {
    const t = (await rig.client.listTools()).tools.find((x) => x.name === 'get_execution_details')!;
    assert.match(t.description ?? '', /at most 256 KB of artifacts, metadata and content, contents newest first: a content cut or left out has truncated: true/);
    const items = (t.outputSchema!.properties!.artifacts as { items: { properties: Record<string, unknown> } }).items;
    assert.ok(items.properties.truncated && items.properties.uri, JSON.stringify(items));
    const storeTool = (await rig.client.listTools()).tools.find((x) => x.name === 'store_artifact')!;
    assert.match(storeTool.description ?? '', /or whole at workflow-artifacts:\/\/EXECUTION#ARTIFACT_ID/);
  });
});
