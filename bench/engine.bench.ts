/**
 * KERNEL MICRO-BENCHMARK (the engine called directly, not a release): engine timing and checks on
 * ADULT (benchmark format). Release figures come from `npm run bench` (the release pipeline).
 *
 *   npx tsx bench/engine.bench.ts                     # acceptance suite (see ACCEPTANCE below)
 *   npx tsx bench/engine.bench.ts --eps 1 --k 3 --r 3 --size 64 --seeds 1,2,3 [--T 10 --K 50]
 *       [--lr 0.01] [--steps 500] [--tol 1e-3] [--batch 4096] [--mode query|table]
 *       [--backend cpu|wasm] [--workload-seed 0] [--json]
 *   npx tsx bench/engine.bench.ts --step-timing       # ms per Adam step, 1,024 selected 3-way queries
 *
 * Prints one line per run (JSON with --json). Exits 1 if an acceptance check fails.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadBenchmark } from '../src/core/data/benchmark.ts';
import { layoutOf } from '../src/core/data/onehot.ts';
import type { EncodedDataset } from '../src/core/data/schema.ts';
import { defaultOptions } from '../src/core/engine/defaults.ts';
import { adamHyper } from '../src/core/engine/kernels/adam.ts';
import { loadKernels } from '../src/core/engine/kernels/backend.ts';
import { runRap } from '../src/core/engine/rap.ts';
import { uniformRelaxed } from '../src/core/engine/relaxed.ts';
import type { BackendName, RapOptions, RapReport } from '../src/core/engine/types.ts';
import { defaultDelta } from '../src/core/privacy/accounting.ts';
import { seededNoise } from '../src/core/privacy/noise.ts';
import { randomWorkload } from '../src/core/workload/random.ts';
import type { Workload } from '../src/core/workload/types.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const adultDir = path.resolve(root, '../shared/datasets/adult');

const { values: args } = parseArgs({
  options: {
    eps: { type: 'string' },
    k: { type: 'string', default: '3' },
    r: { type: 'string' },
    size: { type: 'string', default: '64' },
    seeds: { type: 'string', default: '1,2,3' },
    T: { type: 'string' },
    K: { type: 'string' },
    lr: { type: 'string' },
    steps: { type: 'string' },
    tol: { type: 'string' },
    batch: { type: 'string' },
    mode: { type: 'string' },
    selection: { type: 'string' },
    backend: { type: 'string' },
    'workload-seed': { type: 'string', default: '0' },
    'step-timing': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});

async function loadAdult(): Promise<EncodedDataset> {
  const csv = path.join(adultDir, 'adult.csv');
  if (!existsSync(csv)) throw new Error(`ADULT not found at ${csv}`);
  return (await loadBenchmark(csv, path.join(adultDir, 'adult-domain.json'))).dataset;
}

interface Case {
  readonly epsilon: number;
  readonly k: number;
  readonly r: number;
  readonly size: number;
  readonly seed: number;
}

function workloadFor(data: EncodedDataset, c: Case): Workload {
  return randomWorkload({
    numFeatures: data.schema.columns.length,
    k: c.k,
    r: c.r,
    size: c.size,
    seed: Number(args['workload-seed']) + c.seed,
  });
}

function optionsFor(data: EncodedDataset, c: Case): RapOptions {
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const o: Partial<RapOptions> = {};
  const set = <K extends keyof RapOptions>(key: K, v: RapOptions[K] | undefined) => {
    if (v !== undefined) (o as Record<string, unknown>)[key] = v;
  };
  set('rounds', num(args.T));
  set('perRound', num(args.K));
  set('learningRate', num(args.lr));
  set('maxSteps', num(args.steps));
  set('tolerance', num(args.tol));
  set('batchSize', num(args.batch));
  set('mode', args.mode as RapOptions['mode'] | undefined);
  set('selection', args.selection as RapOptions['selection'] | undefined);
  set('backend', args.backend as BackendName | undefined);
  return defaultOptions({ epsilon: c.epsilon, delta: defaultDelta(data.n), ...o });
}

async function runCase(data: EncodedDataset, c: Case): Promise<RapReport> {
  const workload = workloadFor(data, c);
  const { report } = await runRap({
    data,
    workload,
    options: optionsFor(data, c),
    noise: seededNoise(c.seed),
  });
  const line = {
    eps: c.epsilon,
    workload: `${c.r}-of-${c.k} x${c.size}`,
    seed: c.seed,
    m: report.numQueries,
    T: report.rounds,
    K: report.perRound,
    present: +report.presentError.toFixed(4),
    rounded: +report.roundedPresentError.toFixed(4),
    mean: +report.meanError.toExponential(2),
    all0: +report.all0Error.toFixed(4),
    gm: +report.gmError.toFixed(3),
    sec: +report.secondsTotal.toFixed(1),
    selSec: +report.secondsSelection.toFixed(1),
    projSec: +report.secondsProjection.toFixed(1),
    steps: report.projectionSteps,
    msPerStep: +(report.msPerStep as number).toFixed(2),
  };
  console.log(
    args.json
      ? JSON.stringify(line)
      : Object.entries(line)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
  );
  return report;
}

/** ms per optimizer step (loss + gradient + Adam + sparsemax), n' = 1000, 1,024 random 3-way queries. */
async function stepTiming(data: EncodedDataset): Promise<void> {
  const layout = layoutOf(data.schema);
  const noise = seededNoise(7);
  const rows = 1000;
  const K = 1024;
  const columns = new Int32Array(K * 3);
  for (let q = 0; q < K; q++) {
    const feats = new Set<number>();
    while (feats.size < 3) feats.add(Math.floor(noise.uniform() * layout.sizes.length));
    [...feats]
      .sort((a, b) => a - b)
      .forEach((f, j) => {
        columns[q * 3 + j] = layout.offsets[f] + Math.floor(noise.uniform() * layout.sizes[f]);
      });
  }
  const group = {
    k: 3,
    r: 3,
    count: K,
    columns,
    weights: new Float64Array(K).fill(1),
    targets: new Float64Array(K).fill(0.01),
  };
  const kernels = await loadKernels((args.backend as BackendName | undefined) ?? 'cpu');
  const shape = { rows, layout };
  const session = kernels.open(shape, uniformRelaxed(shape, noise));
  session.project();
  const hyper = adamHyper(0.02, rows);
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const phases = { gradient: 0, adam: 0, sparsemax: 0 };
  const steps = 100;
  const wall0 = performance.now();
  for (let s = 0; s < steps; s++) {
    let t = cpuMs();
    session.lossAndGradient({ groups: [group], tables: [] });
    phases.gradient += cpuMs() - t;
    t = cpuMs();
    session.adamStep(hyper);
    phases.adam += cpuMs() - t;
    t = cpuMs();
    session.project();
    phases.sparsemax += cpuMs() - t;
  }
  const wall = (performance.now() - wall0) / steps;
  const per = (x: number) => (x / steps).toFixed(2);
  console.log(
    `backend=${kernels.backend} ms/step wall=${wall.toFixed(2)} cpu: gradient=${per(phases.gradient)} ` +
      `adam=${per(phases.adam)} sparsemax=${per(phases.sparsemax)}`,
  );
  session.dispose();
}

