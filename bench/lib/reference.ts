/**
 * Published figures to compare against, resolved per row.
 * - RAP's best present error on ADULT 3-way marginals (unfiltered), as regressed by Avent &
 *   Korolova: a + b·ln|W| for ε ∈ {0.01, 0.1, 1}.
 * - Avent & Korolova's throughput: ≈ 3.5·10^7 1-of-4 queries on LOANS in 1,240 s on an
 *   RTX 3090 (≈ 28,000 queries/s).
 * - AIM (McKenna et al. 2022) measured on this machine (issue 11): ADULT, 64 random 3-way
 *   marginals, δ = 1/n², seed 0: max error 0.056 at ε = 0.1 and 0.016 at ε = 1.
 */
import type { DatasetId } from './types.ts';

/** The row facts a reference depends on. */
export interface ReferenceKey {
  readonly dataset: DatasetId;
  readonly k: number;
  readonly r: number;
  readonly thresholds: number;
  readonly epsilon: number;
}

export interface ReferenceValue {
  readonly value: number;
  readonly source: string;
}

export interface RowReferences {
  /** Present (max) error figures, best first. */
  readonly error: readonly ReferenceValue[];
  readonly queriesPerSecond?: ReferenceValue;
}

/** ε → [a, b] of RAP's best present error a + b·ln|W| on ADULT 3-way marginals. */
export const RAP_ADULT_REGRESSION: ReadonlyMap<number, readonly [number, number]> = new Map([
  [0.01, [0.032, 0.065]],
  [0.1, [0.0254, 0.0122]],
  [1, [0.0072, 0.005]],
]);

export const AVENT_KOROLOVA_LOANS = { queries: 3.5e7, seconds: 1240, hardware: 'RTX 3090' } as const;
export const AVENT_KOROLOVA_QPS = AVENT_KOROLOVA_LOANS.queries / AVENT_KOROLOVA_LOANS.seconds;

/** ε → AIM's max error on ADULT with 64 random 3-way marginals. */
export const AIM_ADULT_64: ReadonlyMap<number, number> = new Map([
  [0.1, 0.056],
  [1, 0.016],
]);

const isAdultMarginal3 = (k: ReferenceKey) => k.dataset === 'adult' && k.k === 3 && k.r === 3;

/** RAP's regressed best present error for |W| marginals at ε, or undefined off the regression's ε. */
export function rapAdultReference(epsilon: number, thresholds: number): number | undefined {
  const ab = RAP_ADULT_REGRESSION.get(epsilon);
  return ab ? ab[0] + ab[1] * Math.log(thresholds) : undefined;
}

export function referencesFor(key: ReferenceKey): RowReferences {
  const error: ReferenceValue[] = [];
  if (isAdultMarginal3(key)) {
    const aim = key.thresholds === 64 ? AIM_ADULT_64.get(key.epsilon) : undefined;
    if (aim !== undefined) error.push({ value: aim, source: 'AIM' });
    const rap = rapAdultReference(key.epsilon, key.thresholds);
    if (rap !== undefined) error.push({ value: rap, source: 'RAP' });
  }
  const loans1of4 = key.dataset === 'loans-synthetic' && key.k === 4 && key.r === 1;
  return {
    error: error.sort((a, b) => a.value - b.value),
    ...(loans1of4 ? { queriesPerSecond: { value: AVENT_KOROLOVA_QPS, source: 'A&K RTX 3090' } } : {}),
  };
}

/** The lines for the table's header. */
export const REFERENCE_NOTES: readonly string[] = [
  `Avent & Korolova: 3.5·10^7 1-of-4 queries on LOANS in ${AVENT_KOROLOVA_LOANS.seconds} s on an ${AVENT_KOROLOVA_LOANS.hardware} ≈ ${Math.round(AVENT_KOROLOVA_QPS).toLocaleString('en-US')} queries/s.`,
  `RAP's best present error on ADULT 3-way marginals (Avent & Korolova's regression): ${[
    ...RAP_ADULT_REGRESSION,
  ]
    .map(([eps, [a, b]]) => `${a} + ${b}·ln|W| at ε = ${eps}`)
    .join('; ')}.`,
  `AIM on ADULT, 64 random 3-way marginals (issue 11, this machine): ${[...AIM_ADULT_64]
    .map(([eps, v]) => `${v} at ε = ${eps}`)
    .join(', ')}.`,
];
