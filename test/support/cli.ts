/**
 * Helpers for CLI integration tests (unit and e2e): run the real `node bin/rap-studio.mjs`, make
 * tiny benchmark-format datasets in a temp dir, find the engine child of a CLI process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { Ledger } from '../../src/core/ledger/ledger.ts';
import { childrenOf, waitFor } from './processes.ts';

/**
 * Per-test limit for tests that spawn CLI processes. Each spawn costs about a second of CPU
 * (tsx + module load); on an idle 2-core machine a test takes a few seconds, but a machine shared
 * with other builds can be many times slower, and a timeout there is not a failure of ours.
 */
export const CLI_TIMEOUT = 240_000;

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(REPO, 'bin/rap-studio.mjs');

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts the CLI; `done` resolves when it exits. */
export function startCli(
  args: readonly string[],
  cwd: string,
): { proc: ChildProcess; done: Promise<CliResult> } {
  const proc = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d) => (stdout += d));
  proc.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) =>
    proc.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { proc, done };
}

export function runCli(args: readonly string[], cwd: string): Promise<CliResult> {
  return startCli(args, cwd).done;
}

/** A temp dir with a tiny integer-coded dataset, its domain and workloads. */
export interface Fixture {
  readonly dir: string;
  readonly rows: number;
  readonly fingerprint: string;
  ledgerPath(): string;
  cleanup(): void;
}

export const DOMAIN = { a: 3, b: 4, c: 2, d: 5 } as const;

/** Deterministic pseudo-random rows (an LCG: test data, not privacy noise). */
function rowsText(n: number): string {
  let x = 12345;
  const next = (m: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % m;
  };
  const lines = [Object.keys(DOMAIN).join(',')];
  for (let i = 0; i < n; i++) lines.push(Object.values(DOMAIN).map(next).join(','));
  return `${lines.join('\n')}\n`;
}

export function makeFixture(n = 200): Fixture {
  const dir = mkdtempSync(path.join(tmpdir(), 'rap-cli-'));
  const data = rowsText(n);
  writeFileSync(path.join(dir, 'data.csv'), data);
  writeFileSync(path.join(dir, 'domain.json'), JSON.stringify(DOMAIN));
  const workload = {
    thresholds: [
      { features: ['a', 'b'], r: 2 },
      { features: ['b', 'c', 'd'], r: 2 },
      { features: ['a', 'd'], r: 1 },
    ],
  };
  writeFileSync(path.join(dir, 'w.json'), JSON.stringify(workload));
  let ledgers = 0;
  return {
    dir,
    rows: n,
    fingerprint: createHash('sha256').update(data).digest('hex'),
    ledgerPath: () => path.join(dir, `ledger-${ledgers++}.sqlite`),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The sizes of a small, quick synth run: 20 rows, oversample 2, at most 20 optimizer steps. */
export const QUICK_RUN: readonly string[] = ['--rows', '20', '--oversample', '2', '--max-steps', '20'];

/**
 * A fixture of `rows` rows (made now, removed after the test file's tests) and a ledger of its own
 * where its dataset has a cap of ε = `capEpsilon` (at δ = 1e-6).
 */
export function cappedFixture(
  rows = 200,
  capEpsilon = 1000,
): { readonly fx: Fixture; readonly ledger: string } {
  const fx = makeFixture(rows);
  afterAll(() => fx.cleanup());
  const ledger = fx.ledgerPath();
  setCap(ledger, fx, capEpsilon);
  return { fx, ledger };
}

let outputs = 0;

/** The output name of the next synthArgs call (a release never replaces an earlier one's file). */
export function nextOutput(): string {
  return `out-${outputs}.csv`;
}

/** The common arguments of a small, quick synth run on the fixture (each its own output files). */
export function synthArgs(ledger: string, extra: readonly string[] = []): string[] {
  const n = outputs++;
  return [
    'synth',
    '--data',
    'data.csv',
    '--domain',
    'domain.json',
    '--workload',
    'w.json',
    '--epsilon',
    '1',
    '--delta',
    '1e-6',
    ...QUICK_RUN,
    '--out',
    `out-${n}.csv`,
    '--report',
    `report-${n}.json`,
    '--ledger',
    ledger,
    ...extra,
  ];
}

/** synthArgs with a budget for the dataset: ε = 10, confirmed (a first release may set it). */
export function budgetedSynthArgs(ledger: string, extra: readonly string[] = []): string[] {
  return synthArgs(ledger, ['--budget-epsilon', '10', '--confirm-cap', ...extra]);
}

/** Arguments of a run that keeps the engine busy (many steps, no early stop) until stopped. */
export function slowSynthArgs(ledger: string): string[] {
  return synthArgs(ledger, [
    '--rounds',
    '3',
    '--per-round',
    '5',
    '--mode',
    'query',
    '--max-steps',
    '1000000',
    '--tolerance',
    '0',
  ]);
}

/** Registers the fixture's dataset with a cap of `capRho` (as ε at δ = 1e-6). */
export function setCap(ledgerPath: string, fx: Fixture, capEpsilon: number): void {
  const ledger = Ledger.open(ledgerPath);
  try {
    ledger.ensureDataset({ fingerprint: fx.fingerprint, name: 'data.csv', rows: fx.rows });
    ledger.setCap(fx.fingerprint, capEpsilon, 1e-6);
  } finally {
    ledger.close();
  }
}

export function withLedger<T>(ledgerPath: string, fn: (l: Ledger) => T): T {
  const ledger = Ledger.open(ledgerPath);
  try {
    return fn(ledger);
  } finally {
    ledger.close();
  }
}

/** The releases a ledger file holds (its anchor not checked); none where no ledger file was made. */
export function releasesIn(ledgerPath: string): ReturnType<Ledger['releases']> {
  if (!existsSync(ledgerPath)) return [];
  const ledger = Ledger.open(ledgerPath, { anchorFile: null });
  try {
    return ledger.releases();
  } finally {
    ledger.close();
  }
}

/** The engine child of a CLI process, once it has been forked. */
export function engineChildOf(cliPid: number): Promise<number> {
  return waitFor('the engine child process', () => childrenOf(cliPid, 'engine/process/child.ts')[0]);
}