async function main(): Promise<void> {
  const data = await loadAdult();
  if (args['step-timing']) return stepTiming(data);
  const seeds = args.seeds.split(',').map(Number);
  if (args.eps !== undefined) {
    for (const seed of seeds) {
      const k = Number(args.k);
      await runCase(data, {
        epsilon: Number(args.eps),
        k,
        r: Number(args.r ?? k),
        size: Number(args.size),
        seed,
      });
    }
    return;
  }
  let failed = 0;
  const check = (ok: boolean, what: string) => {
    if (!ok) {
      failed++;
      console.log(`FAIL: ${what}`);
    }
  };
  // ACCEPTANCE: 64 random 3-way marginals at ε = 0.1 and 1 (3 seeds), then 1-of-4 and 2-of-4 ×16.
  const suites: { k: number; r: number; size: number }[] = [
    { k: 3, r: 3, size: 64 },
    { k: 4, r: 1, size: 16 },
    { k: 4, r: 2, size: 16 },
  ];
  for (const w of suites) {
    const worst: Record<number, number> = {};
    for (const epsilon of [0.1, 1]) {
      worst[epsilon] = 0;
      for (const seed of seeds) {
        const rep = await runCase(data, { epsilon, ...w, seed });
        const tag = `${w.r}-of-${w.k} ε=${epsilon} seed=${seed}`;
        check(
          rep.presentError < rep.all0Error,
          `${tag}: presentError ${rep.presentError} >= all0Error ${rep.all0Error}`,
        );
        check(
          rep.presentError < rep.gmError,
          `${tag}: presentError ${rep.presentError} >= gmError ${rep.gmError}`,
        );
        check(rep.secondsTotal < 600, `${tag}: took ${rep.secondsTotal} s`);
        worst[epsilon] = Math.max(worst[epsilon], rep.presentError);
      }
    }
    check(
      worst[1] < worst[0.1],
      `${w.r}-of-${w.k}: ε=1 worst error ${worst[1]} is not below ε=0.1's ${worst[0.1]}`,
    );
  }
  console.log(failed === 0 ? 'ACCEPTANCE: all checks passed' : `ACCEPTANCE: ${failed} check(s) failed`);
  if (failed > 0) process.exitCode = 1;
}

await main();
