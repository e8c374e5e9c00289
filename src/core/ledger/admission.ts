/**
 * Budget arithmetic and the messages a refused run shows. Pure functions, so the admission rule
 * and totals are tested against brute force.
 *
 * Every release is δᵢ-approximately ρᵢ-zCDP (δᵢ = 0 unless it runs partition selection).
 * Approximate zCDP composes by adding both (Bun & Steinke 2016, Lemma 8.3 / Def. 1.9): the
 * releases so far are (Σδᵢ)-approximately (Σρᵢ)-zCDP, hence (ε(Σρᵢ, δ′), δ′ + Σδᵢ)-DP for any
 * δ′ > 0 (the conversion, accounting.ts). Against a cap (ε_cap, δ_cap) the best δ′ is
 * δ_cap − Σδᵢ, so the ledger admits a release (ρ, δ_r) iff
 *   Σδᵢ + δ_r < δ_cap   and   Σρᵢ + ρ ≤ ρ(ε_cap, δ_cap − Σδᵢ − δ_r).
 */
import { BudgetRefusedError } from '../errors.ts';
import { composeRho, epsilonFromRho, rhoFromEpsilon } from '../privacy/accounting.ts';
import type { BudgetCap, BudgetTotals, DatasetRecord } from './types.ts';

/** One release's charge: its ρ and the δ of its approximate-zCDP part (0 when none). */
export interface Spend {
  readonly rho: number;
  readonly approxDelta: number;
}

/**
 * Relative slack on the cap: a run that spends exactly what remains must pass even though
 * summing floating-point ρ values can overshoot the cap by a few ulps.
 */
export const CAP_TOLERANCE = 1e-12;

export const SET_CAP_HINT = 'rap-studio ledger set-cap --dataset FILE --epsilon E --delta D';

/** Σδ (plain sum: these δ's are probabilities of bad events, which add by the union bound). */
export function composeDelta(deltas: readonly number[]): number {
  return deltas.reduce((a, b) => a + b, 0);
}

/**
 * The ρ a cap allows once `spentDelta` of its δ is spent outside ρ: ρ(ε_cap, δ_cap − spentDelta),
 * 0 when nothing of δ_cap is left. With spentDelta = 0 it is the cap's own ρ (stored, so a cap
 * set before this rule reads the same).
 */
export function capRhoAfter(cap: Pick<BudgetCap, 'rho' | 'epsilon' | 'delta'>, spentDelta: number): number {
  if (spentDelta === 0) return cap.rho;
  const left = cap.delta - spentDelta;
  return left > 0 ? rhoFromEpsilon(cap.epsilon, left) : 0;
}

/**
 * Whether the cap pays for `request` after `spent`: the δ's stay below the cap's δ, and the ρ's
 * within the ρ that what is left of the cap's δ converts ε_cap to (see the file comment).
 */
export function admits(
  cap: Pick<BudgetCap, 'rho' | 'epsilon' | 'delta'>,
  spent: Spend,
  request: Spend,
): boolean {
  const delta = spent.approxDelta + request.approxDelta;
  if (!(delta < cap.delta)) return false;
  return spent.rho + request.rho <= capRhoAfter(cap, delta) * (1 + CAP_TOLERANCE);
}

export function computeTotals(dataset: DatasetRecord, spends: readonly Spend[]): BudgetTotals {
  const spentRho = composeRho(spends.map((s) => s.rho));
  const spentApproxDelta = composeDelta(spends.map((s) => s.approxDelta));
  const base = { fingerprint: dataset.fingerprint, releases: spends.length, spentRho, spentApproxDelta };
  const cap = dataset.cap;
  if (!cap) {
    return {
      ...base,
      capRho: null,
      capEpsilon: null,
      delta: null,
      spentEpsilon: null,
      remainingRho: null,
      remainingEpsilon: null,
      remainingShare: null,
    };
  }
  const deltaLeft = cap.delta - spentApproxDelta;
  const remainingRho = Math.max(0, capRhoAfter(cap, spentApproxDelta) - spentRho);
  return {
    ...base,
    capRho: cap.rho,
    capEpsilon: epsilonFromRho(cap.rho, cap.delta),
    delta: cap.delta,
    spentEpsilon: deltaLeft > 0 ? epsilonFromRho(spentRho, deltaLeft) : Number.POSITIVE_INFINITY,
    remainingRho,
    remainingEpsilon: deltaLeft > 0 ? epsilonFromRho(remainingRho, deltaLeft) : 0,
    remainingShare: remainingRho / cap.rho,
  };
}

/** Six significant digits, without trailing zeros; small values as 1e-6 rather than 0.000001. */
export function fmt(x: number): string {
  const n = Number(x.toPrecision(6));
  return n !== 0 && Math.abs(n) < 1e-3 ? n.toExponential() : String(n);
}

export function describeDataset(d: { name: string; fingerprint: string }): string {
  return `"${d.name}" (sha256 ${d.fingerprint.slice(0, 12)}…)`;
}

export function noCapRefusal(fingerprint: string, dataset: DatasetRecord | undefined): BudgetRefusedError {
  const which = dataset
    ? `dataset ${describeDataset(dataset)} has no privacy budget cap`
    : `dataset with sha256 ${fingerprint} is not in the ledger and has no privacy budget cap`;
  return new BudgetRefusedError(
    `Run refused: ${which}, so the remaining budget is ε=0 (ρ=0). ` +
      `A curator must set one before any release: ${SET_CAP_HINT}`,
    0,
    0,
  );
}

export function overCapRefusal(
  dataset: DatasetRecord,
  totals: BudgetTotals,
  request: { epsilon: number; delta: number; rho: number; approxDelta?: number },
): BudgetRefusedError {
  const delta = totals.delta as number;
  const remainingRho = totals.remainingRho as number;
  const remainingEpsilon = totals.remainingEpsilon as number;
  const requestDelta = request.approxDelta ?? 0;
  // Which of the two conditions fails: δ first (no ρ can be paid once the δ's reach the cap's).
  const deltaShort = !(totals.spentApproxDelta + requestDelta < delta);
  const deltaWords =
    totals.spentApproxDelta > 0 || requestDelta > 0
      ? ` Partition selection's δ is charged outside ρ: ${fmt(totals.spentApproxDelta)} of the cap's δ=${fmt(delta)} ` +
        `is spent, this run's discovery needs ${fmt(requestDelta)}${deltaShort ? ', which the cap cannot pay' : ''}.`
      : '';
  return new BudgetRefusedError(
    `Run refused: dataset ${describeDataset(dataset)} has remaining budget ε=${fmt(remainingEpsilon)} at ` +
      `δ=${fmt(delta)} (ρ=${fmt(remainingRho)}), ${fmt(100 * (totals.remainingShare as number))}% of the cap ` +
      `ε=${fmt(totals.capEpsilon as number)} (ρ=${fmt(totals.capRho as number)}); this run needs ` +
      `ε=${fmt(request.epsilon)} at δ=${fmt(request.delta)} (ρ=${fmt(request.rho)}).${deltaWords} ` +
      `Every reserved, committed and aborted run counts (${totals.releases} so far). ` +
      `Ask for a smaller ε, or, if your oversight policy allows, raise the cap: ${SET_CAP_HINT}`,
    remainingRho,
    remainingEpsilon,
  );
}
