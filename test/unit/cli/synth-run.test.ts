/**
 * `rap-studio synth` end to end with the real engine in its own process: reproducible seeded
 * runs, the report and the ledger record, outputs that cannot be written, and every way a run
 * can be stopped (Ctrl-C, the CLI killed, the engine killed) leaving no process behind and the
 * spend counted.
 */

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLI_TIMEOUT,
  cappedFixture,
  engineChildOf,
  runCli,
  slowSynthArgs,
  startCli,
  synthArgs,
  withLedger,
} from '../../support/cli.ts';
import { isAlive, waitFor } from '../../support/processes.ts';

const INSECURE =
  'insecure-seed: this run is NOT differentially private-grade randomness; for tests/benchmarks only';
const onLinux = process.platform === 'linux'; // the engine child is found through /proc

const { fx, ledger } = cappedFixture();

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const read = (name: string) => readFileSync(path.join(fx.dir, name));
const out = (name: string) => ['--out', `${name}.csv`, '--report', `${name}.json`];

describe('synth runs', { timeout: CLI_TIMEOUT }, () => {
  it('--insecure-seed --seed 1 twice: identical bytes, warned, recorded as insecure-seed', async () => {
    const seeded = ['--seed', '1', '--insecure-seed'];
    const [a, b] = await Promise.all([
      runCli(synthArgs(ledger, [...seeded, ...out('seed-a')]), fx.dir),
      runCli(synthArgs(ledger, [...seeded, ...out('seed-b')]), fx.dir),
    ]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect(a.stderr.split('\n')).toContain(INSECURE);
    expect(read('seed-a.csv').equals(read('seed-b.csv'))).toBe(true);
    const report = JSON.parse(read('seed-a.json').toString());
    expect(report.seedMode).toBe('insecure-seed');
    withLedger(ledger, (l) => expect(l.release(report.releaseId)?.seedMode).toBe('insecure-seed'));
  });

  it('without a seed two runs differ; committed with the output hash; evaluate agrees', async () => {
    const [a, b] = await Promise.all([
      runCli(synthArgs(ledger, out('free-a')), fx.dir),
      runCli(synthArgs(ledger, out('free-b')), fx.dir),
    ]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect(a.stderr).not.toContain('insecure-seed');
    expect(read('free-a.csv').equals(read('free-b.csv'))).toBe(false);

    const csv = read('free-a.csv').toString().split('\r\n');
    expect(csv[0]).toBe('a,b,c,d'); // the input's header
    expect(csv.filter((l) => l !== '').length).toBe(1 + 20 * 2); // n' × oversample rows

    const report = JSON.parse(read('free-a.json').toString());
    for (const key of [
      'presentError',
      'roundedPresentError',
      'meanError',
      'all0Error',
      'gmError',
      'numQueries',
    ]) {
      expect(typeof report[key], key).toBe('number');
    }
    expect(report).toMatchObject({ seedMode: 'secure', epsilon: 1, delta: 1e-6, rows: 20, oversample: 2 });
    expect(report.nonPrivateDiagnostics).toMatch(/non-private diagnostics/);
    expect(report.output.sha256).toBe(sha256(path.join(fx.dir, 'free-a.csv')));
    withLedger(ledger, (l) => {
      const release = l.release(report.releaseId);
      expect(release).toMatchObject({ status: 'committed', outputSha256: report.output.sha256 });
      // The ledger holds the plan made before the run: in table mode T₀, the round bound (the
      // report's `rounds` counts the rounds the budget paid for).
      const planned = report.mode === 'table' ? report.tableMode.roundBound : report.rounds;
      expect(release?.params).toMatchObject({ rounds: planned, perRound: report.perRound, rows: 20 });
    });

    // evaluate on the released CSV reproduces the report's rounded errors, marked non-private.
    const evaluation = await runCli(
      [
        'evaluate',
        '--data',
        'data.csv',
        '--synthetic',
        'free-a.csv',
        '--domain',
        'domain.json',
        '--workload',
        'w.json',
        '--json',
      ],
      fx.dir,
    );
    expect(evaluation.code, evaluation.stderr).toBe(0);
    const e = JSON.parse(evaluation.stdout);
    expect(e.nonPrivate).toBe(true);
    expect(e.numQueries).toBe(report.numQueries);
    expect(e.maxError).toBeCloseTo(report.roundedPresentError, 12);
    expect(e.meanError).toBeCloseTo(report.roundedMeanError, 12);
    expect(e.perThreshold.map((t: { maxError: number }) => t.maxError)).toEqual(
      report.perThresholdError.map((x: number) => expect.closeTo(x, 12)),
    );
  });

  it('a declared schema: output header in the input order, values inside the declared domain', async () => {
    // Input columns in another order than the schema, plus a column the schema leaves out.
    const schema = {
      version: 1,
      origin: 'declared',
      columns: [
        { name: 'age', kind: 'numeric', lower: 0, upper: 100, bins: 4, integer: true },
        { name: 'color', kind: 'categorical', categories: ['red', 'green', 'blue'], missing: true },
      ],
    };
    const colors = ['red', 'green', 'blue', '?'];
    const lines = [
      'id,color,age',
      ...Array.from({ length: 80 }, (_, i) => `${i},${colors[i % 4]},${(i * 37) % 101}`),
    ];
    writeFileSync(path.join(fx.dir, 'people-in.csv'), `${lines.join('\n')}\n`);
    writeFileSync(path.join(fx.dir, 'people.schema.json'), JSON.stringify(schema));
    writeFileSync(
      path.join(fx.dir, 'people.w.json'),
      JSON.stringify({ thresholds: [{ features: ['color', 'age'], r: 1 }] }),
    );
    const args = synthArgs(ledger, ['--budget-epsilon', '100', '--confirm-cap', ...out('people')]).map((a) =>
      a === 'data.csv' ? 'people-in.csv' : a === 'w.json' ? 'people.w.json' : a,
    );
    args.splice(args.indexOf('--domain'), 2, '--schema', 'people.schema.json');
    const r = await runCli(args, fx.dir);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = read('people.csv').toString().split('\r\n').filter(Boolean);
    expect(header).toBe('color,age');
    expect(rows.length).toBe(40);
    for (const row of rows) {
      const [color, age] = row.split(',');
      expect(colors).toContain(color);
      expect(Number.isInteger(Number(age)) && Number(age) >= 0 && Number(age) <= 100).toBe(true);
    }
    withLedger(ledger, (l) => expect(l.dataset(sha256(path.join(fx.dir, 'people-in.csv')))?.rows).toBe(80));
  });

  it('an output in a missing folder: exit 2, named, refused before reserving', async () => {
    const before = withLedger(ledger, (l) => l.releases().length);
    const r = await runCli(
      synthArgs(ledger, ['--out', 'missing-dir/out.csv', '--report', 'nowrite.json']),
      fx.dir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/synthetic CSV .*missing-dir.*does not exist.*Nothing was reserved/);
    withLedger(ledger, (l) => expect(l.releases().length).toBe(before));
    expect(existsSync(path.join(fx.dir, 'nowrite.json'))).toBe(false);
  });
});

describe.runIf(onLinux)('stopping a run', { timeout: CLI_TIMEOUT }, () => {
  /** Starts a never-ending run and waits for its engine child (so the budget is reserved). */
  async function startSlow(name: string) {
    const cli = startCli([...slowSynthArgs(ledger), ...out(name)], fx.dir);
    const engine = await engineChildOf(cli.proc.pid!);
    return { cli, engine };
  }

  it('Ctrl-C (SIGINT) cancels: the engine child is gone, exit 1, release aborted and counted', async () => {
    const { cli, engine } = await startSlow('sigint');
    await new Promise((r) => setTimeout(r, 1000)); // let the engine get going
    cli.proc.kill('SIGINT');
    const r = await cli.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /the run was cancelled: release (\S+) was marked aborted; its privacy spend stays counted/,
    );
    expect(isAlive(engine)).toBe(false); // the CLI exits only after its engine has
    const id = /reserved release (\S+)/.exec(r.stderr)![1];
    withLedger(ledger, (l) => {
      expect(l.release(id)).toMatchObject({ status: 'aborted', abortReason: 'cancelled' });
    });
    expect(existsSync(path.join(fx.dir, 'sigint.csv'))).toBe(false);
  });

  it('the CLI killed with SIGKILL after reserving: the row stays reserved and counted, no orphan', async () => {
    const before = withLedger(ledger, (l) => l.totals(fx.fingerprint).spentRho);
    const { cli, engine } = await startSlow('sigkill');
    cli.proc.kill('SIGKILL');
    const r = await cli.done;
    expect(r.signal).toBe('SIGKILL');
    const id = /reserved release (\S+)/.exec(r.stderr)![1];
    // The engine notices its parent is gone (IPC disconnect) and exits by itself.
    await waitFor('the orphaned engine to exit', () => (isAlive(engine) ? undefined : true), 20_000);
    withLedger(ledger, (l) => {
      const release = l.release(id)!;
      expect(release.status).toBe('reserved');
      expect(l.totals(fx.fingerprint).spentRho).toBeGreaterThanOrEqual(before + release.rho);
    });
  });

  it('the engine killed from outside: the CLI reports it, exit 1, release aborted', async () => {
    const { cli, engine } = await startSlow('enginekill');
    process.kill(engine, 'SIGKILL');
    const r = await cli.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the engine process ended unexpectedly \(killed with SIGKILL/);
    const id = /reserved release (\S+)/.exec(r.stderr)![1];
    withLedger(ledger, (l) => {
      expect(l.release(id)).toMatchObject({
        status: 'aborted',
        abortReason: 'engine process ended unexpectedly (signal SIGKILL)',
      });
      expect(l.verify().ok).toBe(true);
    });
  });
});
