/**
 * Table mode's zCDP budget schedule, after AIM (McKenna et al. 2022); replace-one neighbours,
 * tables normalized by n, Gaussian sensitivities in measure.ts:
 * - One-way start: the d one-way marginals measured together: σ₀ = √(2d / (2ρ₀)) / n.
 * - A measurement selects ONE unit by Gumbel-max (exponential mechanism, ρ = ε²/8) on
 *   w·(‖exact − relaxed‖₁ − expected noise ℓ₁): a replaced record moves two cells of the exact
 *   table by 1/n, so with w ≤ 1 the score's sensitivity is 2/n and β = (2/n)·√(1/(2ρ_select));
 *   then it measures the unit's table: σ = √(2 / (2ρ_measure)) / n.
 * - ρ_m starts at ρ_rest / B (B = T₀·K, the data-independent measurement bound) and is
 *   multiplied by 4 (σ halves) when a round barely moved the model (annealing); when what is
 *   left would not pay two more measurements, the next one spends all of it and is the last.
 * - The mixed plan spends a direct share between the two: every workload table (N) measured
 *   together, σ = √(2N / (2ρ_d)) / n; the measurements then share what is left.
 * Σ spent = ρ exactly, whatever the annealing decisions. Plain composition would need every ρᵢ
 * fixed in advance; here ρᵢ is chosen from earlier noisy outputs, so the guarantee is a zCDP
 * privacy filter's: adaptively chosen ρᵢ halted before Σρᵢ exceeds ρ is ρ-zCDP (Feldman & Zrnic
 * 2021, Thm. 3.1, the Rényi filter; Whitehouse, Ramdas, Rogers & Wu 2023 for zCDP directly).
 * See docs/privacy.md, "Why that is ρ-zCDP".
 */
import { gumbelScale } from '../../privacy/mechanisms.ts';
import { measurementSigma } from '../measure.ts';

/**
 * Share of ρ for the one-way start. ADULT, 64 random 3-way marginals, present error at
 * ε = 0.1 / 1 (seed 1): 0.1 → 0.128 / 0.020, 0.2 → 0.092 / 0.019, 0.35 → 0.083 / 0.042.
 */
export const ONE_WAY_SHARE = 0.2;
/**
 * The mixed plan's share of ρ measuring every workload table up front (the rounds get what the
 * one-way start and this leave). ADULT, 64 random 3-way marginals, ε = 0.1, released CSV, seeds
 * 0–4 (mean): share 0 (adaptive) 0.050 / 0.037 / 0.029 / 0.034 / 0.058 (0.0416); 0.3 → 0.0366;
 * 0.5 → 0.027 / 0.034 / 0.039 / 0.030 / 0.037 (0.0334); 0.7 → 0.0341; the direct plan (0.9)
 * 0.0488. With 0.5 the one-way share 0.1 gave 0.0445 and 0.3 gave 0.0349: 0.2 kept. Seeds 5–9,
 * not used to choose: 0.5 → 0.0339 mean, adaptive 0.0410.
 */
export const MIXED_DIRECT_SHARE = 0.5;
/** Share of each measurement's ρ that measures (the rest selects), as in AIM. */
export const MEASURE_SHARE = 0.9;
/** ℓ1 sensitivity of a table-mode selection score (w ≤ 1): two cells move by 1/n. */
export const SCORE_SENSITIVITY_CELLS = 2;
export interface MeasurementScales {
  /** 1-based measurement number. */
  readonly measurement: number;
  readonly rhoSelect: number;
  readonly rhoMeasure: number;
  /** Gumbel-max scale of the selection. */
  readonly gumbel: number;
  /** Gaussian σ of the measured table. */
  readonly sigma: number;
  /** This measurement spends what was left. */
  readonly final: boolean;
}

export class TableBudget {
  private spent = 0;
  private measurements = 0;
  private rhoNext: number;
  private finished = false;
  private directSpent = false;

