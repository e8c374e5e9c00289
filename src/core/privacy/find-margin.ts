/**
 * FindMarginExample (PREM, Ghazi et al. 2025, Alg. 2): given a candidate's (public) answers s
 * and the private answers t, find the queries the candidate gets wrong by more than the relative
 * margin, |s − t| > ζ·t + α, through a {@link RangeMonitor}.
 *
 * |s − t| ≤ ζt + α  ⇔  t ∈ [(s − α)/(1 + ζ), (s + α)/(1 − ζ)]  (0 < ζ < 1, t ≥ 0),
 *
 * so each query is one monitor check of t against that interval, whose ends are public (they
 * depend on s only). PREM's Alg. 2 returns the first such query; here a scan collects every one
 * the monitor reports until it halts or a chosen number is found (the same monitor, the same
 * privacy: only ⊤ answers are paid for), so one projection can fix several. Privacy is the monitor's; nothing else reads t.
 *
 * With the monitor's accuracy γ (range-monitor.ts) and margin α₀ = (1 + ζ)·γ, with probability
 * ≥ 1 − β (the monitor's β, over all its tests):
 * - a query the monitor passes ('inside') satisfies |s − t| ≤ ζ·t + α with α = 2(1 + ζ)·γ
 *   ({@link certifiedAlpha});
 * - a query with |s − t| ≤ ζ·t (its two tests have f ≤ −γ) is never reported, so a candidate
 *   that good everywhere is certified in one clean scan.
 */
import type { RangeAnswer, RangeMonitor } from './range-monitor.ts';

/** The interval of true answers t with |s − t| ≤ ζ·t + α. */
export function marginInterval(s: number, zeta: number, alpha: number): [number, number] {
  return [(s - alpha) / (1 + zeta), (s + alpha) / (1 - zeta)];
}

export function assertZeta(zeta: number): void {
  if (typeof zeta !== 'number' || !(zeta > 0 && zeta < 1)) {
    throw new RangeError(
      `zeta (the relative margin) must be a number with 0 < zeta < 1, got ${String(zeta)}`,
    );
  }
}

/** The margin the scan tests at, α₀ = (1 + ζ)·γ, for a monitor of accuracy γ. */
export function scanMargin(zeta: number, gamma: number): number {
  return (1 + zeta) * gamma;
}

/**
 * The certificate's α for queries the scan passed: the lower end gives t > (s − α₀)/(1 + ζ) − γ,
 * i.e. s − t < ζt + α₀ + (1 + ζ)γ; the upper end t < (s + α₀)/(1 − ζ) + γ, i.e.
 * t − s < ζt + α₀ + (1 − ζ)γ; so α = α₀ + (1 + ζ)γ = 2(1 + ζ)γ covers both.
 */
export function certifiedAlpha(zeta: number, gamma: number): number {
  return scanMargin(zeta, gamma) + (1 + zeta) * gamma;
}

/** A query reported outside its margin: which one, and on which side the true answer lies. */
export interface MarginViolation {
  readonly index: number;
  /** 'below': t is below the interval (the candidate answers too high); 'above': too low. */
  readonly side: Exclude<RangeAnswer, 'inside'>;
}

/**
 * One scan of a candidate over the workload's queries, fed a chunk of queries at a time (a
 * threshold's answers), in a fixed public order. It stops asking once the monitor halts.
 */
export class MarginScan {
  readonly violations: MarginViolation[] = [];
  /** Queries the monitor passed ('inside'). */
  inside = 0;
  /** Queries checked (inside or reported). */
  checked = 0;

  constructor(
    private readonly monitor: RangeMonitor,
    readonly zeta: number,
    /** α₀, the margin tested. */
    readonly margin: number,
    /** Stop asking once this many violations are found (the monitor keeps the rest of its c). */
    readonly stopAfter = Number.POSITIVE_INFINITY,
  ) {
    assertZeta(zeta);
  }

  /** The scan stopped asking: the monitor halted, or stopAfter violations were found. */
  get stopped(): boolean {
    return this.monitor.halted || this.violations.length >= this.stopAfter;
  }

  /** Checks queries offset … offset + exact.length − 1 (candidate answers s, private answers t). */
  scan(exact: Float64Array, candidate: Float64Array, offset: number): void {
    const { monitor, zeta, margin } = this;
    for (let i = 0; i < exact.length; i++) {
      if (this.stopped) return;
      const [lower, upper] = marginInterval(candidate[i], zeta, margin);
      const answer = monitor.check(exact[i], lower, upper);
      this.checked++;
      if (answer === 'inside') this.inside++;
      else this.violations.push({ index: offset + i, side: answer });
    }
  }

  /** The monitor halted before every query was checked, or some query was reported. */
  get clean(): boolean {
    return this.violations.length === 0 && !this.monitor.halted;
  }
}
