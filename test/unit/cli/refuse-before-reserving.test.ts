/**
 * Refused before the ledger is touched, with a message naming the limit (through `rap-studio
 * synth`): --threads past 256, --max-steps past 10⁶ (spec.ts), a benchmark domain or `bins` of
 * 4·10⁹ (once a V8 out-of-memory crash), and a column with more than 100,000 distinct texts that
 * discovery would have found only after the reservation.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { budgetedSynthArgs, CLI_TIMEOUT, makeFixture, releasesIn, runCli } from '../../support/cli.ts';

const fx = makeFixture(200);
afterAll(() => fx.cleanup());

/** synthArgs with one flag's value replaced. */
function withFlag(args: string[], flag: string, value: string): string[] {
  const i = args.indexOf(flag);
  return i < 0 ? [...args, flag, value] : args.map((a, j) => (j === i + 1 ? value : a));
}

describe('refused before reserving (CLI)', { timeout: CLI_TIMEOUT }, () => {
  it('--threads past 256 and --max-steps past 10⁶: exit 2, names the limit, ledger untouched', async () => {
    const ledger = fx.ledgerPath();
    const threads = await runCli(withFlag(budgetedSynthArgs(ledger), '--threads', '100000'), fx.dir);
    expect(threads.code).toBe(2);
    expect(threads.stderr).toMatch(/--threads: threads must be an integer from 1 to 256/);
    const steps = await runCli(withFlag(budgetedSynthArgs(ledger), '--max-steps', '100000000'), fx.dir);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toMatch(/--max-steps: max steps must be an integer from 1 to 1000000/);
    expect(releasesIn(ledger)).toEqual([]);
  });

  it('a domain of 4·10⁹ and bins of 4·10⁹: exit 2 at once (no out-of-memory), ledger untouched', async () => {
    const dir = path.join(fx.dir, 'huge-domain');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'data.csv'), 'age,sex\n1,0\n2,1\n');
    writeFileSync(path.join(dir, 'domain.json'), JSON.stringify({ age: 4_000_000_000, sex: 2 }));
    writeFileSync(
      path.join(dir, 'schema.json'),
      JSON.stringify({
        version: 1,
        origin: 'declared',
        columns: [
          { name: 'age', kind: 'numeric', lower: 0, upper: 1, bins: 4_000_000_000 },
          { name: 'sex', kind: 'categorical', categories: ['0', '1'] },
        ],
      }),
    );
    writeFileSync(
      path.join(dir, 'w.json'),
      JSON.stringify({ thresholds: [{ features: ['age', 'sex'], r: 2 }] }),
    );
    const ledger = path.join(dir, 'ledger.sqlite');
    const domain = await runCli(budgetedSynthArgs(ledger), dir);
    expect(domain.code).toBe(2);
    expect(domain.stderr).toMatch(/"age": must be at most 100,000/);
    const schemaArgs = withFlag(budgetedSynthArgs(ledger), '--domain', 'x').filter(
      (a, i, all) => a !== '--domain' && all[i - 1] !== '--domain',
    );
    const bins = await runCli([...schemaArgs, '--schema', 'schema.json'], dir);
    expect(bins.code).toBe(2);
    expect(bins.stderr).toMatch(/\("age"\)\.bins: must be at most 100,000/);
    expect(releasesIn(ledger)).toEqual([]);
  });

  it('a raw column with more than 100,000 distinct texts: refused before reserving, naming the column and the limit', async () => {
    const dir = path.join(fx.dir, 'many-texts');
    mkdirSync(dir, { recursive: true });
    const lines = ['id,group'];
    for (let i = 0; i < 100_050; i++) lines.push(`id-${i},${i % 3 === 0 ? 'a' : 'b'}`);
    writeFileSync(path.join(dir, 'data.csv'), `${lines.join('\n')}\n`);
    writeFileSync(
      path.join(dir, 'w.json'),
      JSON.stringify({ thresholds: [{ features: ['id', 'group'], r: 2 }] }),
    );
    const ledger = path.join(dir, 'ledger.sqlite');
    const args = budgetedSynthArgs(ledger).filter(
      (a, i, all) => a !== '--domain' && all[i - 1] !== '--domain',
    );
    const r = await runCli([...args, '--header', 'yes'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/column "id": more than 100,000 distinct values, not all numbers/);
    expect(r.stderr).toMatch(/Nothing was reserved/);
    expect(releasesIn(ledger)).toEqual([]);
  });
});
