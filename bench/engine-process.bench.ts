/**
 * The engine process layer's timings: start-up (fork → first progress), cancel latency
 * (cancel() → child exited; the requirement is < 2 s), and the same through the CLI (SIGINT →
 * `rap-studio synth` exited, release aborted in the ledger).
 *
 *   npx tsx bench/engine-process.bench.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EncodedDataset } from '../src/core/data/schema.ts';
import { defaultOptions } from '../src/core/engine/defaults.ts';
import { startEngine } from '../src/core/engine/process/client.ts';
import type { EngineRequest } from '../src/core/engine/process/protocol.ts';
import { Ledger } from '../src/core/ledger/ledger.ts';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const REPEATS = 5;

function dataset(n: number, sizes: readonly number[]): EncodedDataset {
  let x = 7;
  const next = (m: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % m;
  };
  return {
    schema: {
      version: 1,
      origin: 'declared',
      columns: sizes.map((s, j) => ({
        name: `f${j}`,
        kind: 'categorical' as const,
        categories: Array.from({ length: s }, (_, v) => String(v)),
        missing: false,
      })),
    },
    n,
    codes: sizes.map((s) => Uint8Array.from({ length: n }, () => next(s))),
  };
}

function request(maxSteps: number): EngineRequest {
  return {
    data: dataset(2000, [3, 4, 2, 5, 6]),
    workload: {
      thresholds: [
        { features: [0, 1], r: 2, weight: 1 },
        { features: [1, 2, 3], r: 2, weight: 1 },
        { features: [2, 4], r: 1, weight: 1 },
      ],
    },
    options: defaultOptions({
      epsilon: 1,
      delta: 1e-6,
      rows: 200,
      rounds: 3,
      perRound: 5,
      maxSteps,
      tolerance: 0,
    }),
    noise: { mode: 'secure' },
  };
}

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[Math.floor(s.length / 2)].toFixed(0)} ms, max ${s[s.length - 1].toFixed(0)} ms (n=${s.length})`;
}

async function startupAndCancel(): Promise<void> {
  const startup: number[] = [];
  const cancel: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    let first: () => void = () => {};
    const progressed = new Promise<void>((r) => (first = r));
    const engine = startEngine(request(1_000_000), { onProgress: () => first() });
    await progressed;
    startup.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 300));
    const t1 = performance.now();
    engine.cancel();
    await engine.result.catch(() => {});
    cancel.push(performance.now() - t1);
  }
  console.log(`engine start-up (fork → first progress): ${stats(startup)}`);
  console.log(`cancel() → child exited:                 ${stats(cancel)}`);
}

async function cliSigint(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rap-bench-'));
  try {
    const rows = ['a,b,c,d', ...Array.from({ length: 500 }, (_, i) => `${i % 3},${i % 4},${i % 2},${i % 5}`)];
    writeFileSync(path.join(dir, 'data.csv'), `${rows.join('\n')}\n`);
    writeFileSync(path.join(dir, 'domain.json'), JSON.stringify({ a: 3, b: 4, c: 2, d: 5 }));
    writeFileSync(
      path.join(dir, 'w.json'),
      JSON.stringify({ thresholds: [{ features: ['a', 'b', 'd'], r: 2 }] }),
    );
    const ledger = path.join(dir, 'ledger.sqlite');
    const latencies: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const args = [
        'bin/rap-studio.mjs',
        'synth',
        '--data',
        path.join(dir, 'data.csv'),
        '--domain',
        path.join(dir, 'domain.json'),
      ];
      args.push(
        '--workload',
        path.join(dir, 'w.json'),
        '--epsilon',
        '0.1',
        '--delta',
        '1e-6',
        '--rows',
        '200',
      );
      args.push(
        '--rounds',
        '2',
        '--per-round',
        '3',
        '--max-steps',
        '1000000',
        '--tolerance',
        '0',
        '--budget-epsilon',
        '100',
      );
      args.push('--out', path.join(dir, 'o.csv'), '--report', path.join(dir, 'r.json'), '--ledger', ledger);
      const cli = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
      const exited = new Promise<number | null>((r) => cli.on('close', r));
      // Wait until the release is reserved, then give the engine a moment to start.
      await new Promise<void>((resolve) =>
        cli.stderr.on('data', (d) => String(d).includes('reserved release') && resolve()),
      );
      await new Promise((r) => setTimeout(r, 1500));
      const t0 = performance.now();
      cli.kill('SIGINT');
      const code = await exited;
      latencies.push(performance.now() - t0);
      if (code !== 1) console.log(`unexpected exit code ${code}`);
    }
    const l = Ledger.open(ledger);
    const statuses = l.releases().map((r) => r.status);
    l.close();
    console.log(
      `CLI SIGINT → exited (release aborted):   ${stats(latencies)}; ledger: ${statuses.join(', ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await startupAndCancel();
await cliSigint();
