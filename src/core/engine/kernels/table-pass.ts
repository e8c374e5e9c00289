/**
 * One plan of a batch's table pass, shared by the single-threaded (typed.ts) and the threaded
 * (threaded.ts + shard.ts) CPU sessions, so that both run the same pass and stay bit-identical:
 * - forward: each target's table (a threshold's answers, or a grouped marginal's table over its
 *   groups' cells: {@link passTables});
 * - backward: from each table's residual R, the cotangents Σ_y R(y)·answer(y) puts on its
 *   product tables ({@link backwardPlan}): one per inclusion–exclusion term of a threshold
 *   (Σ_T c_T Σ_{y_T} marginal_T(R)(y_T)·P_T(y_T)), or the grouped marginal's residual itself;
 * - the grouped marginals' back-propagation target ({@link groupedGradientTarget}) and their
 *   grouped blocks ({@link GroupedBlocks}), kept until D' changes.
 *
 * Which thread computes what, and where the numbers travel (the threaded session's exchange
 * buffer), stays with each session.
 */
import { layoutFromSizes, type OneHotLayout } from '../../data/onehot.ts';
import { thresholdTerms } from '../../workload/inclusion-exclusion.ts';
import { thresholdSizes } from '../../workload/queries.ts';
import { type CategoryGroups, groupedDims, marginalize, tableSize } from '../../workload/table.ts';
import type { Threshold } from '../../workload/types.ts';
import { backpropProductTable, type GradientTarget } from './backprop.ts';
import { groupBlock } from './grouped-tables.ts';
import { productTable } from './product-tables.ts';
import type { GroupedTableTarget, TableTarget } from './session.ts';
import type { SparseBlock, SparseRows } from './sparse-rows.ts';
import { thresholdAnswers } from './threshold-answers.ts';

/** One target of a pass: the dims and cell count of the table it fits. */
export type PassTable =
  | { readonly grouped: false; readonly target: TableTarget; readonly dims: number[]; readonly cells: number }
  | {
      readonly grouped: true;
      readonly target: GroupedTableTarget;
      /** The groups' dims (a grouped feature's group count, else its size). */
      readonly dims: number[];
      readonly cells: number;
    };

/** The batch's tables in order, each with its dims. */
export function passTables(tables: readonly TableTarget[], layout: OneHotLayout): PassTable[] {
  return tables.map((target) => {
    const dims = thresholdSizes(target.threshold, layout.sizes);
    if (target.grouping === undefined) return { grouped: false, target, dims, cells: tableSize(dims) };
    const coarse = groupedDims(dims, target.grouping);
    return { grouped: true, target, dims: coarse, cells: tableSize(coarse) };
  });
}

/** Marks the one-hot columns of every feature of the tables as touched (only they can move). */
export function touchTables(touched: Uint8Array, layout: OneHotLayout, tables: readonly TableTarget[]): void {
  for (const target of tables) {
    for (const f of target.threshold.features)
      touched.fill(1, layout.offsets[f], layout.offsets[f] + layout.sizes[f]);
  }
}

/** grad += scale · ∂ Σ_y G(y)·P_F(y)·n' / ∂D' for one product table P_F. */
export interface Cotangent {
  readonly features: readonly number[];
  readonly dims: readonly number[];
  readonly G: Float64Array;
  readonly scale: number;
}

/** A table's backward work: its product tables' cotangents, or the grouped marginal's. */
export type BackwardPlan =
  | { readonly grouped: false; readonly terms: readonly Cotangent[] }
  | {
      readonly grouped: true;
      readonly target: GroupedTableTarget;
      /** Over the groups' cells (the grouped blocks' product table). */
      readonly cotangent: Cotangent;
    };

/**
 * The backward work of one table from its residual R (2w·(answer − measured) per cell), for a
 * loss scaled by `scale` over n' = `rows` relaxed rows.
 */
export function backwardPlan(
  table: PassTable,
  residual: Float64Array,
  scale: number,
  rows: number,
): BackwardPlan {
  if (table.grouped) {
    const axes = table.dims.map((_, j) => j);
    return {
      grouped: true,
      target: table.target,
      cotangent: { features: axes, dims: table.dims, G: residual, scale: scale / rows },
    };
  }
  const t = table.target.threshold;
  const { dims } = table;
  const k = t.features.length;
  return {
    grouped: false,
    terms: thresholdTerms(k, t.r).map((term) => ({
      features: term.subset.map((p) => t.features[p]),
      dims: term.subset.map((p) => dims[p]),
      G: term.subset.length === k ? residual : marginalize(residual, dims, term.subset),
      scale: (term.coefficient * scale) / rows,
    })),
  };
}

