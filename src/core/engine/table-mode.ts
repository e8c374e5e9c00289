/**
 * Table mode: select and measure whole k-way tables, AIM-style, and fit D' to them.
 *
 * 1. One-way start: all d one-way marginals measured together (σ₀, table-budget.ts); D' starts
 *    as one-hot rows whose categories follow the noisy one-way marginals (post-processing), so
 *    the first rounds fit from a sensible, sparse point. The same noisy marginals compress each
 *    feature's domain (domain-compression.ts, after MST): categories with an estimated share
 *    under 3σ₀ are merged into groups.
 * 2. Rounds: the candidates are the workload's measurement units, AIM's downward closure (every
 *    non-empty feature set inside some threshold, see measurementUnits), each whole and — when
 *    one of its features was compressed — grouped (far fewer cells, so far less noise ℓ1).
 *    Each round picks up to K units, one Gumbel-max each on w·(‖exact − relaxed‖₁ −
 *    √(2/π)·σ·cells) (sensitivity 2/n), measures each table with σ (ℓ2 sensitivity √2/n),
 *    merges it with earlier measurements of the same unit (inverse-variance average), and then
 *    projects D' once onto every measured table, each weighted by w/σ². An r-of-k threshold's
 *    answers are a linear function of its k-way table, so the measured table serves every r on
 *    those features.
 * 3. Annealing: if the fit moved the round's tables by less than their noise's expected ℓ1, σ
 *    halves from the next round; the last measurement spends what is left.
 *
 * Several tables per round: AIM fits its model after every measurement; here a fit is a
 * projection of n' relaxed rows (the run's main cost), so a round measures K tables chosen on
 * the same D' and fits once. Measured on ADULT (64 random 3-way marginals, ε = 1): K = 4 halved
 * the CPU time of K = 1 at the same error.
 *
 * Cell limit: a unit of more than TABLE_CELL_LIMIT cells is not measured whole; it is replaced
 * by its (k−1)-way sub-tables (recursively) — the report lists such fallbacks.
 */
import { layoutOf, type OneHotLayout } from '../data/onehot.ts';
import type { EncodedDataset } from '../data/schema.ts';
import { gaussianMechanism } from '../privacy/mechanisms.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { reportNoisyMax } from '../privacy/selection.ts';
import { tableSize } from '../workload/queries.ts';
import type { Threshold, Workload } from '../workload/types.ts';
import { compressDomain, KEEP_SIGMAS } from './domain-compression.ts';
import type { ExactAnswers } from './exact-answers.ts';
import {
  type CategoryGroups,
  cellGroups,
  groupedDims,
  groupTable,
  type TableGrouping,
} from './kernels/grouped-tables.ts';
import { sparsemax } from './kernels/sparsemax.ts';
import type { KernelSession, ProjectionBatch, TableTarget } from './kernels/types.ts';
import type { RelaxedShape } from './relaxed.ts';
import type { PhaseTimer, RunControl } from './run-control.ts';
import { expectedNoiseL1, type RoundScales, type TableBudget } from './table-budget.ts';

/** Largest table measured whole (cells); larger units fall back to their (k−1)-way sub-tables. */
export const TABLE_CELL_LIMIT = 1_000_000;

/** A table that can be measured: a feature set (ascending) and the thresholds it serves. */
export interface MeasurementUnit {
  readonly features: readonly number[];
  readonly cells: number;
  /** Workload thresholds on a superset of the unit's features (their tables contain it). */
  readonly thresholds: readonly number[];
  /** Normalized AIM weight Σ_S w_S·|U ∩ S| / max (≤ 1). */
  readonly weight: number;
  /** The unit's grouped version: its features' small categories merged (domain-compression.ts). */
  readonly grouping?: TableGrouping;
}

export interface TableModeFallback {
  readonly threshold: number;
  readonly cells: number;
  /** The sub-tables measured instead. */
  readonly units: readonly (readonly number[])[];
}

/** One measurement: several share a round (one projection after them). */
export interface TableRoundRecord {
  readonly round: number;
  /** 1-based measurement number (its budget share, table-budget.ts). */
  readonly measurement: number;
  readonly features: readonly number[];
  readonly thresholds: readonly number[];
  readonly cells: number;
  /** The grouped version of the table (small categories merged) was measured. */
  readonly grouped: boolean;
  readonly sigma: number;
  readonly rhoSelect: number;
  readonly rhoMeasure: number;
  /** The fit moved the unit by less than the noise: the next rounds use σ / 2. */
  readonly annealed: boolean;
}

