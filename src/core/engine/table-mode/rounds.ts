/**
 * Table mode's round loop (AIM-style, McKenna et al. 2022). A *measurement* selects one unit
 * (units.ts) by Gumbel-max on w·(‖exact − relaxed‖₁ − √(2/π)·σ·cells) and measures its table
 * (measure.ts), averaged with the unit's earlier measurements by inverse variance; a *round*
 * makes up to K measurements on the same D', then projects D' once onto every measured table
 * (weights w/σ²); the *measurement bound* B = T₀·K sets the first measurements' ρ (rho-schedule.ts).
 * If a round's fit moved its tables by less than their noise's expected ℓ1, σ halves from the
 * next measurement (annealing). AIM fits after every measurement; a fit here is the run's main
 * cost, so K tables share one (ADULT, 64 3-way marginals, ε = 1: K = 4 halved the CPU time of
 * K = 1 at the same error). An r-of-k threshold's answers are linear in its k-way table, so one
 * measured table serves every r on its features.
 */
import type { PrivateData } from '../../data/counted.ts';
import type { NoiseSource } from '../../privacy/noise.ts';
import { reportNoisyMax } from '../../privacy/selection.ts';
import type { Threshold, Workload } from '../../workload/types.ts';
import type { ExactAnswers } from '../exact-answers.ts';
import { cellGroups, groupTable } from '../kernels/grouped-tables.ts';
import {
  type KernelSession,
  type ProjectionBatch,
  type TableTarget,
  tableTarget,
} from '../kernels/session.ts';
import { measure, noiseScale } from '../measure.ts';
import {
  combineInverseVariance,
  fitWeight,
  oneWayShareFor,
  type PaidOneWays,
  rmsSigma,
  uniform,
} from '../paid-one-ways.ts';
import type { TablePlan } from '../plan.ts';
import type { PhaseTimer, RunControl } from '../run-control.ts';
import type {
  AdaptiveTableTrace,
  MixedTableTrace,
  PersonUnit,
  TableMeasurementRecord,
  TableModeFallback,
} from '../types.ts';
import { type DirectStart, directTables, measureDirect } from './direct.ts';
import { measureOneWays, type OneWayStart } from './one-way-start.ts';
import {
  expectedNoiseL1,
  type MeasurementScales,
  MIXED_DIRECT_SHARE,
  ONE_WAY_SHARE,
  TableBudget,
} from './rho-schedule.ts';
import {
  asUnit,
  type MeasurementUnit,
  measurementUnits,
  TABLE_CELL_LIMIT,
  unitCellMap,
  unitTable,
  withGroupedVersions,
} from './units.ts';

export interface RoundStart {
  readonly round: number;
  /** Rounds expected at the current ρ per measurement (for progress). */
  readonly roundsEstimate: number;
  readonly thresholds: readonly number[];
  readonly sigma: number;
}

/**
 * An adaptive (or mixed: every workload table measured first) table-mode plan with its budget and
 * measured one-way start: the rounds need both.
 */
export interface AdaptiveTablePlan extends TablePlan {
  readonly strategy: 'adaptive' | 'mixed';
  readonly budget: TableBudget;
  readonly start: OneWayStart;
}

/** A direct table-mode plan with its measurements (direct.ts). */
export interface DirectTablePlan extends TablePlan {
  readonly strategy: 'direct';
  readonly start: DirectStart;
}

export type StartedTablePlan = AdaptiveTablePlan | DirectTablePlan;

/** Spends the plan's first share: every direct table, or the adaptive plan's one-way start. */
export function startTablePlan(
  plan: TablePlan,
  input: {
    data: PrivateData;
    workload: Workload;
    rows: number;
    unit?: PersonUnit;
    /** Features' one-ways already paid for (discovery's): the start does not measure them. */
    paidOneWays?: PaidOneWays;
  },
  exact: ExactAnswers,
  noise: NoiseSource,
): StartedTablePlan {
  const { data, workload, rows } = input;
  const scale = noiseScale(data, input.unit);
  if (plan.strategy === 'direct') {
    const tables = directTables(workload, plan.weights, plan.layout.sizes);
    const shape = { rows, layout: plan.layout };
    return {
      ...plan,
      strategy: 'direct',
      start: measureDirect(shape, tables, data, exact, plan.rho, noise, scale, input.paidOneWays),
    };
  }
  // T₀ bounds the rounds; each makes K measurements, so T₀·K bounds the measurements.
  // The mixed plan first measures every workload table with MIXED_DIRECT_SHARE of ρ.
  const directShare = plan.strategy === 'mixed' ? MIXED_DIRECT_SHARE : 0;
  const budget = new TableBudget(
    plan.rho,
    scale.n,
    plan.roundBound * plan.perRound,
    oneWayShareFor(ONE_WAY_SHARE, plan.layout.sizes.length, input.paidOneWays),
    directShare,
    scale.bound,
  );
  const start = measureOneWays(data, exact, rows, budget, noise, input.paidOneWays);
  return { ...plan, strategy: plan.strategy, budget, start };
}

