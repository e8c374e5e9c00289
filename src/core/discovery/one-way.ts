/**
 * Discovery's noisy histograms mapped onto a discovered column's released codes: the column's
 * one-way marginal, already paid for, with each code's variance (post-processing of discovery's
 * outputs: no privacy cost). The engine takes it as the column's one-way measurement instead of
 * measuring it again (src/core/engine/paid-one-ways.ts), so the budget is spent once.
 *
 * Each code's count is an unbiased (or bias-corrected) sum of noisy counts, and its variance the
 * sum of theirs; every record of the column lands in exactly one code, so the codes' estimates
 * cover the records the encoder puts there (the encoder itself assigns every measured bucket,
 * value and key to its code: no second copy of the binning rules).
 *
 * Numeric (numeric.ts): inside each occupied octave the level-1 total t (σ₁) and the s level-2
 * buckets y_g (σ₂ each) measure the same records twice; their best linear unbiased combination is
 * ĉ_g = y_g + k·(t − Σ y), k = σ₂² / (σ₁² + s·σ₂²), with Cov(ĉ) = σ₂²·I − k·σ₂²·J (J all ones):
 * a code holding a of the octave's buckets has variance a·σ₂² − k·σ₂²·a² from it (a whole octave:
 * σ₁²·s·σ₂²/(σ₁² + s·σ₂²), below both). Octaves are independent, so a code's variances add. The
 * zero bucket is level 1's count (σ₁²), the missing code level 1's missing-and-text count (2σ₁²).
 * Records in octaves discovery did not find occupied (under 4σ₁, or 1.5σ₁ next to one) are not
 * counted: a small downward bias in the end codes, far below the noise of adding ~160 noisy
 * octaves.
 *
 * Categorical (categorical.ts): a released key's noisy count (σ of partition selection), "(other)"
 * (or the fallback key holding its records) n − Σ kept noisy counts (kept·σ²). Partition selection
 * conditions on passing, so a key near the threshold τ is released with a high draw: as for
 * "(other)" (otherCount), a kept key within 2σ of τ is corrected by −√(2/π)·σ (E[Z | Z > 0]), the
 * same amount "(other)" gets back, so the codes still add up to n; and its variance is stated as
 * σ²·(1 + 2/π), the correction's own size added, since the true bias is between ≈0.05σ (a key
 * 2σ above τ) and more than √(2/π)·σ (a key below τ). Correction, not re-measurement: measuring a
 * column's one-way again costs a whole column's share whatever few keys need it.
 */
import { columnEncoder } from '../data/encode.ts';
import { type CategoricalColumn, domainSizes, type NumericColumn, type Schema } from '../data/schema.ts';
import type { SelectedKey } from '../privacy/partition-selection.ts';
import type { NumericMeasured } from './numeric.ts';
import { MISSING_KEY } from './profile.ts';

/** A column's one-way marginal from discovery: record counts per released code, and variances. */
export interface DiscoveredOneWay {
  readonly counts: Float64Array;
  readonly variances: Float64Array;
}

/** E[Z | Z > 0] for a standard normal: the selection bias of a key held by about τ records. */
export const SELECTION_BIAS = Math.sqrt(2 / Math.PI);
/** A kept key within this many σ of τ is corrected (the same rule as otherCount's). */
export const NEAR_THRESHOLD_SIGMAS = 2;

/** Codes of a column: its categories or bins, then the missing code when it has one. */
function codesOf(column: NumericColumn | CategoricalColumn): number {
  const values = column.kind === 'numeric' ? column.edges.length - 1 : column.categories.length;
  return values + (column.missing ? 1 : 0);
}

/** The code the release's encoder gives a raw value (MISSING_KEY: a missing cell). */
function encoderOf(column: NumericColumn | CategoricalColumn): (value: string) => number {
  const encode = columnEncoder(column, { missingMarkers: [MISSING_KEY], outOfDomain: 'other' });
  return (value) => {
    const code = encode(value);
    if (typeof code !== 'number') throw new Error(`internal: discovery's column "${column.name}": ${code}`);
    return code;
  };
}

/** A bucket's value that stands for all of it: its middle (an integer inside it for integer columns). */
function representative(lo: number, hi: number, integer: boolean): number | undefined {
  if (!integer) return (lo + hi) / 2;
  const first = Math.ceil(lo);
  const last = Math.ceil(hi) - 1;
  return last < first ? undefined : Math.floor((first + last) / 2);
}