export interface TableModeTrace {
  readonly oneWay: { readonly rho: number; readonly sigma: number; readonly features: number };
  /** Features whose small categories were merged for grouped tables: categories → groups. */
  readonly compressed: readonly {
    readonly feature: number;
    readonly categories: number;
    readonly groups: number;
  }[];
  readonly initialRounds: number;
  readonly cellLimit: number;
  readonly fallbacks: readonly TableModeFallback[];
  readonly rounds: readonly TableRoundRecord[];
  readonly rhoSpent: number;
}

export interface RoundStart {
  readonly round: number;
  /** Rounds expected at the current ρ per round (for progress). */
  readonly roundsEstimate: number;
  readonly thresholds: readonly number[];
  readonly sigma: number;
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
  const raw = [...sets.values()].map((set) => {
    let weight = 0;
    const thresholds: number[] = [];
    features.forEach((s, ti) => {
      const overlap = set.filter((f) => s.has(f)).length;
      weight += weights[ti] * overlap;
      if (overlap === set.length) thresholds.push(ti);
    });
    return { features: set, cells: tableSize(set.map((f) => sizes[f])), thresholds, weight };
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
    const grouping = u.features.map((f) => groups[f]);
    if (grouping.every((g) => g === undefined)) return [u];
    const cells = tableSize(
      groupedDims(
        u.features.map((f) => sizes[f]),
        grouping,
      ),
    );
    return [u, { ...u, grouping, cells }];
  });
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
function unitTable(features: readonly number[], weight = 1): Threshold {
  return { features, r: features.length, weight };
}

/**
 * One-hot rows whose categories follow the one-way marginals: row i takes the category at
 * quantile (i + u)/n' of the marginal, then each feature's rows are shuffled independently so
 * features start independent. The marginals must be distributions (see simplexEstimate).
 */
export function oneWayRows(
  shape: RelaxedShape,
  marginals: readonly Float64Array[],
  noise: NoiseSource,
): Float64Array {
  const { rows, layout } = shape;
  const out = new Float64Array(rows * layout.width);
  const order = new Int32Array(rows);
  marginals.forEach((p, f) => {
    const u = noise.uniform();
    for (let i = 0; i < rows; i++) order[i] = i;
    shuffle(order, noise);
    let v = 0;
    let cumulative = p[0];
    for (let i = 0; i < rows; i++) {
      const q = (i + u) / rows;
      while (q > cumulative && v < p.length - 1) cumulative += p[++v];
      out[(layout.offsets[f] + v) * rows + order[i]] = 1;
    }
  });
  return out;
}

/**
 * The distribution nearest (least squares) to a noisy marginal: its projection onto the simplex.
 * Clipping negatives and renormalizing instead would hand a large domain's empty cells the
 * positive half of their noise (≈ 0.4σ each: most of the mass for 100 cells at σ = 0.02).
 */
export function simplexEstimate(noisy: Float64Array): Float64Array {
  return sparsemax(noisy);
}

function shuffle(a: Int32Array, noise: NoiseSource): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(noise.uniform() * (i + 1));
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

export interface OneWayStart {
  readonly initial: Float64Array;
  readonly targets: TableTarget[];
  readonly sigma: number;
  readonly rho: number;
  /** Per feature, its merged categories for grouped tables (undefined: none merged). */
  readonly groups: readonly (CategoryGroups | undefined)[];
}

/** Measures the d one-way marginals (the budget's one-way share) and builds the start rows. */
export function measureOneWays(
  data: EncodedDataset,
  exact: ExactAnswers,
  rows: number,
  budget: TableBudget,
  noise: NoiseSource,
): OneWayStart {
  const layout = layoutOf(data.schema);
  const d = layout.sizes.length;
  const { rho, sigma } = budget.oneWay(d);
  // Unclipped: the fit is least squares, for which the raw measurements are unbiased.
  const measured = layout.sizes.map((_, f) => gaussianMechanism(exact.of(unitTable([f])), sigma, noise));
  const targets = measured.map((m, f) => ({ threshold: unitTable([f]), weight: 1, measured: m }));
  const estimates = measured.map(simplexEstimate);
  const initial = oneWayRows({ rows, layout }, estimates, noise);
  const groups = estimates.map((p) => compressDomain(p, KEEP_SIGMAS * sigma));
  return { initial, targets, sigma, rho, groups };
}

interface Pick {
  readonly unit: MeasurementUnit;
  readonly scales: RoundScales;
  /** The unit's table on D' before the round's fit (for the annealing rule). */
  readonly before: Float64Array;
}

interface Measured {
  readonly unit: MeasurementUnit;
  /** Inverse-variance average of the unit's measurements so far, and its σ. */
  values: Float64Array;
  sigma: number;
}

export class TableMode {
  private readonly units: MeasurementUnit[];
  private readonly fallbacks: TableModeFallback[];
  private readonly measured = new Map<MeasurementUnit, Measured>();
  private readonly records: TableRoundRecord[] = [];
  private readonly featureSets: number;