/**
 * The fit of D' to measured tables: the weighted RMS of (D' − measured) over their cells, and
 * the noise's own (√(Σ w σ² cells / Σ w cells)), which the true tables would show.
 */
export function measuredFit(
  session: KernelSession,
  tables: readonly { readonly target: TableTarget; readonly sigma: number }[],
  sizes: readonly number[],
): { residualRms: number; noiseRms: number } {
  let residual = 0;
  let noiseSq = 0;
  let weight = 0;
  for (const { target, sigma } of tables) {
    const full = session.thresholdAnswers(target.threshold);
    const dims = target.threshold.features.map((f) => sizes[f]);
    const cells = target.measured.length;
    const fitted = target.grouping ? groupTable(full, cellGroups(dims, target.grouping), cells) : full;
    for (let c = 0; c < cells; c++) residual += target.weight * (fitted[c] - target.measured[c]) ** 2;
    noiseSq += target.weight * sigma * sigma * cells;
    weight += target.weight * cells;
  }
  return { residualRms: Math.sqrt(residual / weight), noiseRms: Math.sqrt(noiseSq / weight) };
}

export interface TableRoundsOptions {
  readonly plan: AdaptiveTablePlan;
  readonly workload: Workload;
  readonly exact: ExactAnswers;
  readonly session: KernelSession;
  readonly noise: NoiseSource;
  readonly control: RunControl;
  /** Counts selection and measurement as the report's selection seconds. */
  readonly selectionTimer?: PhaseTimer;
}

interface Pick {
  readonly unit: MeasurementUnit;
  readonly scales: MeasurementScales;
  /** The unit's table on D' before the round's fit (for the annealing rule). */
  readonly before: Float64Array;
}

/** The mixed plan's up-front measurement (trace): ρ, σ, tables and their cells as measured. */
interface Upfront {
  readonly rho: number;
  readonly sigma: number;
  readonly tables: number;
  readonly cells: number;
}

interface Measured {
  readonly unit: MeasurementUnit;
  /** Inverse-variance average of the unit's measurements so far, and its σ. */
  values: Float64Array;
  sigma: number;
  /** Per-cell variances where they differ (a paid one-way's, paid-one-ways.ts); else σ² each. */
  variances?: Float64Array;
}

export class TableRounds {
  private readonly units: MeasurementUnit[];
  private readonly fallbacks: TableModeFallback[];
  /** By unit id, in order of first measurement. */
  private readonly measured = new Map<string, Measured>();
  private readonly records: TableMeasurementRecord[] = [];
  private readonly featureSets: number;

  private readonly sizes: readonly number[];
  /** The mixed plan's up-front measurement of every workload table. */
  private readonly upfront: Upfront | undefined;
  /** Features whose paid one-way is their one-way unit's first measurement (not a start target). */
  private readonly seeded = new Set<number>();

  constructor(private readonly o: TableRoundsOptions) {
    const { weights, layout, start } = o.plan;
    this.sizes = layout.sizes;
    const { units, fallbacks } = measurementUnits(o.workload, weights, this.sizes);
    this.units = withGroupedVersions(units, start.groups, this.sizes);
    this.featureSets = units.length;
    this.fallbacks = fallbacks;
    // A paid one-way is its feature's one-way unit's first measurement: a round that measures
    // the unit again combines with it by inverse variance, cell by cell.
    for (const f of start.paidFeatures) {
      const unit = this.units.find((u) => u.id === String(f));
      if (!unit) continue;
      const own = start.oneWays[f];
      this.measured.set(unit.id, {
        unit,
        values: Float64Array.from(own.values),
        sigma: start.featureSigmas[f],
        variances: Float64Array.from(own.variances),
      });
      this.seeded.add(f);
    }
    if (o.plan.strategy === 'mixed') this.upfront = this.measureWorkloadTables();
  }

