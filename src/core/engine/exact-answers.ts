/**
 * Exact answers of the private data, threshold by threshold, kept in memory while the total
 * stays under a cap (they are needed every round) and recounted otherwise. Private: never
 * logged or returned.
 */
import { domainSize, type EncodedDataset } from '../data/schema.ts';
import { exactThresholdAnswers } from '../workload/exact.ts';
import { localIndexToTarget } from '../workload/queries.ts';
import type { Threshold } from '../workload/types.ts';

/** 2^26 cells = 512 MiB of float64: every table of a 16-threshold 4-way ADULT workload (≤ 63M queries). */
export const EXACT_CACHE_CELLS = 2 ** 26;

export class ExactAnswers {
  private readonly cache = new Map<string, Float64Array>();
  private cells = 0;

  constructor(
    private readonly data: EncodedDataset,
    private readonly maxCells = EXACT_CACHE_CELLS,
  ) {}

  /** Answers of a threshold, row-major over its features. Do not modify the returned array. */
  of(t: Threshold): Float64Array {
    const key = `${t.features.join(',')}/${t.r}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const answers = exactThresholdAnswers(this.data, t);
    if (this.cells + answers.length <= this.maxCells) {
      this.cache.set(key, answers);
      this.cells += answers.length;
    }
    return answers;
  }

  /**
   * One query's answer by counting rows (O(n·k)), so measuring K queries never rebuilds a whole
   * threshold table that did not fit the cache. Same count / n division as the tables: the
   * values are identical.
   */
  query(t: Threshold, local: number): number {
    const hit = this.cache.get(`${t.features.join(',')}/${t.r}`);
    if (hit) return hit[local];
    const dims = t.features.map((f) => this.data.schema.columns[f]).map((c) => domainSize(c));
    const target = localIndexToTarget(local, dims);
    const columns = t.features.map((f) => this.data.codes[f]);
    let count = 0;
    for (let i = 0; i < this.data.n; i++) {
      let matches = 0;
      for (let j = 0; j < columns.length; j++) if (columns[j][i] === target[j]) matches++;
      if (matches >= t.r) count++;
    }
    return count / this.data.n;
  }
}