export function numericOneWay(column: NumericColumn, m: NumericMeasured): DiscoveredOneWay {
  const size = codesOf(column);
  const counts = new Float64Array(size);
  const variances = new Float64Array(size);
  const code = encoderOf(column);
  const s1 = m.level1Sigma ** 2;
  const s2 = m.level2Sigma ** 2;
  for (const octave of m.octaves) {
    const s = octave.buckets.length;
    const sum = octave.buckets.reduce((a, b) => a + b.count, 0);
    const k = s2 / (s1 + s * s2);
    const held = new Map<number, number>();
    for (const b of octave.buckets) {
      const x = representative(b.lo, b.hi, column.integer);
      if (x === undefined) continue;
      const c = code(String(x));
      counts[c] += b.count + k * (octave.total - sum);
      held.set(c, (held.get(c) ?? 0) + 1);
    }
    for (const [c, a] of held) variances[c] += a * s2 - k * s2 * a * a;
  }
  if (m.zero !== undefined) {
    const c = code('0');
    counts[c] += m.zero;
    variances[c] += s1;
  }
  const missing = code(MISSING_KEY);
  counts[missing] += m.missing.count;
  variances[missing] += m.missing.sigma ** 2;
  return { counts, variances };
}

export function categoricalOneWay(
  column: CategoricalColumn,
  n: number,
  kept: readonly SelectedKey[],
  selection: { readonly sigma: number; readonly threshold: number },
): DiscoveredOneWay {
  const size = codesOf(column);
  const counts = new Float64Array(size);
  const variances = new Float64Array(size);
  const code = encoderOf(column);
  const { sigma, threshold } = selection;
  const correction = SELECTION_BIAS * sigma;
  let rest = n;
  let restVariance = 0;
  for (const k of kept) {
    const near = k.noisyCount < threshold + NEAR_THRESHOLD_SIGMAS * sigma;
    const estimate = near ? k.noisyCount - correction : k.noisyCount;
    const v = sigma ** 2 * (near ? 1 + SELECTION_BIAS ** 2 : 1);
    const c = code(k.key);
    counts[c] += estimate;
    variances[c] += v;
    rest -= estimate;
    restVariance += v;
  }
  // Every record no kept key holds: "(other)", or the fallback key where "(other)" was not released.
  const other = code('\u0000not a released key');
  counts[other] += rest;
  variances[other] += restVariance;
  return { counts, variances };
}

/**
 * The engine's paid one-ways for a release: per schema column, its discovered one-way as answers
 * (counts / n, variances / n²), or null for a declared column (the engine measures it). n is the
 * engine's normaliser: the public record count at the row level, the public noisy count n̂ at the
 * person level. A column whose code count differs from the schema's is a bug.
 *
 * The person level (at most k rows per person): the numeric histograms count the bounded file's
 * rows, with σ₁ and σ₂ already computed from sensitivity k√3 and k√2 (numeric.ts), so the
 * variances above are those of the noise actually drawn — k² times the row level's at the same ρ —
 * and counts / n̂ are in the units of the engine's own measurements (answers over n̂, sensitivity
 * k√2/n̂ per table): combining them by inverse variance is again minimum-variance and unbiased.
 * Categorical columns have none there: partition selection counts distinct persons per key, which
 * do not estimate the rows per key (a person's k rows of one key count once), and "(other)" would
 * be n̂ minus person counts; the engine measures those one-ways itself.
 */
export function paidOneWaysFor(
  oneWays: ReadonlyMap<string, DiscoveredOneWay>,
  schema: Schema,
  n: number,
): ({ readonly values: Float64Array; readonly variances: Float64Array } | null)[] {
  const sizes = domainSizes(schema);
  return schema.columns.map((column, f) => {
    const own = column.provenance?.source === 'discovered' ? oneWays.get(column.name) : undefined;
    if (!own) return null;
    if (own.counts.length !== sizes[f]) {
      throw new Error(
        `internal: column "${column.name}" has ${sizes[f]} codes, its discovered one-way ${own.counts.length}`,
      );
    }
    return { values: own.counts.map((c) => c / n), variances: own.variances.map((v) => v / (n * n)) };
  });
}