  /**
   * The mixed plan's first measurement: every distinct workload table of two or more features
   * (the one-way start already measured every feature), each as its grouped unit where one of
   * its features was compressed, together with the budget's direct share: ℓ2 sensitivity
   * √(2N)/n (measure.ts). Each becomes the unit's first measurement: the rounds may measure it
   * again, averaged by inverse variance. A table over the cell limit has no unit of its own (its
   * sub-tables are candidates of the rounds) and is not measured here; planRun refuses a mixed
   * plan with nothing to measure.
   */
  private measureWorkloadTables(): Upfront {
    const { budget, weights } = this.o.plan;
    const units = directTables(this.o.workload, weights, this.sizes).flatMap((t) => {
      const key = t.features.join(',');
      const whole = this.units.filter((u) => u.featureSet === key && u.features.length > 1);
      const unit = whole.find((u) => u.grouping) ?? whole[0];
      return unit ? [unit] : [];
    });
    const { rho, sigma } = budget.direct(units.length);
    let cells = 0;
    for (const unit of units) {
      cells += unit.cells;
      this.measureUnit(unit, sigma);
    }
    return { rho, sigma, tables: units.length, cells };
  }

  /**
   * Rounds until the budget is spent: each makes up to K measurements, then `project` fits D'
   * to every measurement so far.
   */
  async run(project: (problem: ProjectionBatch, round: RoundStart) => Promise<void>): Promise<void> {
    const { control, selectionTimer } = this.o;
    const { budget } = this.o.plan;
    let first = 1;
    if (this.upfront) {
      // D' fitted to every workload table before the first selection scores it (round 1).
      const { sigma } = this.upfront;
      const thresholds = this.o.workload.thresholds.map((_, ti) => ti);
      await project(this.problem(), { round: 1, roundsEstimate: this.roundsEstimate(1), thresholds, sigma });
      first = 2;
    }
    for (let round = first; !budget.done; round++) {
      await control.checkpoint();
      selectionTimer?.start();
      const picks = this.selectAndMeasure();
      selectionTimer?.stop();
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
      const annealed = !budget.done && moved <= expected;
      if (annealed) budget.anneal();
      for (const { unit, scales } of picks) {
        this.records.push({
          round,
          measurement: scales.measurement,
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

  /** D''s fit to every measured table (the one-ways included) after the last round. */
  fit(): { residualRms: number; noiseRms: number } {
    const { start } = this.o.plan;
    const tables = this.startTargets().map(({ target, f }) => ({ target, sigma: start.featureSigmas[f] }));
    for (const m of this.measured.values()) tables.push({ target: this.target(m), sigma: m.sigma });
    return measuredFit(this.o.session, tables, this.sizes);
  }

  trace(): AdaptiveTableTrace | MixedTableTrace {
    const { start, budget, roundBound } = this.o.plan;
    const rounds = {
      oneWay: { rho: start.rho, sigma: start.sigma, features: this.sizes.length, paid: start.paid },
      compressed: start.groups.flatMap((g, feature) =>
        g ? [{ feature, categories: this.sizes[feature], groups: g.count }] : [],
      ),
      roundBound,
      cellLimit: TABLE_CELL_LIMIT,
      fallbacks: this.fallbacks,
      measurements: this.records,
      rhoSpent: budget.rho - budget.remaining,
    };
    return this.upfront
      ? { strategy: 'mixed', ...rounds, upfront: this.upfront }
      : { strategy: 'adaptive', ...rounds };
  }

  private roundsEstimate(round: number): number {
    const { budget, perRound } = this.o.plan;
    const left = budget.remaining / budget.measurementRho;
    return budget.done ? round : round + Math.max(1, Math.round(left / perRound));
  }

  /** ‖exact − relaxed‖₁ of every unit on the current D' (a feature set's full tables once for both versions). */
  private gaps(): Float64Array {
    const { exact, session } = this.o;
    const sizes = this.sizes;
    const gaps = new Float64Array(this.units.length);
    // Every feature set's table on D' at once (the CPU threads share them out).
    const sets = new Map<string, number>();
    const tables: Threshold[] = [];
    for (const u of this.units) {
      if (sets.has(u.featureSet)) continue;
      sets.set(u.featureSet, tables.length);
      tables.push(unitTable(u.features));
    }
    const relaxed = session.answersOf(tables);
    let full: { featureSet: string; exact: Float64Array; relaxed: Float64Array } | undefined;
    this.units.forEach((u, i) => {
      if (full?.featureSet !== u.featureSet) {
        const at = sets.get(u.featureSet) as number;
        full = { featureSet: u.featureSet, exact: exact.of(tables[at]), relaxed: relaxed[at] };
      }
      const cells = unitCellMap(u, sizes);
      gaps[i] = l1(asUnit(u, full.exact, sizes, cells), asUnit(u, full.relaxed, sizes, cells));
    });
    return gaps;
  }

  /**
   * Up to K measurements, each selecting its unit by its own Gumbel-max on w·(gap − expected
   * noise ℓ1) with its measurement's σ (measured units stay candidates: re-measuring sharpens
   * them). They are all scored on the same D' (no fit in between), so a feature set measured
   * this round is not a candidate again until the next one.
   */
  private selectAndMeasure(): Pick[] {
    const { noise } = this.o;
    const { budget, perRound } = this.o.plan;
    const gaps = this.gaps();
    const taken = new Set<string>();
    const picks: Pick[] = [];
    while (picks.length < perRound && taken.size < this.featureSets && !budget.done) {
      const scales = budget.nextMeasurement();
      const open = this.units.flatMap((u, i) => (taken.has(u.featureSet) ? [] : [i]));
      const scores = Float64Array.from(open, (i) => {
        const u = this.units[i];
        return u.weight * (gaps[i] - expectedNoiseL1(scales.sigma, u.cells));
      });
      const unit = this.units[open[reportNoisyMax(scores, scales.gumbel, noise)]];
      taken.add(unit.featureSet);
      picks.push({ unit, scales, before: this.relaxedOf(unit) });
      this.measureUnit(unit, scales.sigma);
    }
    return picks;
  }

  /** The unit's table on D'. */
  private relaxedOf(unit: MeasurementUnit): Float64Array {
    return asUnit(unit, this.o.session.thresholdAnswers(unitTable(unit.features)), this.sizes);
  }

  /** Measures the unit's (private) table and merges it with the unit's earlier measurements. */
  private measureUnit(unit: MeasurementUnit, sigma: number): void {
    const exact = asUnit(unit, this.o.exact.of(unitTable(unit.features)), this.sizes);
    const fresh = measure(exact, sigma, this.o.noise);
    const old = this.measured.get(unit.id);
    if (!old) {
      this.measured.set(unit.id, { unit, values: fresh, sigma });
      return;
    }
    if (old.variances) {
      // A paid one-way's cells have their own variances: combined cell by cell.
      const both = combineInverseVariance(
        { values: old.values, variances: old.variances },
        uniform(fresh, sigma),
      );
      old.values = both.values;
      old.variances = Float64Array.from(both.variances);
      old.sigma = rmsSigma(both.variances);
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
    const { start } = this.o.plan;
    const all = [...this.measured.values()];
    const own = this.startTargets();
    let sigmaMin = Number.POSITIVE_INFINITY;
    for (const { f } of own)
      if (start.featureSigmas[f] > 0) sigmaMin = Math.min(sigmaMin, start.featureSigmas[f]);
    for (const m of all) if (m.sigma > 0) sigmaMin = Math.min(sigmaMin, m.sigma);
    const tables: TableTarget[] = own.map(({ target, f }) => ({
      ...target,
      weight: fitWeight(sigmaMin, start.featureSigmas[f]),
    }));
    for (const m of all) tables.push(this.target(m, fitWeight(sigmaMin, m.sigma)));
    return { groups: [], tables };
  }

  /** The start's one-way targets, less the paid ones that seeded their unit's measurement. */
  private startTargets(): { target: TableTarget; f: number }[] {
    return this.o.plan.start.targets.flatMap((target, f) => (this.seeded.has(f) ? [] : [{ target, f }]));
  }

  private target(m: Measured, scale = 1): TableTarget {
    return tableTarget(unitTable(m.unit.features), m.unit.weight * scale, m.values, m.unit.grouping);
  }
}

function l1(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
  return s;
}
