/**
 * The queries selected so far with their measured (noisy) answers, kept per threshold as local
 * indices and per (k, r) as the flat column lists the kernels consume.
 */
import type { OneHotLayout } from '../../data/onehot.ts';
import { localIndexToTarget, thresholdSizes } from '../../workload/queries.ts';
import type { Workload } from '../../workload/types.ts';
import type { QueryGroup } from '../kernels/session.ts';

interface GroupBuilder {
  readonly k: number;
  readonly r: number;
  readonly columns: number[];
  readonly weights: number[];
  readonly targets: number[];
}

export class SelectedQueries {
  private readonly byThreshold = new Map<number, Set<number>>();
  private readonly builders = new Map<string, GroupBuilder>();
  private cached: QueryGroup[] | undefined;
  count = 0;

  constructor(
    private readonly workload: Workload,
    private readonly layout: OneHotLayout,
    /** Normalized importance weight per threshold. */
    private readonly weights: Float64Array,
  ) {}

  has(threshold: number, local: number): boolean {
    return this.byThreshold.get(threshold)?.has(local) ?? false;
  }

  /** Selected local indices of a threshold, ascending. */
  localsOf(threshold: number): number[] {
    const set = this.byThreshold.get(threshold);
    return set ? [...set].sort((a, b) => a - b) : [];
  }

  add(threshold: number, local: number, measured: number): void {
    if (this.has(threshold, local)) throw new Error(`query ${threshold}:${local} was already selected`);
    const t = this.workload.thresholds[threshold];
    let set = this.byThreshold.get(threshold);
    if (!set) this.byThreshold.set(threshold, (set = new Set()));
    set.add(local);
    const k = t.features.length;
    const key = `${k}:${t.r}`;
    let b = this.builders.get(key);
    if (!b) this.builders.set(key, (b = { k, r: t.r, columns: [], weights: [], targets: [] }));
    const target = localIndexToTarget(local, thresholdSizes(t, this.layout.sizes));
    t.features.forEach((f, j) => {
      b.columns.push(this.layout.offsets[f] + target[j]);
    });
    b.weights.push(this.weights[threshold]);
    b.targets.push(measured);
    this.count++;
    this.cached = undefined;
  }

  groups(): QueryGroup[] {
    this.cached ??= [...this.builders.values()].map((b) => ({
      k: b.k,
      r: b.r,
      count: b.weights.length,
      columns: Int32Array.from(b.columns),
      weights: Float64Array.from(b.weights),
      targets: Float64Array.from(b.targets),
    }));
    return this.cached;
  }
}
