/**
 * `--max-rounds R`: a run planned for T > R rounds runs only R rounds, at the ε whose ρ is
 * ρ(ε)·R/T, so every round gets the same budget (the same noise scales) as in the full run and
 * the R rounds are a faithful prefix of it. Its times are then extrapolated to T rounds:
 * rounds 2..R (round 1 also holds kernel start-up) are fitted by a line in the round number —
 * projection cost grows with the queries measured so far — and setup plus the final evaluation,
 * which do not depend on T, are counted once. Error figures of such a run are NOT those of the
 * full run, and tables print them as not available.
 */

import type { ProgressEvent } from '../../src/core/engine/types.ts';
import { epsilonFromRho, rhoFromEpsilon } from '../../src/core/privacy/accounting.ts';

/** ε for R of T rounds at the same per-round ρ. */
export function prefixEpsilon(epsilon: number, delta: number, measured: number, target: number): number {
  return epsilonFromRho((rhoFromEpsilon(epsilon, delta) * measured) / target, delta);
}

/** Least-squares line y = a + b·x. */
export function fitLine(xs: readonly number[], ys: readonly number[]): { a: number; b: number } {
  const n = xs.length;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const b = sxx > 0 ? sxy / sxx : 0;
  return { a: my - b * mx, b };
}

/**
 * Seconds of rounds 1..target from the measured durations of rounds 1..R (R ≥ 1): measured ones
 * as they are, later ones from a non-decreasing line through rounds 2..R (a constant when fewer
 * than two such rounds exist).
 */
export function extrapolateRounds(roundSeconds: readonly number[], target: number): number {
  const R = roundSeconds.length;
  if (R === 0) throw new RangeError('no measured rounds to extrapolate from');
  const measured = roundSeconds.reduce((s, x) => s + x, 0);
  if (target <= R) return roundSeconds.slice(0, target).reduce((s, x) => s + x, 0);
  const later = roundSeconds.slice(1);
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  let predict: (round: number) => number;
  if (later.length >= 2) {
    const { a, b } = fitLine(
      later.map((_, i) => i + 2),
      later,
    );
    // A falling trend is noise (or warm-start luck): do not let it shrink later rounds.
    predict = b >= 0 ? (t) => a + b * t : () => mean(later);
  } else {
    const level = later.length === 1 ? later[0] : roundSeconds[0];
    predict = () => level;
  }
  let rest = 0;
  for (let t = R + 1; t <= target; t++) rest += Math.max(0, predict(t));
  return measured + rest;
}

/** Round durations from the engine's progress events (each round ends with a forced event). */
export class RoundClock {
  private readonly ends: number[] = [];

  observe(e: ProgressEvent): void {
    this.ends[e.round - 1] = Math.max(this.ends[e.round - 1] ?? 0, e.elapsedSeconds);
  }

  /** Duration of each round seen, round 1 measured from the start of the run. */
  roundSeconds(): number[] {
    const out: number[] = [];
    let previous = 0;
    for (const end of this.ends) {
      if (end === undefined) continue;
      out.push(end - previous);
      previous = end;
    }
    return out;
  }
}