  constructor(
    workload: Workload,
    weights: Float64Array,
    private readonly layout: OneHotLayout,
    private readonly exact: ExactAnswers,
    private readonly session: KernelSession,
    private readonly budget: TableBudget,
    private readonly start: OneWayStart,
    private readonly initialRounds: number,
    /** Units measured per round, before one projection. */
    private readonly perRound: number,
    private readonly noise: NoiseSource,
    private readonly control: RunControl,
    /** Counts selection and measurement as the report's selection seconds. */
    private readonly selectionTimer?: PhaseTimer,
  ) {
    const { units, fallbacks } = measurementUnits(workload, weights, layout.sizes);
    this.units = withGroupedVersions(units, start.groups, layout.sizes);
    this.featureSets = units.length;
    this.fallbacks = fallbacks;
  }

  /**
   * Rounds until the budget is spent: each measures up to `perRound` units, then `project` fits
   * D' to every measurement so far.
   */
  async run(project: (problem: ProjectionBatch, round: RoundStart) => Promise<void>): Promise<void> {
    for (let round = 1; !this.budget.done; round++) {
      await this.control.checkpoint();
      this.selectionTimer?.start();
      const picks = this.selectAndMeasure();
      this.selectionTimer?.stop();
      await project(this.problem(), {
        round,
        roundsEstimate: this.roundsEstimate(round),
        thresholds: [...new Set(picks.flatMap((p) => p.unit.thresholds))].sort((a, b) => a - b),
        sigma: Math.max(...picks.map((p) => p.scales.sigma)),
      });
      // AIM's rule: the fit barely moved the measured tables, so sharper measurements pay.
      let moved = 0;
      let expected = 0;
      for (const p of picks) {
        moved += l1(this.relaxedOf(p.unit), p.before);
        expected += expectedNoiseL1(p.scales.sigma, p.unit.cells);
      }
      const annealed = !this.budget.done && moved <= expected;
      if (annealed) this.budget.anneal();
      for (const { unit, scales } of picks) {
        this.records.push({
          round,
          measurement: scales.round,
          features: unit.features,
          thresholds: unit.thresholds,
          cells: unit.cells,
          grouped: unit.grouping !== undefined,
          sigma: scales.sigma,
          rhoSelect: scales.rhoSelect,
          rhoMeasure: scales.rhoMeasure,
          annealed,
        });
      }
    }
  }

  trace(): TableModeTrace {
    return {
      oneWay: { rho: this.start.rho, sigma: this.start.sigma, features: this.layout.sizes.length },
      compressed: this.start.groups.flatMap((g, feature) =>
        g ? [{ feature, categories: this.layout.sizes[feature], groups: g.count }] : [],
      ),
      initialRounds: this.initialRounds,
      cellLimit: TABLE_CELL_LIMIT,
      fallbacks: this.fallbacks,
      rounds: this.records,
      rhoSpent: this.budget.rho - this.budget.remaining,
    };
  }

  private roundsEstimate(round: number): number {
    const left = this.budget.remaining / this.budget.measurementRho;
    return this.budget.done ? round : round + Math.max(1, Math.round(left / this.perRound));
  }

