// Runs in-host checks in order, each recorded by name (detail or error) in the file named by BATON_INHOST_RESULTS;
// throws if any failed, which makes the extension host's exit code 1. Plain CommonJS, shared by the in-host suites.
const { writeFileSync } = require('node:fs');

/** Runs `checks` ([name, async (ctx) => detail][]) with one shared context object. */
async function runChecks(checks) {
  const ctx = {};
  const results = [];
  for (const [name, fn] of checks) {
    try {
      results.push({ name, ok: true, detail: await fn(ctx) });
    } catch (err) {
      results.push({ name, ok: false, error: String(err && err.stack ? err.stack : err) });
    }
  }
  if (process.env.BATON_INHOST_RESULTS) writeFileSync(process.env.BATON_INHOST_RESULTS, JSON.stringify(results, null, 2));
  const failed = results.filter((r) => !r.ok);
  if (failed.length) throw new Error(`${failed.length} in-host check(s) failed: ${failed.map((f) => f.name).join('; ')}`);
}

module.exports = { runChecks };
