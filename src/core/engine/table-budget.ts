/**
 * Table mode's zCDP budget schedule, after AIM (McKenna et al. 2022), with every noise scale
 * derived from a stated sensitivity (replace-one neighbours, tables normalized by n):
 *
 * - One-way start: the d one-way marginals measured together. Replacing a record moves two
 *   cells of each by 1/n, so the ℓ2 sensitivity is √(2d)/n and σ₀ = √(2d / (2ρ₀)) / n.
 * - Each round selects ONE measurement unit (a whole k-way table) by Gumbel-max (the
 *   exponential mechanism, ρ = ε²/8) on the score w·(‖exact − relaxed‖₁ − expected noise ℓ₁).
 *   A replaced record moves the exact table by 1/n in two cells, so the ℓ1 norm moves by at most
 *   2/n and, with w ≤ 1 (weights normalized to max 1), the score's sensitivity is 2/n:
 *   Gumbel scale β = (2/n)·√(1/(2ρ_select)).
 * - It then measures the unit with the Gaussian mechanism: ℓ2 sensitivity √2/n,
 *   σ = √(2 / (2ρ_measure)) / n.
 * - A round spends ρ_round, a fraction α to measurement and 1 − α to selection. ρ_round starts
 *   at ρ_rest / T₀ (T₀ a data-independent bound on the rounds) and is multiplied by 4 (σ halves)
 *   when a round's measurement barely moved the model (annealing). When what is left would not
 *   pay for two more rounds, the round spends all of it and is the last.
 *
 * Σ spent = ρ exactly, whatever the (adaptive) annealing decisions: they depend only on
 * measured (noisy) values, so adaptive zCDP composition with this fixed total applies.
 */
import { gaussianSigma, gumbelScale } from '../privacy/mechanisms.ts';

/**
 * Share of ρ for the one-way start. ADULT, 64 random 3-way marginals, present error at
 * ε = 0.1 / 1 (seed 1): 0.1 → 0.128 / 0.020, 0.2 → 0.092 / 0.019, 0.35 → 0.083 / 0.042.
 */
export const ONE_WAY_SHARE = 0.2;
/** Share of each round's ρ that measures (the rest selects), as in AIM. */
export const MEASURE_SHARE = 0.9;
/** ℓ1 sensitivity of a table-mode selection score (w ≤ 1): two cells move by 1/n. */
export const SCORE_SENSITIVITY_CELLS = 2;
/** ℓ2² sensitivity of one measured table, in cells moved by 1/n (two cells). */
export const TABLE_SENSITIVITY_CELLS = 2;

export interface RoundScales {
  /** 1-based round number. */
  readonly round: number;
  readonly rhoSelect: number;
  readonly rhoMeasure: number;
  /** Gumbel-max scale of the selection. */
  readonly gumbel: number;
  /** Gaussian σ of the measured table. */
  readonly sigma: number;
  /** This round spends what was left. */
  readonly final: boolean;
}

export interface OneWayScales {
  readonly rho: number;
  readonly sigma: number;
}

export class TableBudget {
  private spent = 0;
  private rounds = 0;
  private roundRho: number;
  private finished = false;

  /**
   * @param rho total zCDP budget of the run
   * @param n records (public)
   * @param initialRounds the bound on measurements (T₀·K): the first measurements' ρ is the
   *   budget after the one-way start divided by it
   */
  constructor(
    readonly rho: number,
    readonly n: number,
    initialRounds: number,
  ) {
    if (!(rho > 0 && Number.isFinite(rho))) throw new RangeError(`rho must be > 0, got ${rho}`);
    if (!Number.isSafeInteger(initialRounds) || initialRounds < 1) {
      throw new RangeError(`initial rounds must be an integer >= 1, got ${initialRounds}`);
    }
    this.roundRho = (rho * (1 - ONE_WAY_SHARE)) / initialRounds;
  }

  /** Spends the one-way share: σ₀ for the d one-way marginals measured together. */
  oneWay(features: number): OneWayScales {
    if (this.spent > 0) throw new Error('the one-way start comes first');
    const rho = this.rho * ONE_WAY_SHARE;
    this.spent += rho;
    return { rho, sigma: gaussianSigma(rho, TABLE_SENSITIVITY_CELLS * features, this.n) };
  }

  get remaining(): number {
    return Math.max(0, this.rho - this.spent);
  }

  get done(): boolean {
    return this.finished;
  }

  /** ρ of the next measurement (before annealing decisions still to come). */
  get measurementRho(): number {
    return this.roundRho;
  }

  get roundsSpent(): number {
    return this.rounds;
  }

  /** Spends the next round's ρ and returns its noise scales. */
  nextRound(): RoundScales {
    if (this.finished) throw new Error('the budget is spent');
    const left = this.remaining;
    const final = left < 2 * this.roundRho;
    const rhoRound = final ? left : this.roundRho;
    this.spent = final ? this.rho : this.spent + rhoRound;
    this.finished = final;
    this.rounds++;
    return scalesFor(this.rounds, rhoRound, this.n, final);
  }

  /** σ halves (ρ_round × 4) from the next round on: the last measurement barely moved the model. */
  anneal(): void {
    this.roundRho *= 4;
  }
}

export function scalesFor(round: number, rhoRound: number, n: number, final: boolean): RoundScales {
  const rhoMeasure = rhoRound * MEASURE_SHARE;
  const rhoSelect = rhoRound - rhoMeasure;
  return {
    round,
    rhoSelect,
    rhoMeasure,
    // gumbelScale's maxWeight is the score's sensitivity in units of 1/n.
    gumbel: gumbelScale(rhoSelect, 1, n, SCORE_SENSITIVITY_CELLS),
    sigma: gaussianSigma(rhoMeasure, TABLE_SENSITIVITY_CELLS, n),
    final,
  };
}

/** E‖N(0, σ²)^cells‖₁ = √(2/π)·σ·cells: the ℓ1 error a measurement of that many cells brings. */
export function expectedNoiseL1(sigma: number, cells: number): number {
  return Math.sqrt(2 / Math.PI) * sigma * cells;
}
