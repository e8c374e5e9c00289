/**
 * Grouped-gradient bookkeeping of a backward pass: which features every grouped table groups the
 * same way (soleGroupings), and their per-group sums handed to the categories once a pass
 * (GroupSums). backprop.ts writes into them through GradientTarget.sums.
 */
import type { OneHotLayout } from '../../data/onehot.ts';

/**
 * The features that every grouped table of a backward pass groups one and the same way, with
 * that grouping (the first seen; groupings are the same when `key` says so). Their grouped tables'
 * derivatives are collected per group (GradientTarget.sums) and added to the categories once, at
 * the end of the pass: 1/3 of the writes on ADULT's direct plan (8.0 → 2.7 M a step, plus 0.6 M
 * for the hand-over). Tables where the feature keeps its categories add straight into the
 * gradient, in table order.
 *
 * Where only grouped tables touch the feature (the direct plan), each category's gradient is the
 * same sum in the same order as adding table after table into it (from the zero Adam leaves
 * after each step): bit for bit the earlier kernels. Where a plain table touches it too (the
 * adaptive and mixed plans' one-way targets), the grouped part is added last, as one sum: the
 * same gradient up to rounding, and the same whatever the thread count (typed.ts and shard.ts
 * both use {@link GroupSums}).
 *
 * `tables` lists each grouped table's features with its groups (undefined: the feature is not
 * grouped there).
 */
export function soleGroupings<G>(
  tables: readonly { readonly features: readonly number[]; readonly groups: readonly (G | undefined)[] }[],
  key: (g: G) => unknown = (g) => g,
): Map<number, G> {
  const sole = new Map<number, G>();
  const mixed = new Set<number>();
  for (const t of tables) {
    t.features.forEach((f, j) => {
      const g = t.groups[j];
      if (g === undefined) return;
      const seen = sole.get(f);
      if (seen === undefined) sole.set(f, g);
      else if (key(seen) !== key(g)) mixed.add(f);
    });
  }
  for (const f of mixed) sole.delete(f);
  return sole;
}

/** A feature's grouping as the group sums need it. */
interface Grouping {
  readonly of: Int32Array;
  readonly count: number;
}

/**
 * The group sums of backward passes (GradientTarget.sums), one thread's: per feature with a sole
 * grouping in the pass (soleGroupings), an n' × groups buffer, row-major, zero between passes,
 * kept while the feature's grouping stays the same.
 */
export class GroupSums<G extends Grouping> {
  private readonly kept = new Map<number, { readonly key: unknown; readonly sums: Float64Array }>();

  constructor(
    private readonly rows: number,
    /** When two groupings are the same one (default: the same object). */
    private readonly key: (g: G) => unknown = (g) => g,
  ) {}

  /** The pass's buffers, by feature, for the grouped tables listed (see soleGroupings). */
  forPass(
    tables: readonly { readonly features: readonly number[]; readonly groups: readonly (G | undefined)[] }[],
  ): Map<number, { readonly groups: G; readonly sums: Float64Array }> {
    const out = new Map<number, { readonly groups: G; readonly sums: Float64Array }>();
    for (const [f, groups] of soleGroupings(tables, this.key)) {
      const key = this.key(groups);
      let sums = this.kept.get(f)?.sums;
      if (!sums || this.kept.get(f)?.key !== key) {
        sums = new Float64Array(this.rows * groups.count);
        this.kept.set(f, { key, sums });
      }
      out.set(f, { groups, sums });
    }
    return out;
  }

  /**
   * grad[category v of feature f, row i] += sums[i·count + of[v]] for rows [firstRow, endRow) of
   * every buffer of the pass, then those rows of the buffers are cleared for the next pass.
   */
  handOver(
    pass: ReadonlyMap<number, { readonly groups: G; readonly sums: Float64Array }>,
    grad: Float64Array,
    layout: OneHotLayout,
    firstRow: number,
    endRow: number,
  ): void {
    const rows = this.rows;
    for (const [f, { groups, sums }] of pass) {
      const { of, count } = groups;
      for (let v = 0; v < of.length; v++) {
        const g = of[v];
        const column = (layout.offsets[f] + v) * rows;
        for (let i = firstRow; i < endRow; i++) grad[column + i] += sums[i * count + g];
      }
      sums.fill(0, firstRow * count, endRow * count);
    }
  }
}