/**
 * Where a grouped marginal's gradient goes: every category of a grouped feature gets its group's
 * derivative, collected in the pass's group sums where the feature has a sole grouping
 * (group-sums.ts).
 */
export function groupedGradientTarget(
  layout: OneHotLayout,
  features: readonly number[],
  groupOf: readonly (Int32Array | undefined)[],
  sums: ReadonlyMap<number, { readonly sums: Float64Array }>,
): GradientTarget {
  return {
    layout,
    features,
    groups: groupOf,
    sums: features.map((f, j) => (groupOf[j] ? sums.get(f)?.sums : undefined)),
  };
}

/**
 * The grouped marginals' blocks (a row's share of each group), made once per D' and grouping;
 * `key` says when two groupings are the same one (the typed session: the same object; the
 * threads, which receive copies: the same group id).
 */
export class GroupedBlocks<G extends CategoryGroups> {
  private of: SparseRows | undefined;
  private readonly blocks = new Map<unknown, SparseBlock>();

  constructor(private readonly key: (g: G) => unknown = (g) => g) {}

  /** The features' rows of sp, each grouped feature's block summed into its groups. */
  rows(sp: SparseRows, features: readonly number[], grouping: readonly (G | null | undefined)[]): SparseRows {
    if (this.of !== sp) {
      this.of = sp;
      this.blocks.clear();
    }
    return {
      rows: sp.rows,
      blocks: features.map((f, j) => {
        const g = grouping[j];
        if (g === undefined || g === null) return sp.blocks[f];
        const key = this.key(g);
        let block = this.blocks.get(key);
        if (!block) this.blocks.set(key, (block = groupBlock(sp.blocks[f], g, sp.rows)));
        return block;
      }),
      simplexDeviation: sp.simplexDeviation,
    };
  }

  /** Forgets every block (D' changed). */
  clear(): void {
    this.of = undefined;
    this.blocks.clear();
  }
}

/**
 * A pass table's answers on D' (sp), written into `out` when given: a grouped marginal's table
 * over its grouped rows, a marginal's product table, or a threshold's answers.
 */
export function passAnswers(
  sp: SparseRows,
  layout: OneHotLayout,
  threshold: Pick<Threshold, 'features' | 'r'>,
  dims: readonly number[],
  grouped?: SparseRows,
  out?: Float64Array,
): Float64Array {
  if (grouped)
    return productTable(
      grouped,
      dims.map((_, j) => j),
      dims,
      out,
    );
  if (threshold.r === threshold.features.length) return productTable(sp, threshold.features, dims, out);
  const answers = thresholdAnswers(sp, layout, threshold as Threshold);
  out?.set(answers);
  return out ?? answers;
}

/** Back-propagates a threshold table's cotangents, for rows [first, end). */
export function backpropTerms(
  sp: SparseRows,
  layout: OneHotLayout,
  terms: readonly Cotangent[],
  grad: Float64Array,
  first: number,
  end: number,
): void {
  for (const term of terms)
    backpropProductTable(sp, layout, term.features, term.dims, term.G, term.scale, grad, first, end);
}

/**
 * Back-propagates a grouped marginal's cotangent on its grouped rows, then every category gets
 * its group's derivative (∂ group / ∂ category = 1), for rows [first, end).
 */
export function backpropGrouped(
  grouped: SparseRows,
  layout: OneHotLayout,
  features: readonly number[],
  groupOf: readonly (Int32Array | undefined)[],
  cotangent: Cotangent,
  grad: Float64Array,
  first: number,
  end: number,
  sums: ReadonlyMap<number, { readonly sums: Float64Array }>,
): void {
  backpropProductTable(
    grouped,
    layoutFromSizes(cotangent.dims),
    cotangent.features,
    cotangent.dims,
    cotangent.G,
    cotangent.scale,
    grad,
    first,
    end,
    groupedGradientTarget(layout, features, groupOf, sums),
  );
}
