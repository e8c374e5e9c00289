/**
 * Table mode: select and measure whole k-way tables, AIM-style, and fit D' to them.
 *
 * 1. One-way start: all d one-way marginals measured together (σ₀, table-budget.ts); D' starts
 *    as one-hot rows whose categories follow the noisy one-way marginals (post-processing), so
 *    the first rounds fit from a sensible, sparse point.
 * 2. Rounds: the candidates are the workload's measurement units, AIM's downward closure (every
 *    set of ≥ 2 features inside some threshold, see measurementUnits). Each round picks one
 *    unit by Gumbel-max on w·(‖exact − relaxed‖₁ − √(2/π)·σ·cells) (sensitivity 2/n), measures
 *    its table with σ (ℓ2 sensitivity √2/n), merges it with earlier measurements of the same
 *    unit (inverse-variance average), and projects D' onto every measured table, each weighted
 *    by w/σ². An r-of-k threshold's answers are a linear function of its k-way table, so the
 *    measured table serves every r on those features.
 * 3. Annealing: if the fit moved the selected unit's relaxed table by less than the noise's
 *    expected ℓ1, σ halves from the next round; the last round spends what is left.
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
import type { ExactAnswers } from './exact-answers.ts';
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
}

export interface TableModeFallback {
  readonly threshold: number;
  readonly cells: number;
  /** The sub-tables measured instead. */
  readonly units: readonly (readonly number[])[];
}

export interface TableRoundRecord {
  readonly round: number;
  readonly features: readonly number[];
  readonly thresholds: readonly number[];
  readonly cells: number;
  readonly sigma: number;
  readonly rhoSelect: number;
  readonly rhoMeasure: number;
  /** The fit moved the unit by less than the noise: the next rounds use σ / 2. */
  readonly annealed: boolean;
}

export interface TableModeTrace {
  readonly oneWay: { readonly rho: number; readonly sigma: number; readonly features: number };
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
 * The candidate units, as in AIM: every feature set of two or more features contained in a
 * workload threshold (the downward closure: a cheap 2-way table often fixes most of a 3-way
 * table's error), split under the cell limit. A unit's weight is AIM's Σ_S w_S·|U ∩ S| over the
 * workload, normalized to a maximum of 1 (the score's sensitivity assumes w ≤ 1). One-way
 * tables are measured at the start and are not candidates.
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

/** The subsets of `set` (ascending) with at least two features. */
function subsetsOf(set: readonly number[]): number[][] {
  const out: number[][] = [];
  for (let mask = 1; mask < 1 << set.length; mask++) {
    const sub = set.filter((_, j) => mask & (1 << j));
    if (sub.length >= 2) out.push(sub);
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
  const initial = oneWayRows({ rows, layout }, measured.map(simplexEstimate), noise);
  return { initial, targets, sigma, rho };
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

  constructor(
    workload: Workload,
    weights: Float64Array,
    private readonly layout: OneHotLayout,
    private readonly exact: ExactAnswers,
    private readonly session: KernelSession,
    private readonly budget: TableBudget,
    private readonly start: OneWayStart,
    private readonly initialRounds: number,
    private readonly noise: NoiseSource,
    private readonly control: RunControl,
    /** Counts selection and measurement as the report's selection seconds. */
    private readonly selectionTimer?: PhaseTimer,
  ) {
    ({ units: this.units, fallbacks: this.fallbacks } = measurementUnits(workload, weights, layout.sizes));
  }

  /** Rounds until the budget is spent; `project` fits D' to the problem after each measurement. */
  async run(project: (problem: ProjectionBatch, round: RoundStart) => Promise<void>): Promise<void> {
    while (!this.budget.done) {
      await this.control.checkpoint();
      const scales = this.budget.nextRound();
      this.selectionTimer?.start();
      const { unit, before } = this.select(scales);
      this.measure(unit, scales.sigma);
      this.selectionTimer?.stop();
      await project(this.problem(), {
        round: scales.round,
        roundsEstimate: this.roundsEstimate(scales),
        thresholds: unit.thresholds,
        sigma: scales.sigma,
      });
      const moved = l1(this.session.thresholdAnswers(unitTable(unit.features)), before);
      const annealed = !scales.final && moved <= expectedNoiseL1(scales.sigma, unit.cells);
      if (annealed) this.budget.anneal();
      this.records.push({
        round: scales.round,
        features: unit.features,
        thresholds: unit.thresholds,
        cells: unit.cells,
        sigma: scales.sigma,
        rhoSelect: scales.rhoSelect,
        rhoMeasure: scales.rhoMeasure,
        annealed,
      });
    }
  }

  trace(): TableModeTrace {
    return {
      oneWay: { rho: this.start.rho, sigma: this.start.sigma, features: this.layout.sizes.length },
      initialRounds: this.initialRounds,
      cellLimit: TABLE_CELL_LIMIT,
      fallbacks: this.fallbacks,
      rounds: this.records,
      rhoSpent: this.budget.rho - this.budget.remaining,
    };
  }

  private roundsEstimate(scales: RoundScales): number {
    const perRound = scales.rhoSelect + scales.rhoMeasure || 1;
    return scales.final
      ? scales.round
      : scales.round + Math.max(1, Math.round(this.budget.remaining / perRound));
  }

  /** Gumbel-max over all units (measured ones included: re-measuring sharpens them). */
  private select(scales: RoundScales): { unit: MeasurementUnit; before: Float64Array } {
    const scores = new Float64Array(this.units.length);
    this.units.forEach((u, i) => {
      const table = unitTable(u.features);
      const gap =
        l1(this.exact.of(table), this.session.thresholdAnswers(table)) -
        expectedNoiseL1(scales.sigma, u.cells);
      scores[i] = u.weight * gap;
    });
    const unit = this.units[reportNoisyMax(scores, scales.gumbel, this.noise)];
    // Recomputed rather than kept for every unit: one table instead of all of them in memory.
    return { unit, before: this.session.thresholdAnswers(unitTable(unit.features)) };
  }

  private measure(unit: MeasurementUnit, sigma: number): void {
    const fresh = gaussianMechanism(this.exact.of(unitTable(unit.features)), sigma, this.noise);
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
