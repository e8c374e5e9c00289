/**
 * Budget arithmetic (zCDP: spends add up in ρ) and the messages a refused run shows. Pure
 * functions, so the admission rule and totals are tested against brute force.
 */
import { BudgetRefusedError } from '../errors.ts';
import { composeRho, epsilonFromRho } from '../privacy/accounting.ts';
import type { BudgetTotals, DatasetRecord } from './types.ts';

/**
 * Relative slack on the cap: a run that spends exactly what remains must pass even though
 * summing floating-point ρ values can overshoot the cap by a few ulps.
 */
export const CAP_TOLERANCE = 1e-12;

export const SET_CAP_HINT = 'rap-studio ledger set-cap --dataset FILE --epsilon E --delta D';

export function admits(capRho: number, spentRho: number, requestedRho: number): boolean {
  return spentRho + requestedRho <= capRho * (1 + CAP_TOLERANCE);
}

export function computeTotals(dataset: DatasetRecord, spends: readonly number[]): BudgetTotals {
  const spentRho = composeRho(spends);
  const base = { fingerprint: dataset.fingerprint, releases: spends.length, spentRho };
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
  const remainingRho = Math.max(0, cap.rho - spentRho);
  return {
    ...base,
    capRho: cap.rho,
    capEpsilon: epsilonFromRho(cap.rho, cap.delta),
    delta: cap.delta,
    spentEpsilon: epsilonFromRho(spentRho, cap.delta),
    remainingRho,
    remainingEpsilon: epsilonFromRho(remainingRho, cap.delta),
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
  request: { epsilon: number; delta: number; rho: number },
): BudgetRefusedError {
  const delta = totals.delta as number;
  const remainingRho = totals.remainingRho as number;
  const remainingEpsilon = totals.remainingEpsilon as number;
  return new BudgetRefusedError(
    `Run refused: dataset ${describeDataset(dataset)} has remaining budget ε=${fmt(remainingEpsilon)} at ` +
      `δ=${fmt(delta)} (ρ=${fmt(remainingRho)}), ${fmt(100 * (totals.remainingShare as number))}% of the cap ` +
      `ε=${fmt(totals.capEpsilon as number)} (ρ=${fmt(totals.capRho as number)}); this run needs ` +
      `ε=${fmt(request.epsilon)} at δ=${fmt(request.delta)} (ρ=${fmt(request.rho)}). ` +
      `Every reserved, committed and aborted run counts (${totals.releases} so far). ` +
      `Ask for a smaller ε, or, if your oversight policy allows, raise the cap: ${SET_CAP_HINT}`,
    remainingRho,
    remainingEpsilon,
  );
}
