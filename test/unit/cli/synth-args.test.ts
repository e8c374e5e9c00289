/**
 * `rap-studio synth` refuses bad input (exit 2) and runs the ledger refuses (exit 3) before
 * anything is reserved or any private value is read.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_TIMEOUT,
  type Fixture,
  makeFixture,
  nextOutput,
  runCli,
  setCap,
  synthArgs,
  withLedger,
} from '../../support/cli.ts';
import { runCliInProcess } from '../../support/cli-in-process.ts';

let fx: Fixture;
beforeAll(() => {
  fx = makeFixture();
  writeFileSync(
    path.join(fx.dir, 'w-r.json'),
    JSON.stringify({ thresholds: [{ features: ['a', 'b'], r: 3 }] }),
  );
  writeFileSync(
    path.join(fx.dir, 'w-zip.json'),
    JSON.stringify({ thresholds: [{ features: ['a', 'zip'], r: 1 }] }),
  );
});
afterAll(() => fx.cleanup());

/** synthArgs with one flag's value replaced. */
function withFlag(ledger: string, flag: string, value: string): string[] {
  const args = synthArgs(ledger);
  const i = args.indexOf(flag);
  if (i === -1) return [...args, flag, value];
  args.splice(i, 2, `${flag}=${value}`); // `=` so that "-1" is not read as an option
  return args;
}

const USAGE_ERRORS: [string, string, string, string][] = [
  ['ε = 0', '--epsilon', '0', '--epsilon: ε must be a finite number > 0, got "0"'],
  ['ε = −1', '--epsilon', '-1', '--epsilon: ε must be a finite number > 0, got "-1"'],
  ['ε = abc', '--epsilon', 'abc', '--epsilon: ε must be a finite number > 0, got "abc"'],
  ['δ = 1', '--delta', '1', '--delta: δ must be a number with 0 < δ < 1, got "1"'],
  ['rows = 0', '--rows', '0', '--rows: n\' (synthetic rows) must be an integer >= 1, got "0"'],
  [
    'r > k in the workload',
    '--workload',
    'w-r.json',
    'w-r.json: thresholds[0].r: r = 3 is outside 1..2 (k = 2 is the number of features listed)',
  ],
  [
    'a workload naming a missing feature',
    '--workload',
    'w-zip.json',
    'w-zip.json: thresholds[0].features[1]: unknown feature "zip"; valid features include "a", "b", "c", "d"',
  ],
  [
    '--selection best',
    '--selection',
    'best',
    '--selection: selection must be one of one-shot, adaptive, got "best"',
  ],
  [
    '--selection in table mode',
    '--selection',
    'adaptive',
    '--selection: selection adaptive chooses how query mode selects queries: choose mode query (table mode, the default, selects whole tables), or leave selection out',
  ],
  [
    '--relaxation relu',
    '--relaxation',
    'relu',
    '--relaxation: relaxation must be one of sparsemax, softmax, got "relu"',
  ],
  [
    '--importance often',
    '--importance',
    'often',
    '--importance: importance must be one of none, history, got "often"',
  ],
  [
    '--history without --importance history',
    '--history',
    'w.json',
    '--history <file> gives the historical workload for --importance history; add --importance history',
  ],
  [
    '--eval-workload that does not exist',
    '--eval-workload',
    'future.json',
    'future.json: cannot read the workload file (no such file).',
  ],
  [
    '--eval-workload naming a missing feature',
    '--eval-workload',
    'w-zip.json',
    'w-zip.json: thresholds[0].features[1]: unknown feature "zip"; valid features include "a", "b", "c", "d"',
  ],
  [
    '--certify 1',
    '--certify',
    '1',
    '--certify: ζ (the relative margin) must be a number with 0 < x < 1, got "1"',
  ],
  [
    '--certify-share without --certify',
    '--certify-share',
    '0.2',
    "--certify-share: the relative-error pass's share goes with ζ: give ζ too, or leave it out",
  ],
  [
    '--seed without --insecure-seed',
    '--seed',
    '1',
    '--seed makes the run reproducible, which is not private-grade randomness: add --insecure-seed ' +
      '(tests and benchmarks only), or leave --seed out',
  ],
];

/** Cases also run as a separate process (the rest run through the same main() in-process, to save time). */
const SPAWNED = new Set(['ε = 0', 'a workload naming a missing feature', '--relaxation relu']);

/** The CLI's main() in this process, cwd = the fixture. */
const runInProcess = (args: string[]) => runCliInProcess(fx.dir, args);

/**
 * Exit code, the one stderr line, and no ledger file created: the arguments are refused before
 * the ledger is opened.
 */
describe('synth usage errors: exit 2, one-line message, no ledger touched', { timeout: CLI_TIMEOUT }, () => {
  it.each(USAGE_ERRORS)('%s', async (name, flag, value, message) => {
    const ledger = fx.ledgerPath();
    const out = nextOutput();
    const args = withFlag(ledger, flag, value);
    const r = SPAWNED.has(name) ? await runCli(args, fx.dir) : await runInProcess(args);
    expect(r.stderr).toBe(`rap-studio: ${message}\n`);
    expect(r.code).toBe(2);
    expect(existsSync(ledger)).toBe(false);
    expect(existsSync(path.join(fx.dir, out))).toBe(false);
  });
});

describe('synth budget refusals: exit 3, nothing reserved', { timeout: CLI_TIMEOUT }, () => {
  it('refuses a dataset without a cap', async () => {
    const ledger = fx.ledgerPath();
    const r = await runCli(synthArgs(ledger, ['--out', 'nocap.csv']), fx.dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/has no privacy budget cap.*remaining budget is ε=0/);
    withLedger(ledger, (l) => {
      expect(l.releases()).toEqual([]);
      expect(l.dataset(fx.fingerprint)?.rows).toBe(fx.rows); // registered, with n counted
    });
    expect(existsSync(path.join(fx.dir, 'nocap.csv'))).toBe(false);
  });

  it('refuses a run the remaining budget cannot pay for, naming what remains', async () => {
    const ledger = fx.ledgerPath();
    setCap(ledger, fx, 0.5);
    const r = await runCli(synthArgs(ledger, ['--out', 'over.csv']), fx.dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^rap-studio: .*remaining/m);
    withLedger(ledger, (l) => {
      expect(l.releases()).toEqual([]);
      expect(l.totals(fx.fingerprint).spentRho).toBe(0);
    });
  });

  it('--budget-epsilon sets the cap of a new dataset; a cap too small still refuses', async () => {
    const ledger = fx.ledgerPath();
    const r = await runCli(
      synthArgs(ledger, ['--budget-epsilon', '0.5', '--confirm-cap', '--out', 'cap.csv']),
      fx.dir,
    );
    expect(r.code).toBe(3);
    withLedger(ledger, (l) => {
      expect(l.dataset(fx.fingerprint)?.cap).toMatchObject({ epsilon: 0.5, delta: 1e-6 });
      expect(l.releases()).toEqual([]);
    });
  });
});
