/**
 * CSV fuzz: 500 seeded mutations of a valid file (byte flips and rewrites, truncations,
 * inserted quotes, delimiters, line breaks, NULs, BOMs and invalid UTF-8, deleted and
 * duplicated ranges). The loader must resolve with a consistent result or reject with an
 * InputError: never another error, never an unhandled one (the worker would die), never a hang
 * (5 CPU seconds per case, enforced from outside the thread that loads, so even a synchronous loop
 * is caught; a CPU bound, so a busy machine that stretches the wall time cannot fail a case).
 *
 * Reproduce a failure: FUZZ_SEED=<seed> npx vitest run --project unit test/unit/fuzz (FUZZ_VERBOSE=1
 * prints how many cases resolved and how many were refused); the failing
 * case's bytes are kept under test-results/fuzz/.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FuzzJob, FuzzMessage } from './csv-fuzz.worker.ts';
import { validCsv } from './csv-mutations.ts';

const CASES = 500;
/** CPU seconds a case may use (a valid load of the base file takes milliseconds). */
const PER_CASE_CPU_S = 5;
/** CPU seconds the worker may use to start (tsx compiling the loader's modules). */
const START_CPU_S = 60;
/** How often the CPU bound is checked (a sampling period, not a bound). */
const CHECK_EVERY_MS = 100;

/** CPU seconds this process has used (all threads: the loading worker's, and this idle one's). */
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_121);
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const KEEP = join(REPO, 'test-results', 'fuzz');

interface Finding {
  readonly index: number;
  readonly ops: readonly string[];
  readonly problem: string;
}

interface Report {
  readonly outcomes: Record<string, number>;
  readonly findings: Finding[];
}

/**
 * Runs the cases in a worker thread (under tsx, like the CLI). A case that uses PER_CASE_CPU_S
 * without an answer is a hang, and so is a worker that stops without finishing: the worker is
 * terminated and the case reported. (One that waits forever without using CPU is left to the
 * test's timeout.)
 */
function runCases(job: FuzzJob): Promise<Report> {
  const url = new URL('./csv-fuzz.worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url)}); });`;
  const worker = new Worker(boot, { eval: true, workerData: job });
  const outcomes: Record<string, number> = {};
  const findings: Finding[] = [];
  const ops = new Map<number, readonly string[]>();
  let current: number | undefined;
  let done = false;
  let since = cpuSeconds();
  let allowed = START_CPU_S;
  return new Promise<Report>((resolve, reject) => {
    const check = setInterval(() => {
      const used = cpuSeconds() - since;
      if (used <= allowed) return;
      const index = current ?? -1;
      finish({
        index,
        ops: ops.get(index) ?? [],
        problem: `no answer after ${used.toFixed(1)} CPU seconds (hang)`,
      });
    }, CHECK_EVERY_MS);
    const finish = (extra?: Finding) => {
      if (done) return;
      done = true;
      clearInterval(check);
      if (extra) findings.push(extra);
      void worker.terminate();
      resolve({ outcomes, findings });
    };
    // The first bound covers the worker's start (tsx and the loader's modules).
    const arm = (cpu: number) => {
      since = cpuSeconds();
      allowed = cpu;
    };
    worker.on('message', (m: FuzzMessage) => {
      if (m.type === 'start') {
        current = m.index;
        ops.set(m.index, m.ops);
        arm(PER_CASE_CPU_S);
      } else if (m.type === 'done') {
        outcomes[m.outcome] = (outcomes[m.outcome] ?? 0) + 1;
        if (m.outcome === 'inconsistent' || m.outcome === 'other-error')
          findings.push({
            index: m.index,
            ops: ops.get(m.index) ?? [],
            problem: `${m.outcome}: ${m.detail}`,
          });
        arm(PER_CASE_CPU_S);
      } else finish();
    });
    worker.on('error', (err) =>
      finish({ index: current ?? -1, ops: ops.get(current ?? -1) ?? [], problem: `unhandled: ${err.stack}` }),
    );
    worker.on('exit', (code) => {
      if (done) return;
      if (code !== 0) {
        done = true;
        clearInterval(check);
        reject(new Error(`fuzz worker exited with ${code}`));
      } else {
        const index = current ?? -1;
        finish({ index, ops: ops.get(index) ?? [], problem: 'the worker stopped without an answer (hang)' });
      }
    });
  });
}

describe('loadCsv under 500 mutations of a valid CSV', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rap-fuzz-'));
    writeFileSync(join(dir, 'valid.csv'), validCsv());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`never throws anything but InputError, never hangs (seed ${SEED})`, { timeout: 600_000 }, async () => {
    const report = await runCases({ seed: SEED, cases: CASES, first: 0, dir, base: validCsv() });
    if (report.findings.length > 0) {
      mkdirSync(KEEP, { recursive: true });
      for (const f of report.findings) {
        if (f.index >= 0)
          copyFileSync(join(dir, `case-${f.index}.csv`), join(KEEP, `seed-${SEED}-case-${f.index}.csv`));
      }
    }
    expect(
      report.findings.map((f) => `case ${f.index} (seed ${SEED}; ${f.ops.join(', ')}): ${f.problem}`),
    ).toEqual([]);
    if (process.env.FUZZ_VERBOSE) console.log(report.outcomes);
    const total = Object.values(report.outcomes).reduce((a, b) => a + b, 0);
    expect(total).toBe(CASES);
    // The mutations must exercise both paths, or the test proves little.
    expect(report.outcomes.ok ?? 0).toBeGreaterThan(25);
    expect(report.outcomes['input-error'] ?? 0).toBeGreaterThan(25);
  });
});