  /**
   * @param rho total zCDP budget of the run
   * @param n records (public)
   * @param measurementBound B = T₀·K: the first measurements' ρ is the budget after the one-way
   *   start divided by B
   */
  constructor(
    readonly rho: number,
    readonly n: number,
    measurementBound: number,
    /** Share of ρ the one-way start spends. */
    private readonly oneWayShare = ONE_WAY_SHARE,
    /** Share of ρ measuring every workload table up front (the mixed plan; 0: none). */
    readonly directShare = 0,
    /** Rows one unit moves (1; k at the person level: measure.ts). */
    readonly bound = 1,
  ) {
    if (!(rho > 0 && Number.isFinite(rho))) throw new RangeError(`rho must be > 0, got ${rho}`);
    if (!Number.isSafeInteger(measurementBound) || measurementBound < 1) {
      throw new RangeError(`the measurement bound must be an integer >= 1, got ${measurementBound}`);
    }
    if (!(directShare >= 0 && oneWayShare + directShare < 1)) {
      throw new RangeError(`the up-front shares must leave some of ρ, got ${oneWayShare} + ${directShare}`);
    }
    this.rhoNext = (rho * (1 - oneWayShare - directShare)) / measurementBound;
  }

  /** Spends the direct share: σ for N tables measured together. */
  direct(tables: number): { rho: number; sigma: number } {
    if (!(this.directShare > 0)) throw new Error('this budget has no direct share');
    if (this.measurements > 0 || this.directSpent) {
      throw new Error('the direct share is spent once, before the rounds');
    }
    const rho = this.rho * this.directShare;
    this.spent += rho;
    this.directSpent = true;
    return { rho, sigma: measurementSigma(rho, { tables }, this.n, this.bound) };
  }

  /** Spends the one-way share: σ₀ for the d one-way marginals measured together. */
  oneWay(features: number): { rho: number; sigma: number } {
    if (this.spent > 0) throw new Error('the one-way start comes first');
    const rho = this.rho * this.oneWayShare;
    this.spent += rho;
    return { rho, sigma: measurementSigma(rho, { tables: features }, this.n, this.bound) };
  }

  get remaining(): number {
    return Math.max(0, this.rho - this.spent);
  }

  get done(): boolean {
    return this.finished;
  }

  /** ρ of the next measurement (before annealing decisions still to come). */
  get measurementRho(): number {
    return this.rhoNext;
  }

  /** Spends the next measurement's ρ and returns its noise scales. */
  nextMeasurement(): MeasurementScales {
    if (this.finished) throw new Error('the budget is spent');
    const left = this.remaining;
    const final = left < 2 * this.rhoNext;
    const rhoM = final ? left : this.rhoNext;
    this.spent = final ? this.rho : this.spent + rhoM;
    this.finished = final;
    this.measurements++;
    return scalesFor(this.measurements, rhoM, this.n, final, this.bound);
  }

  /** σ halves (ρ_m × 4) from the next measurement on: the last round barely moved the model. */
  anneal(): void {
    this.rhoNext *= 4;
  }
}

export function scalesFor(
  measurement: number,
  rhoM: number,
  n: number,
  final: boolean,
  bound = 1,
): MeasurementScales {
  const rhoMeasure = rhoM * MEASURE_SHARE;
  const rhoSelect = rhoM - rhoMeasure;
  return {
    measurement,
    rhoSelect,
    rhoMeasure,
    // gumbelScale's maxWeight is the score's sensitivity in units of 1/n (× k per person).
    gumbel: gumbelScale(rhoSelect, 1, n, bound * SCORE_SENSITIVITY_CELLS),
    sigma: measurementSigma(rhoMeasure, { tables: 1 }, n, bound),
    final,
  };
}

/** E‖N(0, σ²)^cells‖₁ = √(2/π)·σ·cells: the ℓ1 error a measurement of that many cells brings. */
export function expectedNoiseL1(sigma: number, cells: number): number {
  return Math.sqrt(2 / Math.PI) * sigma * cells;
}
