// Rule: each form of a step result a client may forward to its model (the structured JSON and the text) stays within
// the 4 KB budget on every step of the bundled workflows, with the contract, context and dependency artifacts inline;
// artifacts are cut to what is left (never mid-character, escapes counted) and point at their full text. Baton's own
// text in them (the bundled content and the words Baton adds) stays within Latin-1, so that V8 keeps a result one byte
// per character: a single em dash made every string built from it two-byte (twice the memory, and a transcoding copy
// on every write of it).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fitStepResult, fittingPrefix, jsonLength } from '../../src/core/broker/stepResult.js';
import { knownJsonSize } from '../../src/core/jsonSize.js';
import { resultText } from '../../src/core/broker/stepText.js';
import type { ModelOutput, NextStepResponse } from '../../src/core/types.js';
import { bundledContentDir } from '../../src/host/openBaton.js';
import { makeBaton, output } from '../helpers/coreHarness.js';

const BUDGET = 4096;
/** `s` cut to the longest prefix that takes at most `n` bytes inside a JSON string, with the bytes it takes checked. */
const truncateJson = (s: string, n: number) => {
  const [length, used] = fittingPrefix(s, n);
  const cut = s.slice(0, length);
  assert.equal(used, jsonLength(cut), `the bytes counted for ${JSON.stringify(cut)}`);
  return cut;
};
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** A large artifact full of what JSON escapes: newlines, quotes, backslashes, a tab, and multi-byte characters. */
function bigOutput(step: string) {
  const content = `# ${step}\n\n${'A "quoted" line\twith a path C:\\src\\app.ts, an accent é and an emoji 🙂.\n'.repeat(400)}`;
  return output(`Did ${step}.`, `${step} notes`, { artifacts: [{ type: 'markdown', title: `${step} notes`, content }, { type: 'design_doc', title: `${step} design`, content }] });
}

/** Runs `workflow` to the end with `outputOf` each step (gates approved), returning every ok result. */
async function everyStep(workflow: string, outputOf: (step: string) => ModelOutput = bigOutput): Promise<NextStepResponse[]> {
  const { baton } = await makeBaton();
  const seen: NextStepResponse[] = [];
  let r = await baton.nextStep({ template_name: workflow, task_description: 'The login page returns 500 once the session cookie has expired; reproduce it with the e2e login test and fix it.' });
  for (let i = 0; i < 20; i++) {
    if (r.status === 'awaiting_approval') {
      await baton.decide({ execution_id: r.execution_id!, decision: 'approve' });
      r = await baton.nextStep({ step_token: r.new_step_token! });
      continue;
    }
    if (r.status !== 'ok') break;
    seen.push(r);
    r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: outputOf(r.next_step_contract!.step_name) });
  }
  assert.equal(r.status, 'task_closed');
  return seen;
}

