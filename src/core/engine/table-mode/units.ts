/**
 * Table mode's candidates: the measurement units (AIM's downward closure of the workload), each
 * whole and — when one of its features was compressed — grouped, and how a full table becomes a
 * unit's table. Units are keyed by `id` (and their feature set by `featureSet`), never by object
 * identity.
 */
import { tableSize } from '../../workload/queries.ts';
import type { Threshold, Workload } from '../../workload/types.ts';
import {
  type CategoryGroups,
  cellGroups,
  groupedDims,
  groupTable,
  type TableGrouping,
} from '../kernels/grouped-tables.ts';
import type { TableModeFallback } from '../types.ts';

/** Largest table measured whole (cells); larger units fall back to their (k−1)-way sub-tables. */
export const TABLE_CELL_LIMIT = 1_000_000;

/** A table that can be measured: a feature set (ascending) and the thresholds it serves. */
export interface MeasurementUnit {
  /** Unique among the units: the feature set's key, with `/grouped` for the grouped version. */
  readonly id: string;
  /** The feature set's key (`features` joined), shared by a unit and its grouped version. */
  readonly featureSet: string;
  readonly features: readonly number[];
  readonly cells: number;
  /** Workload thresholds on a superset of the unit's features (their tables contain it). */
  readonly thresholds: readonly number[];
  /** Normalized AIM weight Σ_S w_S·|U ∩ S| / max (≤ 1). */
  readonly weight: number;
  /** The unit's grouped version: its features' small categories merged (domain-compression.ts). */
  readonly grouping?: TableGrouping;
}

/**
 * The candidate units, as in AIM: every non-empty feature set contained in a
 * workload threshold (the downward closure: a cheap 2-way table often fixes most of a 3-way
 * table's error), split under the cell limit. A unit's weight is AIM's Σ_S w_S·|U ∩ S| over the
 * workload, normalized to a maximum of 1 (the score's sensitivity assumes w ≤ 1). One-way
 * tables, measured at the start, stay candidates as in AIM: a re-measurement (or a grouped
 * one) sharpens a wide feature's large categories.
 */
export function measurementUnits(
  workload: Workload,
  weights: Float64Array,
  sizes: readonly number[],
  cellLimit = TABLE_CELL_LIMIT,
): { units: MeasurementUnit[]; fallbacks: TableModeFallback[] } {
  const sets = new Map<string, number[]>();
  const fallbacks: TableModeFallback[] = [];
  workload.thresholds.forEach((t, ti) => {
    const features = [...t.features].sort((a, b) => a - b);
    const cells = tableSize(features.map((f) => sizes[f]));
    const parts = cells <= cellLimit ? [features] : splitUnderLimit(features, sizes, cellLimit);
    if (parts.length !== 1 || parts[0].length !== features.length) {
      fallbacks.push({ threshold: ti, cells, units: parts });
    }
    for (const part of parts) for (const sub of subsetsOf(part)) sets.set(sub.join(','), sub);
  });
  const features = workload.thresholds.map((t) => new Set(t.features));
  const raw = [...sets].map(([key, set]) => {
    let weight = 0;
    const thresholds: number[] = [];
    features.forEach((s, ti) => {
      const overlap = set.filter((f) => s.has(f)).length;
      weight += weights[ti] * overlap;
      if (overlap === set.length) thresholds.push(ti);
    });
    const cells = tableSize(set.map((f) => sizes[f]));
    return { id: key, featureSet: key, features: set, cells, thresholds, weight };
  });
  const max = Math.max(...raw.map((u) => u.weight));
  return { units: raw.map((u) => ({ ...u, weight: u.weight / max })), fallbacks };
}

/**
 * The units and, right after each one that has a compressed feature, its grouped version (same
 * features, thresholds and weight; fewer cells). Selection scores both and picks either.
 */
export function withGroupedVersions(
  units: readonly MeasurementUnit[],
  groups: readonly (CategoryGroups | undefined)[],
  sizes: readonly number[],
): MeasurementUnit[] {
  return units.flatMap((u) => {
    const grouped = groupedVersion(u, groups, sizes);
    return grouped === u ? [u] : [u, grouped];
  });
}

/** The unit with its compressed features' categories merged (the unit itself if none is). */
export function groupedVersion(
  u: MeasurementUnit,
  groups: readonly (CategoryGroups | undefined)[],
  sizes: readonly number[],
): MeasurementUnit {
  const grouping = u.features.map((f) => groups[f]);
  if (grouping.every((g) => g === undefined)) return u;
  const dims = u.features.map((f) => sizes[f]);
  return { ...u, id: `${u.featureSet}/grouped`, grouping, cells: tableSize(groupedDims(dims, grouping)) };
}

/** The non-empty subsets of `set` (ascending). */
function subsetsOf(set: readonly number[]): number[][] {
  const out: number[][] = [];
  for (let mask = 1; mask < 1 << set.length; mask++) {
    const sub = set.filter((_, j) => mask & (1 << j));
    out.push(sub);
  }
  return out;
}

/** The (k−1)-subsets of features, recursively, until each fits the limit (distinct). */
function splitUnderLimit(features: readonly number[], sizes: readonly number[], limit: number): number[][] {
  const out = new Map<string, number[]>();
  const visit = (set: readonly number[]) => {
    if (tableSize(set.map((f) => sizes[f])) <= limit || set.length === 1) {
      out.set(set.join(','), [...set]);
      return;
    }
    for (let drop = 0; drop < set.length; drop++) visit(set.filter((_, j) => j !== drop));
  };
  visit(features);
  // A subset contained in another kept subset adds nothing: keep the maximal ones.
  const kept = [...out.values()];
  return kept.filter(
    (s) => !kept.some((o) => o !== s && o.length > s.length && s.every((f) => o.includes(f))),
  );
}

/** The marginal (r = k) on a unit's features: what is measured and fitted. */
export function unitTable(features: readonly number[], weight = 1): Threshold {
  return { features, r: features.length, weight };
}

/**
 * A full table over the unit's features as the unit measures it: summed into its groups if
 * grouped. The grouped cell map is recomputed (O(cells), next to the O(rows·Π nnz) table it
 * groups) rather than kept: kept for every grouped 3-way unit of ADULT it would hold ~250 MB.
 * Pass `cells` to reuse one map for several tables of the same unit.
 */
export function asUnit(
  unit: MeasurementUnit,
  full: Float64Array,
  sizes: readonly number[],
  cells = unitCellMap(unit, sizes),
): Float64Array {
  return cells ? groupTable(full, cells, unit.cells) : full;
}

/** The grouped unit's cell → group-cell map (undefined for a whole unit). */
export function unitCellMap(unit: MeasurementUnit, sizes: readonly number[]): Int32Array | undefined {
  const dims = unit.features.map((f) => sizes[f]);
  return unit.grouping && cellGroups(dims, unit.grouping);
}
