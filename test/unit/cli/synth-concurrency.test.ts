/**
 * The ledger gate under real concurrency: 20 `rap-studio synth` processes started at once
 * against a cap that admits exactly 5 runs. Exactly 5 are reserved (and here committed), the
 * other 15 are refused with exit 3 and leave nothing behind.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { epsilonFromRho, rhoFromEpsilon } from '../../../src/core/privacy/accounting.ts';
import { CLI_TIMEOUT, cappedFixture, runCli, synthArgs, withLedger } from '../../support/cli.ts';

const RUNS = 20;
const ADMITTED = 5;

// Every run asks ε = 1 at δ = 1e-6 (synthArgs); the cap holds 5.5 of them.
const perRun = rhoFromEpsilon(1, 1e-6);
const { fx, ledger } = cappedFixture(60, epsilonFromRho((ADMITTED + 0.5) * perRun, 1e-6));

describe('20 concurrent synth runs, a cap for 5', { timeout: CLI_TIMEOUT }, () => {
  it('exactly 5 run and 15 are refused with exit 3', async () => {
    const results = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        runCli(
          synthArgs(ledger, [
            '--rows',
            '5',
            '--max-steps',
            '5',
            '--out',
            `c${i}.csv`,
            '--report',
            `c${i}.json`,
          ]),
          fx.dir,
        ),
      ),
    );
    const codes = results.map((r) => r.code);
    expect(codes.filter((c) => c === 0).length, results.map((r) => r.stderr).join('\n')).toBe(ADMITTED);
    expect(
      codes.filter((c) => c === 3).length,
      results
        .filter((r) => r.code !== 0 && r.code !== 3)
        .map((r) => `exit ${r.code}: ${r.stderr}`)
        .join('\n'),
    ).toBe(RUNS - ADMITTED);
    results.forEach((r, i) => {
      // A refused run wrote nothing; an admitted one wrote its output.
      expect(existsSync(path.join(fx.dir, `c${i}.csv`))).toBe(r.code === 0);
      if (r.code === 3) expect(r.stderr).toMatch(/remaining/);
    });
    withLedger(ledger, (l) => {
      const releases = l.releases({ fingerprint: fx.fingerprint });
      expect(releases.length).toBe(ADMITTED);
      expect(releases.every((r) => r.status === 'committed')).toBe(true);
      expect(l.totals(fx.fingerprint).spentRho).toBeCloseTo(ADMITTED * perRun, 12);
      expect(l.verify().ok).toBe(true);
    });
  });
});
