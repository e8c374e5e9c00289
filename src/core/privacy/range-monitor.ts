/**
 * RangeMonitor (PREM, Ghazi et al. 2025, the pure-DP RangeMonitor through the sparse vector
 * technique): for a stream of (private value, lower, upper) triples it answers whether the value
 * lies inside [lower, upper], and pays only for the answers that fall outside.
 *
 * Each triple is two sparse-vector tests against threshold 0 — "below": lower − v, then
 * "above": v − upper — each of sensitivity Δ when v is a normalized count (the bounds are
 * public). A test answers ⊤ when f + ν ≥ T̂ with one noisy threshold T̂ = Lap(Δ/ε₁) drawn once and
 * fresh ν = Lap(2cΔ/ε₂) per test; after c answers ⊤ the monitor halts.
 *
 * Privacy (Lyu, Su & Li 2017, "Understanding the Sparse Vector Technique for Differential
 * Privacy", Alg. 1 / Thm. 2): (ε₁ + ε₂)-DP for any number of adaptively chosen tests, the
 * thresholds and bounds public. Pure ε-DP implies ε²/2-zCDP (Bun & Steinke 2016, Prop. 1.4), the
 * ledger's currency: {@link rangeMonitorScales} takes ρ and uses ε = √(2ρ).
 *
 * Accuracy: with probability ≥ 1 − β, over at most N tests, T̂ ≤ (Δ/ε₁)·ln(1/β) and every
 * −ν ≤ (2cΔ/ε₂)·ln(N/β) (one-sided Laplace tails, ½e^{−x}, union bound, β/2 each), so every test
 * answered ⊥ has f < γ and every test answered ⊤ has f > −γ, with
 * γ = (Δ/ε₁)·ln(1/β) + (2cΔ/ε₂)·ln(N/β). The split ε₁ : ε₂ = √ln(1/β) : √(2c·ln(N/β)) minimises γ
 * (γ = Δ·(√a + √b)²/ε with a = ln(1/β), b = 2c·ln(N/β)); it is fixed from public numbers only.
 */
import type { NoiseSource } from './noise.ts';

export interface RangeMonitorParams {
  /** zCDP cost of the whole monitor (ε = √(2ρ) of pure DP). */
  readonly rho: number;
  /** Sensitivity Δ of every monitored value (1/n for a normalized count under replace-one). */
  readonly sensitivity: number;
  /** c: the monitor halts after this many answers outside. */
  readonly maxOutside: number;
  /** N: the most tests the monitor will run (two per triple); its accuracy is stated over N. */
  readonly maxTests: number;
  /** The accuracy statement's failure probability β. */
  readonly beta: number;
}

export interface RangeMonitorScales {
  /** Pure-DP ε = √(2ρ) = ε₁ + ε₂. */
  readonly epsilon: number;
  readonly epsilon1: number;
  readonly epsilon2: number;
  /** Laplace scale of the threshold, Δ/ε₁. */
  readonly thresholdScale: number;
  /** Laplace scale of each test, 2cΔ/ε₂. */
  readonly testScale: number;
  /** γ: with probability ≥ 1 − β every ⊥ test has f < γ and every ⊤ test f > −γ. */
  readonly accuracy: number;
}

function positive(value: number, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${what} must be a finite number > 0, got ${String(value)}`);
  }
}

function integerAtLeast1(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${what} must be an integer >= 1, got ${String(value)}`);
  }
}

/** The monitor's noise scales and accuracy γ, from public parameters only. */
export function rangeMonitorScales(p: RangeMonitorParams): RangeMonitorScales {
  positive(p.rho, 'rho');
  positive(p.sensitivity, 'sensitivity');
  integerAtLeast1(p.maxOutside, 'maxOutside (c)');
  integerAtLeast1(p.maxTests, 'maxTests (N)');
  if (!(p.beta > 0 && p.beta < 1)) throw new RangeError(`beta must be in (0, 1), got ${String(p.beta)}`);
  const epsilon = Math.sqrt(2 * p.rho);
  const a = Math.log(1 / p.beta);
  const b = 2 * p.maxOutside * Math.log(p.maxTests / p.beta);
  const epsilon1 = (epsilon * Math.sqrt(a)) / (Math.sqrt(a) + Math.sqrt(b));
  const epsilon2 = epsilon - epsilon1;
  const thresholdScale = p.sensitivity / epsilon1;
  const testScale = (2 * p.maxOutside * p.sensitivity) / epsilon2;
  const accuracy = thresholdScale * a + testScale * Math.log(p.maxTests / p.beta);
  return { epsilon, epsilon1, epsilon2, thresholdScale, testScale, accuracy };
}

/** Where a monitored value was found: inside [lower, upper], below lower, or above upper. */
export type RangeAnswer = 'inside' | 'below' | 'above';

/** Thrown when a halted monitor is asked again, or asked more tests than its accuracy covers. */
export class MonitorExhaustedError extends Error {}

export class RangeMonitor {
  readonly scales: RangeMonitorScales;
  private readonly threshold: number;
  private outside = 0;
  private tests = 0;

  constructor(
    readonly params: RangeMonitorParams,
    private readonly noise: NoiseSource,
  ) {
    this.scales = rangeMonitorScales(params);
    this.threshold = this.laplace(this.scales.thresholdScale);
  }

  private laplace(scale: number): number {
    return scale * (this.noise.exponential() - this.noise.exponential());
  }

  /** The sparse vector's test: is f + ν ≥ T̂ (⊤)? Counts toward N and, when ⊤, toward c. */
  private test(f: number): boolean {
    if (this.halted) throw new MonitorExhaustedError('the range monitor has halted (c answers outside)');
    if (this.tests >= this.params.maxTests) {
      throw new MonitorExhaustedError(`the range monitor was declared for ${this.params.maxTests} tests`);
    }
    this.tests++;
    const above = f + this.laplace(this.scales.testScale) >= this.threshold;
    if (above) this.outside++;
    return above;
  }

  /**
   * Is the private value inside [lower, upper]? `value` must have sensitivity Δ and the bounds must
   * be public (computed from earlier public outputs only). 'below' / 'above' count toward c.
   */
  check(value: number, lower: number, upper: number): RangeAnswer {
    if (this.test(lower - value)) return 'below';
    if (this.test(value - upper)) return 'above';
    return 'inside';
  }

  /** True once c answers fell outside: no further check is allowed. */
  get halted(): boolean {
    return this.outside >= this.params.maxOutside;
  }

  get outsideCount(): number {
    return this.outside;
  }

  get testCount(): number {
    return this.tests;
  }
}