describe('step result size', () => {
  for (const workflow of ['bug-fix', 'feature-implementation', 'security-audit']) {
    it(`${workflow}: the JSON and the text of every step are each at most 4096 bytes, artifacts inline`, async () => {
      const results = await everyStep(workflow);
      assert.ok(results.length >= 4);
      for (const r of results) {
        const step = r.next_step_contract!.step_name;
        const json = bytes(JSON.stringify(r));
        const text = bytes(resultText(r));
        if (r.context!.dependency_artifacts.length) assert.equal(knownJsonSize(r), json, `${step}: the size fitting worked out`);
        assert.ok(json <= BUDGET, `${step}: structured form is ${json} bytes`);
        assert.ok(text <= BUDGET, `${step}: text form is ${text} bytes`);
        // The structured form no longer repeats the contract as markdown.
        assert.ok(bytes(r.human_message!) < 250, `${step}: human_message is ${bytes(r.human_message!)} bytes`);
        const ctx = r.context!;
        for (const a of ctx.dependency_artifacts) {
          assert.equal(a.truncated, true, `${step}: a 30 KB artifact is cut`);
          assert.ok(a.content.length > 0 && resultText(r).includes(a.content), `${step}: the text carries the same cut artifact`);
          assert.ok(!/[\ud800-\udbff]$/.test(a.content), 'never cut inside a surrogate pair');
        }
        const withDeps = workflow !== 'bug-fix' || step !== 'analyze-root-cause';
        if (ctx.dependency_artifacts.length) assert.deepEqual(ctx.more, [`workflow-artifacts://${r.execution_id}`]);
        else assert.ok(!withDeps || results.indexOf(r) === 0, `${step} depends on earlier steps and shows some of their artifacts`);
      }
    });
  }

  /** The first character of `s` past Latin-1 (what V8 keeps one byte per character), with where it is. */
  const wideChar = (s: string) => {
    const i = s.search(/[^\u0000-\u00ff]/);
    return i < 0 ? null : `${JSON.stringify(s[i])} in "${s.slice(Math.max(0, i - 40), i + 10)}"`;
  };

  it('the bundled agents, rules and workflows (what step results are made of) have no character past Latin-1', () => {
    const files = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
    const all = ['agents', 'rules', 'workflows'].flatMap((d) => files(join(bundledContentDir(), d)));
    assert.ok(all.length > 10);
    for (const f of all) assert.equal(wideChar(readFileSync(f, 'utf8')), null, f);
  });

  for (const workflow of ['bug-fix', 'feature-implementation', 'security-audit']) {
    it(`${workflow}: with the agent's output in Latin-1, both forms of every step result are Latin-1`, async () => {
      const results = await everyStep(workflow, (step) => output(`Did ${step}.`, `${step} notes`));
      for (const r of results) {
        assert.equal(wideChar(JSON.stringify(r)), null, `${r.next_step_contract!.step_name}: structured form`);
        assert.equal(wideChar(resultText(r)), null, `${r.next_step_contract!.step_name}: text form`);
      }
    });
  }

  it('a long task description or reviewer feedback is cut to keep both forms within the budget, saying where it is whole', async () => {
    const { baton } = await makeBaton();
    const task = 'Le parseur plante 😀 на пустом вводе 日本語. '.repeat(150); // ~10 KB of UTF-8
    const results: NextStepResponse[] = [];
    let r = await baton.nextStep({ template_name: 'bug-fix', task_description: task });
    let rejected = false;
    for (let i = 0; i < 20 && r.status !== 'task_closed'; i++) {
      if (r.status === 'awaiting_approval') {
        // The first time, a reviewer pastes a long log as feedback: the step runs again with it.
        await baton.decide({ execution_id: r.execution_id!, decision: rejected ? 'approve' : 'reject', feedback: rejected ? undefined : `Still failing:\n${'at parse (src/parser.ts:42) 🙁\n'.repeat(300)}` });
        rejected = true;
        r = await baton.nextStep({ step_token: r.new_step_token! });
        continue;
      }
      assert.equal(r.status, 'ok', JSON.stringify(r).slice(0, 300));
      results.push(r);
      r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: bigOutput(r.next_step_contract!.step_name) });
    }
    assert.equal(r.status, 'task_closed');
    const withFeedback = results.filter((x) => x.context!.feedback);
    assert.equal(withFeedback.length, 1, 'the rejected step ran again with the feedback');
    for (const x of results) {
      const step = x.next_step_contract!.step_name;
      const json = bytes(JSON.stringify(x));
      const text = bytes(resultText(x));
      assert.ok(json <= BUDGET && text <= BUDGET, `${step}: ${json} / ${text} bytes`);
      if (x.context!.dependency_artifacts.length || x.context!.more.length) assert.equal(knownJsonSize(x) ?? json, json, `${step}: the size fitting worked out`);
      const ctx = x.context!;
      assert.match(ctx.task_description, new RegExp(`^Le parseur plante .* \\.\\.\\. \\[cut at \\d+ of ${bytes(task.trim())} bytes; the whole text: task_description in workflow-status://${x.execution_id}\\]$`, 's'));
      assert.ok(bytes(ctx.task_description) >= 200, `${step}: some of the task stays inline`);
      assert.ok(resultText(x).includes(ctx.task_description), 'the text carries the same cut task');
      assert.doesNotMatch(JSON.stringify(x), /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|\ufffd/i, 'never cut inside a character');
      if (ctx.feedback) assert.match(ctx.feedback, new RegExp(`\\[cut at \\d+ of \\d+ bytes; the whole text: feedback in current-step://${x.execution_id}\\]$`));
    }
    // What the pointers promise: the whole task is there.
    assert.equal(baton.workflowStatus(results[0]!.execution_id).task_description?.trim(), task.trim());
  });

  it('a short artifact goes inline whole, with nothing left to point at', async () => {
    const { baton } = await makeBaton();
    const first = await baton.nextStep({ template_name: 'bug-fix' });
    const r = await baton.nextStep({ step_token: first.new_step_token!, model_output_so_far: output('root cause', 'Root cause', { artifacts: [{ type: 'markdown', title: 'Root cause', content: 'The cookie parser throws on expiry.' }] }) });
    assert.deepEqual(r.context!.dependency_artifacts.map((a) => [a.content, a.truncated]), [['The cookie parser throws on expiry.', false]]);
    assert.deepEqual(r.context!.more, []);
    assert.ok(resultText(r).includes('The cookie parser throws on expiry.'));
    assert.equal(knownJsonSize(r), bytes(JSON.stringify(r)));
  });

  it('the size the fitting works out is the size of the JSON, whatever the artifacts (counts, escapes, characters, cuts)', async () => {
    const { baton } = await makeBaton();
    const first = await baton.nextStep({ template_name: 'bug-fix' });
    const base = await baton.nextStep({ step_token: first.new_step_token!, model_output_so_far: output('root cause') });
    const pieces = ['plain words ', 'a "quote" ', 'back\\slash ', 'tab\t', 'line\n', 'é', '🙂', '\u0001', '\ud800', 'x'.repeat(300)];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 200; round++) {
      const heads = Array.from({ length: 1 + rand(4) }, (_, i) => {
        const content = Array.from({ length: rand(40) }, () => pieces[rand(pieces.length)]).join('');
        // Some arrive cut already (artifactHeads): their full size is larger than their content.
        return { artifact_id: `a${i}`, step_name: 's', type: 'markdown', title: rand(3) ? `T${i} "é"` : undefined, content, content_size_bytes: bytes(content) + (rand(4) ? 0 : 50) };
      });
      const r = JSON.parse(JSON.stringify(base)) as NextStepResponse;
      fitStepResult(r, heads as never, rand(2) ? BUDGET : 1200 + rand(2000));
      assert.equal(knownJsonSize(r), bytes(JSON.stringify(r)), `round ${round}: ${JSON.stringify(heads).slice(0, 200)}`);
    }
  });

  it('fittingPrefix counts escapes and multi-byte characters, never splits a character, and says the bytes it took', () => {
    assert.equal(truncateJson('abc', 10), 'abc');
    assert.equal(truncateJson('a"b"c', 4), 'a"b');
    assert.equal(jsonLength('a"b'), 4);
    assert.equal(truncateJson('\n\n\n', 3), '\n');
    assert.equal(truncateJson('é🙂x', 5), 'é');
    assert.equal(truncateJson('é🙂x', 6), 'é🙂');
    assert.equal(truncateJson('anything', 0), '');
    // A lone surrogate is written as \\ud800: 6 bytes.
    assert.equal(truncateJson('ab\ud800cd', 7), 'ab');
    assert.equal(truncateJson('ab\ud800cd', 8), 'ab\ud800');
    const sample = 'line "one"\n\tpath C:\\x é🙂 end\u0001';
    for (let n = 0; n < 60; n++) {
      const cut = truncateJson(sample, n);
      assert.ok(sample.startsWith(cut) && jsonLength(cut) <= n, `${n}: ${JSON.stringify(cut)}`);
      // As long as the budget allows: one more character would not fit.
      const longer = sample.slice(0, cut.length + (/[\ud800-\udbff]/.test(sample[cut.length] ?? '') ? 2 : 1));
      assert.ok(cut === sample || jsonLength(longer) > n, `${n}: ${JSON.stringify(cut)} could be longer`);
    }
  });
});
