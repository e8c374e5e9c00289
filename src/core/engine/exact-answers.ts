/**
 * Exact answers of the private data, threshold by threshold, kept in memory while the total
 * stays under a cap (they are needed every round) and recounted otherwise. Private: never
 * logged or returned.
 *
 * Every answer is count / n for an integer count ≤ n, so the cache keeps the counts in the
 * narrowest integer type that holds n (16-bit for ADULT and LOANS) and divides on the way out:
 * the same correctly rounded doubles as the tables of workload/exact.ts, in a quarter of their
 * memory. The 64 random 4-feature thresholds of the paper's r-of-4 cases on ADULT (~2·10⁸
 * queries) fit in ~0.4 GB instead of being recounted every round.
 *
 * The private data comes as rows or as exact tables (data/counted.ts, no rows): from tables a
 * threshold's counts are its table transposed into the threshold's feature order
 * (counted-tables.ts), then the same at-least-r transform and the same count / n division, so
 * every answer is bit-identical to the rows'.
 */
import { type CountedDataset, isCounted, type PrivateData } from '../data/counted.ts';
import { domainSize } from '../data/schema.ts';
import { atLeastRMatches, cheaperSide } from '../workload/at-least-r.ts';
import { exactAnswersFromCounts, exactThresholdAnswers } from '../workload/exact.ts';
import { localIndexToTarget } from '../workload/queries.ts';
import type { Threshold } from '../workload/types.ts';
import { countedTable, storedCell } from './counted-tables.ts';

/** The cache's memory cap: 2 GiB of counts (10⁹ 16-bit counts, 5·10⁸ 32-bit ones). */
export const EXACT_CACHE_BYTES = 2 ** 31;

type CountArray = Uint16Array | Uint32Array | Float64Array;

/** A threshold's exact answers as numerators over one denominator: answer(y) = numerators[y] / denominator. */
export interface ExactTable {
  readonly numerators: ArrayLike<number>;
  readonly denominator: number;
}

function countArray(n: number, length: number): CountArray {
  if (n < 2 ** 16) return new Uint16Array(length);
  if (n < 2 ** 32) return new Uint32Array(length);
  return new Float64Array(length);
}

export class ExactAnswers {
  private readonly cache = new Map<string, CountArray>();
  private bytes = 0;
  private millis = 0;

  /**
   * @param denominator what answers are counts of: n (the row level) or, at the person level, the
   *   public noisy row count n̂ (RapOptions.unit), so no answer divides by a private total.
   */
  constructor(
    private readonly data: PrivateData,
    private readonly maxBytes = EXACT_CACHE_BYTES,
    private readonly denominator = data.n,
  ) {}

  /** Seconds spent counting and reading exact answers so far (engine timings). */
  get seconds(): number {
    return this.millis / 1000;
  }

  /** Bytes of counts held by the cache. */
  get cachedBytes(): number {
    return this.bytes;
  }

  /** Answers of a threshold, row-major over its features (a fresh array). */
  of(t: Threshold): Float64Array {
    const started = performance.now();
    const { numerators, denominator } = this.tableUntimed(t);
    const out = new Float64Array(numerators.length);
    for (let y = 0; y < out.length; y++) out[y] = numerators[y] / denominator;
    this.millis += performance.now() - started;
    return out;
  }

  /** The answers without a copy, as numerators / denominator (do not modify them). */
  table(t: Threshold): ExactTable {
    const started = performance.now();
    const table = this.tableUntimed(t);
    this.millis += performance.now() - started;
    return table;
  }

  /**
   * One query's answer by counting rows (O(n·k)), so measuring K queries never rebuilds a whole
   * threshold table that did not fit the cache. Same count / n division as the tables: the
   * values are identical.
   */
  query(t: Threshold, local: number): number {
    const started = performance.now();
    const answer = this.queryUntimed(t, local);
    this.millis += performance.now() - started;
    return answer;
  }

  private tableUntimed(t: Threshold): ExactTable {
    const n = this.data.n;
    const key = keyOf(t);
    const hit = this.cache.get(key);
    if (hit) return { numerators: hit, denominator: this.denominator };
    const answers = this.answersOf(t);
    const counts = countArray(n, answers.length);
    if (this.bytes + counts.byteLength > this.maxBytes) {
      return { numerators: answers, denominator: n === this.denominator ? 1 : this.denominator / n };
    }
    // answers[y] is count / n correctly rounded, so rounding answers[y] · n recovers the count.
    for (let y = 0; y < counts.length; y++) counts[y] = Math.round(answers[y] * n);
    this.cache.set(key, counts);
    this.bytes += counts.byteLength;
    return { numerators: counts, denominator: this.denominator };
  }

  /** count / n of every query of the threshold, row-major over its features. */
  private answersOf(t: Threshold): Float64Array {
    const data = this.data;
    if (!isCounted(data)) return exactThresholdAnswers(data, t);
    return exactAnswersFromCounts(countedTable(data, t.features), this.dimsOf(t), t.r, data.n);
  }

  private dimsOf(t: Threshold): number[] {
    return t.features.map((f) => domainSize(this.data.schema.columns[f]));
  }

  private queryUntimed(t: Threshold, local: number): number {
    const hit = this.cache.get(keyOf(t));
    if (hit) return hit[local] / this.denominator;
    const dims = this.dimsOf(t);
    const target = localIndexToTarget(local, dims);
    const data = this.data;
    if (isCounted(data)) return countedQuery(data, t, local, target, dims) / this.denominator;
    const columns = t.features.map((f) => data.codes[f]);
    let count = 0;
    for (let i = 0; i < data.n; i++) {
      let matches = 0;
      for (let j = 0; j < columns.length; j++) if (columns[j][i] === target[j]) matches++;
      if (matches >= t.r) count++;
    }
    return count / this.denominator;
  }
}

/** A query's count from the tables: one stored cell for r = k, else its threshold's counts. */
function countedQuery(
  data: CountedDataset,
  t: Threshold,
  local: number,
  target: readonly number[],
  dims: readonly number[],
): number {
  const k = t.features.length;
  if (t.r === k) {
    const cell = storedCell(data, t.features, target);
    if (cell !== undefined) return cell;
  }
  const counts = countedTable(data, t.features);
  if (t.r === k) return counts[local];
  return atLeastRMatches(counts, dims, t.r, { side: cheaperSide(k, t.r), total: data.n })[local];
}

function keyOf(t: Threshold): string {
  return `${t.features.join(',')}/${t.r}`;
}
