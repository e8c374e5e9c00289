/**
 * CSV fuzz: 500 seeded mutations of a valid file (byte flips and rewrites, truncations,
 * inserted quotes, delimiters, line breaks, NULs, BOMs and invalid UTF-8, deleted and
 * duplicated ranges). The loader must resolve with a consistent result or reject with an
 * InputError: never another error, never an unhandled one (the worker would die), never a hang
 * (5 s per case, enforced from outside the thread that loads, so even a synchronous loop is caught).
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
const PER_CASE_MS = 5_000;
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
 * Runs the cases in a worker thread (under tsx, like the CLI). A case without an answer within
 * PER_CASE_MS is a hang: the worker is terminated and the case reported.
 */
function runCases(job: FuzzJob): Promise<Report> {
  const url = new URL('./csv-fuzz.worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url)}); });`;
  const worker = new Worker(boot, { eval: true, workerData: job });
  const outcomes: Record<string, number> = {};
  const findings: Finding[] = [];
  const ops = new Map<number, readonly string[]>();
  let current: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  return new Promise<Report>((resolve, reject) => {
    const finish = (extra?: Finding) => {
      clearTimeout(timer);
      if (extra) findings.push(extra);
      void worker.terminate();
      resolve({ outcomes, findings });
    };
    // The first timer also covers the worker's start (tsx and the loader's modules).
    const arm = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const index = current ?? -1;
        finish({ index, ops: ops.get(index) ?? [], problem: `no answer within ${ms} ms (hang)` });
      }, ms);
    };
    arm(60_000);
    worker.on('message', (m: FuzzMessage) => {
      if (m.type === 'start') {
        current = m.index;
        ops.set(m.index, m.ops);
        arm(PER_CASE_MS);
      } else if (m.type === 'done') {
        outcomes[m.outcome] = (outcomes[m.outcome] ?? 0) + 1;
        if (m.outcome === 'inconsistent' || m.outcome === 'other-error')
          findings.push({
            index: m.index,
            ops: ops.get(m.index) ?? [],
            problem: `${m.outcome}: ${m.detail}`,
          });
        arm(PER_CASE_MS);
      } else finish();
    });
    worker.on('error', (err) =>
      finish({ index: current ?? -1, ops: ops.get(current ?? -1) ?? [], problem: `unhandled: ${err.stack}` }),
    );
    worker.on('exit', (code) => {
      if (code !== 0 && timer) reject(new Error(`fuzz worker exited with ${code}`));
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
