// Rule: the engine flags of `baton mcp` / `baton serve` accept only meaningful values and say how to fix the rest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { engineSettings, parseRateLimits } from '../../src/cli/engineOptions.js';

describe('engine flags', () => {
  it('reads on, off and explicit rates', () => {
    assert.deepEqual(parseRateLimits('on', ''), { enabled: true, task: { steady_rps: 0.5, burst_tokens: 3 }, agent: { steady_rps: 2, burst_tokens: 10 } });
    assert.equal(parseRateLimits('off', '')?.enabled, false);
    assert.deepEqual(parseRateLimits('task=1/5', '')?.task, { steady_rps: 1, burst_tokens: 5 });
    assert.deepEqual(parseRateLimits('task=1/5', '')?.agent, { steady_rps: 2, burst_tokens: 10 }, 'the other bucket keeps the spec default');
    assert.deepEqual(parseRateLimits('agent=4/20,task=0.25/2', '')?.agent, { steady_rps: 4, burst_tokens: 20 });
    assert.equal(parseRateLimits(undefined, ''), undefined);
  });

  for (const bad of ['yes', 'task=0/3', 'task=1/0', 'tasks=1/2', 'task=1', 'task=-1/3']) {
    it(`refuses --rate-limits ${bad} naming the accepted forms`, () => {
      assert.throws(() => parseRateLimits(bad, 'USAGE'), (ex: Error & { exitCode?: number }) => {
        assert.match(ex.message, /on, off, or rates like task=0\.5\/3/);
        assert.equal(ex.exitCode, 2);
        return true;
      });
    });
  }

  it('reads --retention-days and --retention-runs as whole numbers ≥ 0, each alone or both', () => {
    assert.equal(engineSettings({}, '').retention, undefined, 'neither given: the default policy');
    assert.deepEqual(engineSettings({ 'retention-days': '7' }, '').retention, { days: 7 });
    assert.deepEqual(engineSettings({ 'retention-runs': '0', 'retention-days': '90' }, '').retention, { days: 90, maxRuns: 0 });
    for (const bad of ['-1', '1.5', 'soon', '', '1e3', '99999999999999999999']) {
      assert.throws(() => engineSettings({ 'retention-runs': bad }, 'USAGE'), (ex: Error & { exitCode?: number }) => {
        assert.equal(ex.message, `--retention-runs must be a whole number ≥ 0 (got "${bad}")\n\nUSAGE`);
        assert.equal(ex.exitCode, 2);
        return true;
      });
    }
  });

  it('converts --token-ttl minutes and refuses non-positive numbers', () => {
    assert.equal(engineSettings({ 'token-ttl': '1.5' }, '').tokenTtlMs, 90_000);
    assert.equal(engineSettings({ 'stall-minutes': '45' }, '').stallMinutes, 45);
    assert.throws(() => engineSettings({ 'token-ttl': '0' }, ''), /--token-ttl must be a positive number/);
    assert.throws(() => engineSettings({ 'stall-minutes': 'soon' }, ''), /--stall-minutes must be a positive number \(got "soon"\)/);
    assert.throws(() => engineSettings({ tools: 'brokers' }, ''), /brokers/);
  });

  it('refuses a --token-ttl past a year (a later expiry is not a date) and tool lists with a typo or no group', () => {
    assert.equal(engineSettings({ 'token-ttl': '525600' }, '').tokenTtlMs, 525_600 * 60_000);
    for (const ttl of ['525601', '1e12', '1e300']) {
      assert.throws(() => engineSettings({ 'token-ttl': ttl }, ''), new RegExp(`--token-ttl must be at most 525600 minutes \\(a year; got "${ttl}"\\)`));
    }
    assert.throws(() => engineSettings({ tools: 'all,bogus' }, ''), /unknown tool group "bogus"/);
    assert.throws(() => engineSettings({ tools: ',' }, ''), /no tool group in ","; valid groups: broker/);
    assert.equal(engineSettings({ tools: 'all,broker' }, '').toolGroups.length, 6);
  });
});
