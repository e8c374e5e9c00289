/**
 * Runs the fuzz cases in a worker thread, so the test's thread can stop a case that hangs (even
 * a synchronous endless loop) and name it. For each case: 'start' before loading, then the
 * outcome. Loads alternate between an inferred schema, the valid file's schema declared, and
 * the three header modes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { type LoadOptions, loadCsv } from '../../../src/core/data/load.ts';
import { domainSize } from '../../../src/core/data/schema.ts';
import { InputError } from '../../../src/core/errors.ts';
import { caseSeed, mutate } from './csv-mutations.ts';

export interface FuzzJob {
  readonly seed: number;
  readonly cases: number;
  readonly first: number;
  readonly dir: string;
  readonly base: string;
}

export type FuzzMessage =
  | { readonly type: 'start'; readonly index: number; readonly ops: readonly string[]; readonly file: string }
  | {
      readonly type: 'done';
      readonly index: number;
      /** ok: resolved with a consistent result; input-error: an InputError; anything else fails the test. */
      readonly outcome: 'ok' | 'input-error' | 'inconsistent' | 'other-error';
      readonly detail: string;
    }
  | { readonly type: 'finished' };

const job = workerData as FuzzJob;
const post = (m: FuzzMessage) => parentPort!.postMessage(m);

/** Checks a resolved load: counts add up and every code lies inside its column's domain. */
function inconsistency(r: Awaited<ReturnType<typeof loadCsv>>): string | null {
  const { dataset, summary } = r;
  const rejected = summary.rejected.reduce((s, x) => s + x.count, 0);
  if (dataset.n !== summary.rowsAccepted)
    return `dataset.n ${dataset.n} != rowsAccepted ${summary.rowsAccepted}`;
  if (summary.rowsAccepted + rejected !== summary.rowsRead)
    return `accepted ${summary.rowsAccepted} + rejected ${rejected} != read ${summary.rowsRead}`;
  if (dataset.n === 0) return 'resolved with no rows';
  for (const [c, column] of dataset.schema.columns.entries()) {
    const size = domainSize(column);
    const codes = dataset.codes[c];
    if (codes.length < dataset.n) return `column ${column.name}: ${codes.length} codes for ${dataset.n} rows`;
    for (let i = 0; i < dataset.n; i++)
      if (codes[i] >= size) return `column ${column.name}, row ${i}: code ${codes[i]} >= size ${size}`;
  }
  return null;
}

async function main(): Promise<void> {
  const base = Buffer.from(job.base, 'utf8');
  const valid = await loadCsv(join(job.dir, 'valid.csv'));
  for (let index = job.first; index < job.first + job.cases; index++) {
    const { bytes, ops } = mutate(base, caseSeed(job.seed, index));
    const file = join(job.dir, `case-${index}.csv`);
    writeFileSync(file, bytes);
    const variant = index % 4;
    const opts: LoadOptions =
      variant === 1
        ? { schema: valid.dataset.schema }
        : { header: (['auto', 'auto', true, false] as const)[variant] };
    post({ type: 'start', index, ops, file });
    try {
      const r = await loadCsv(file, opts);
      const bad = inconsistency(r);
      post({ type: 'done', index, outcome: bad ? 'inconsistent' : 'ok', detail: bad ?? '' });
    } catch (err) {
      const input = err instanceof InputError;
      post({
        type: 'done',
        index,
        outcome: input ? 'input-error' : 'other-error',
        detail: input ? (err as Error).message : String((err as Error)?.stack ?? err),
      });
    }
  }
  // Let an error a stream emits after its promise settled surface here, not in the next test.
  await new Promise((r) => setTimeout(r, 50));
  post({ type: 'finished' });
}

void main();
