/**
 * Through the front door (issue 26, item 10): a re-saved copy of a released file — one blank line
 * added, so other bytes — does not get a fresh budget. `synth` refuses it (exit 2, nothing
 * reserved) until the curator says which budget it spends; `--name <known dataset>` spends that one.
 */
import { appendFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, cappedFixture, runCli, synthArgs, withLedger } from '../../support/cli.ts';

// The fixture's dataset, capped at ε = 2 in its own ledger.
const { fx, ledger } = cappedFixture(120, 2);

const withData = (args: string[], file: string) => args.map((a) => (a === 'data.csv' ? file : a));

describe('a re-saved copy of a released file', { timeout: CLI_TIMEOUT }, () => {
  it('is refused until named; named after the dataset it spends that budget', async () => {
    const first = await runCli(synthArgs(ledger), fx.dir);
    expect(first.code, first.stderr).toBe(0);

    const copy = path.join(fx.dir, 'data-resaved.csv');
    copyFileSync(path.join(fx.dir, 'data.csv'), copy);
    appendFileSync(copy, '\n');
    const refused = await runCli(withData(synthArgs(ledger), 'data-resaved.csv'), fx.dir);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/same column names and a similar number of records as "data\.csv"/);
    expect(refused.stderr).toMatch(/--name "data\.csv"/);
    withLedger(ledger, (l) => {
      expect(l.datasets()).toHaveLength(1);
      expect(l.releases()).toHaveLength(1);
    });

    const named = await runCli(
      [...withData(synthArgs(ledger), 'data-resaved.csv'), '--name', 'data.csv'],
      fx.dir,
    );
    expect(named.code, named.stderr).toBe(0);
    withLedger(ledger, (l) => {
      expect(l.datasets()).toHaveLength(1);
      const releases = l.releases();
      expect(releases).toHaveLength(2);
      expect(new Set(releases.map((r) => r.datasetFingerprint))).toEqual(new Set([fx.fingerprint]));
      expect(l.totals(fx.fingerprint).releases).toBe(2);
    });
  });
});
