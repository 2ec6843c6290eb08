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

  for (const bad of ['yes', 'task=0/3', 'task=1/0', 'tasks=1/2', 'task=1', 'task=-1/3', 'task=1.2.3/3', `task=${'9'.repeat(400)}/3`, `task=1/${'9'.repeat(20)}`]) {
    it(`refuses --rate-limits ${bad.slice(0, 30)} naming the accepted forms`, () => {
      assert.throws(() => parseRateLimits(bad, 'USAGE'), (ex: Error & { exitCode?: number }) => {
        assert.match(ex.message, /on, off, or rates like task=0\.5\/3/);
        assert.equal(ex.exitCode, 2);
        return true;
      });
    });
  }

  it('reads --retention-days and --retention-runs as whole numbers >= 0, each alone or both', () => {
    assert.equal(engineSettings({}, '').retention, undefined, 'neither given: the default policy');
    assert.deepEqual(engineSettings({ 'retention-days': '7' }, '').retention, { days: 7 });
    assert.deepEqual(engineSettings({ 'retention-runs': '0', 'retention-days': '90' }, '').retention, { days: 90, maxRuns: 0 });
    for (const bad of ['-1', '1.5', 'soon', '', '1e3', '0x10', ' 12 ', '12\n', 'Infinity', '99999999999999999999']) {
      assert.throws(() => engineSettings({ 'retention-runs': bad }, 'USAGE'), (ex: Error & { exitCode?: number }) => {
        assert.equal(ex.message, `--retention-runs must be a whole number of runs, 0 or more, e.g. --retention-runs 1000 or --retention-runs 0 (got "${bad}")\n\nUSAGE`);
        assert.equal(ex.exitCode, 2);
        return true;
      });
    }
  });

  it('converts --token-ttl minutes, fractions too, and reads --stall-minutes', () => {
    assert.equal(engineSettings({ 'token-ttl': '1.5' }, '').tokenTtlMs, 90_000);
    assert.equal(engineSettings({ 'token-ttl': '1' }, '').tokenTtlMs, 60_000);
    assert.equal(engineSettings({ 'token-ttl': '525600' }, '').tokenTtlMs, 525_600 * 60_000);
    assert.equal(engineSettings({ 'stall-minutes': '45' }, '').stallMinutes, 45);
    assert.equal(engineSettings({ 'stall-minutes': '2.5' }, '').stallMinutes, 2.5);
  });

  // Number() read all of these as numbers: 0x10 as 16, 1e3 as 1000, ' 12 ' as 12; a year is the longest (a later
  // expiry is not a date), a minute the shortest (a token that expires in seconds is no setting).
  for (const [flag, example] of [['token-ttl', '--token-ttl 10 or --token-ttl 1.5'], ['stall-minutes', '--stall-minutes 30']] as const) {
    it(`refuses a --${flag} that is not decimal minutes from 1 to a year, naming a good value`, () => {
      for (const bad of ['0x10', '1e3', ' 12 ', '12 ', 'Infinity', '-5', '0', '0.5', '', '.', '1.2.3', '5m', '525601', '1e12', '9'.repeat(400)]) {
        assert.throws(() => engineSettings({ [flag]: bad }, 'USAGE'), (ex: Error & { exitCode?: number }) => {
          assert.equal(ex.message, `--${flag} must be a number of minutes from 1 to 525600 (a year), e.g. ${example} (got "${bad}")\n\nUSAGE`);
          assert.equal(ex.exitCode, 2);
          return true;
        }, `--${flag} ${JSON.stringify(bad)}`);
      }
    });
  }

  it('refuses tool lists with a typo or no group', () => {
    assert.throws(() => engineSettings({ tools: 'brokers' }, ''), /brokers/);
    assert.throws(() => engineSettings({ tools: 'all,bogus' }, ''), /unknown tool group "bogus"/);
    assert.throws(() => engineSettings({ tools: ',' }, ''), /no tool group in ","; valid groups: broker/);
    assert.equal(engineSettings({ tools: 'all,broker' }, '').toolGroups.length, 6);
  });
});