  /** ‖exact − relaxed‖₁ of every unit on the current D' (a unit's full tables once for both versions). */
  private gaps(): Float64Array {
    const gaps = new Float64Array(this.units.length);
    let full: { features: readonly number[]; exact: Float64Array; relaxed: Float64Array } | undefined;
    this.units.forEach((u, i) => {
      if (full?.features !== u.features) {
        const table = unitTable(u.features);
        full = {
          features: u.features,
          exact: this.exact.of(table),
          relaxed: this.session.thresholdAnswers(table),
        };
      }
      const cells = u.grouping ? this.cellsOf(u) : undefined;
      gaps[i] = l1(this.asUnit(u, full.exact, cells), this.asUnit(u, full.relaxed, cells));
    });
    return gaps;
  }

  /**
   * Up to perRound units, each by its own Gumbel-max on w·(gap − expected noise ℓ1) with its
   * measurement's σ (measured units stay candidates: re-measuring sharpens them). They are all
   * scored on the same D' (no fit in between), so a feature set measured this round is not a
   * candidate again until the next one.
   */
  private selectAndMeasure(): Pick[] {
    const gaps = this.gaps();
    const taken = new Set<readonly number[]>();
    const picks: Pick[] = [];
    while (picks.length < this.perRound && taken.size < this.featureSets && !this.budget.done) {
      const scales = this.budget.nextRound();
      const open = this.units.flatMap((u, i) => (taken.has(u.features) ? [] : [i]));
      const scores = Float64Array.from(open, (i) => {
        const u = this.units[i];
        return u.weight * (gaps[i] - expectedNoiseL1(scales.sigma, u.cells));
      });
      const unit = this.units[open[reportNoisyMax(scores, scales.gumbel, this.noise)]];
      taken.add(unit.features);
      picks.push({ unit, scales, before: this.relaxedOf(unit) });
      this.measure(unit, scales.sigma);
    }
    return picks;
  }

  /**
   * The grouped version's cell map (grouped units only). Recomputed (O(cells), next to the
   * O(rows·Π nnz) table it groups) rather than kept: kept for every grouped 3-way unit of ADULT it
   * would hold ~250 MB.
   */
  private cellsOf(unit: MeasurementUnit): Int32Array {
    if (!unit.grouping) throw new Error('not a grouped unit');
    return cellGroups(
      unit.features.map((f) => this.layout.sizes[f]),
      unit.grouping,
    );
  }

  /** A full table over the unit's features as the unit measures it: summed into its groups if grouped. */
  private asUnit(unit: MeasurementUnit, full: Float64Array, cells?: Int32Array): Float64Array {
    return unit.grouping ? groupTable(full, cells ?? this.cellsOf(unit), unit.cells) : full;
  }

  /** The unit's table on D'. */
  private relaxedOf(unit: MeasurementUnit): Float64Array {
    return this.asUnit(unit, this.session.thresholdAnswers(unitTable(unit.features)));
  }

  /** The unit's exact table. Private. */
  private exactOf(unit: MeasurementUnit): Float64Array {
    return this.asUnit(unit, this.exact.of(unitTable(unit.features)));
  }

  private measure(unit: MeasurementUnit, sigma: number): void {
    const fresh = gaussianMechanism(this.exactOf(unit), sigma, this.noise);
    const old = this.measured.get(unit);
    if (!old) {
      this.measured.set(unit, { unit, values: fresh, sigma });
      return;
    }
    // Inverse-variance average of the two measurements (both unclipped).
    const a = 1 / old.sigma ** 2;
    const b = 1 / sigma ** 2;
    for (let i = 0; i < fresh.length; i++) old.values[i] = (a * old.values[i] + b * fresh[i]) / (a + b);
    old.sigma = 1 / Math.sqrt(a + b);
  }

  /** Every measured table (and the one-ways), weighted by w·(σ_min/σ)². */
  private problem(): ProjectionBatch {
    const all = [...this.measured.values()];
    let sigmaMin = this.start.sigma;
    for (const m of all) sigmaMin = Math.min(sigmaMin, m.sigma);
    const oneWayWeight = (sigmaMin / this.start.sigma) ** 2;
    const tables: TableTarget[] = this.start.targets.map((t) => ({ ...t, weight: oneWayWeight }));
    for (const m of all) {
      tables.push({
        threshold: unitTable(m.unit.features),
        measured: m.values,
        weight: m.unit.weight * (sigmaMin / m.sigma) ** 2,
        ...(m.unit.grouping ? { grouping: m.unit.grouping } : {}),
      });
    }
    return { groups: [], tables };
  }
}

function l1(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
  return s;
}
