/**
 * Private discovery of a hierarchical code column (src/core/data/hierarchy.ts): level by level
 * from the top, each level measuring only the keys under a key that passed the level above; the
 * released domain is every key that passed, at every level, and a record is then encoded as its
 * finest released key (C34.90 → C34 when only the category passed).
 *
 * The column's ρ is split over its L levels by their shares (ρ_l = ρ·w_l/Σw, levelShares; equal
 * unless the preset states them) and its δ equally (δ_l = δ/L). At
 * each level a record adds 1 to at most one key (its prefix at that level, when that prefix's
 * parent passed; keyAt), so under replace-one the level's counts move by at most √2 (ℓ2):
 * - a level whose keys are a PUBLIC list (the preset's alphabets: every passed parent × every
 *   combination of the level's characters; the top level: every combination, plus the missing
 *   key) is a Gaussian histogram over that list, zero counts included: ρ_l-zCDP, σ_l = 1/√ρ_l, no
 *   δ (counts.ts). A key is released when its noisy count passes τ_l = σ_l·Q⁻¹(s_l/m), m the
 *   level's candidates: fewer than s_l keys of count 0 are released per level on average, with
 *   s_l = SPURIOUS_TOP at the top and SPURIOUS below (the bar is post-processing of the histogram:
 *   it changes no ρ or δ; why the top's bar is lower: SPURIOUS_TOP).
 * - a level whose keys are private (prefix lengths without an alphabet, separators, ICD-10's full
 *   codes) is Gaussian partition selection over the keys that occur (partition-selection.ts):
 *   δ_l-approximately ρ_l-zCDP, σ_l = 1/√ρ_l, τ_l = 1 + σ_l·(Q⁻¹(δ_l) + 2⁻¹²).
 * The candidates of level l are a function of level l − 1's output only (post-processing), so
 * the column is δ-approximately ρ-zCDP by adaptive composition (ρ_l's add, δ_l's add).
 * At the person level (records bounded to k rows per person; neighbours differ in one person's
 * rows) the counts are distinct PERSONS per key (hierarchy-counts.ts), so a person adds at most 1
 * to each of at most k keys per level: ℓ2 sensitivity √(2k) (σ_l = √(k/ρ_l)) at a public level,
 * and partition selection with keysPerPerson = k (τ_l = 1 + σ_l·(Q⁻¹(δ_l/k) + 2⁻¹²)) at a
 * private one; "(other)" is always released there (distinct persons give no row estimate).
 */
import { OTHER_CATEGORY } from '../data/encode.ts';
import { type Hierarchy, keyAt, publicChildren, publicFanout, publicTopKeys } from '../data/hierarchy.ts';
import type { CategoricalColumn } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import { makeGaussianCounts, measureCounts } from '../privacy/counts.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { normalUpperTailInverse } from '../privacy/normal-tail.ts';
import {
  makePartitionSelection,
  partitionCountSensitivity,
  type SelectedKey,
  selectPartitions,
} from '../privacy/partition-selection.ts';
import { OTHER_SIGMAS, otherCount } from './categorical.ts';
import { HierarchyCounts } from './hierarchy-counts.ts';
import { type ColumnCounts, MAX_DISTINCT_TEXTS, MISSING_KEY } from './profile.ts';

/** Expected released keys of count 0 per public level below the top, at most (the bar's false rate). */
export const SPURIOUS = 0.05;
/**
 * The same at a public TOP level: at most 1 key of count 0 per column on average. The costs are
 * lopsided there: a top key that misses loses its whole subtree (its records go to "(other)" or
 * the heaviest key), while below the top a missed key's records stay at its released parent; a
 * phantom key (count 0) adds one category whose released mass is ~0 (the release measures it
 * afresh). ICD-10 at ε = 1 on hospital-visits (σ = 72.6, 29 candidates: 26 letters, 3 missing
 * markers): SPURIOUS would put the letters' bar at τ = σ·Q⁻¹(0.05/29) = 212, where each of the 7
 * chapter letters of 270–304 records misses with probability 0.10–0.21 (≈ 310 records misplaced
 * per release on average, 3 letters in one run of the bench); at s = 1, τ = σ·Q⁻¹(1/29) = 132: they
 * miss with probability 0.009–0.029 (≈ 35 records), for ≤ 9/29 ≈ 0.31 phantom keys expected (the
 * 6 unused letters and 3 markers). With equal shares that still missed 3 letters in the bench's 3
 * seeds, so the ICD-10 preset also moves ρ off its full codes onto the letters and categories
 * (hierarchy.ts, ICD10_SHARES: σ = 62.5, τ = 114 at the top).
 */
export const SPURIOUS_TOP = 1;
/**
 * A public level with more candidates than this (passed parents × fan-out) is measured by
 * partition selection instead (memory; the choice is a function of public outputs).
 */
export const MAX_PUBLIC_CANDIDATES = 2_000_000;

/** The ℓ2 sensitivity of one level's key counts under replace-one: one key −1, one key +1. */
export const LEVEL_SENSITIVITY = Math.SQRT2;

/**
 * A level's ℓ2 sensitivity with k keys per person: √(2k) (distinct persons per key on records
 * bounded to k rows per person: the replaced person leaves ≤ k keys, −1 each, the new one enters
 * ≤ k, +1 each; hierarchy-counts.ts). k = 1: LEVEL_SENSITIVITY.
 */
export function levelSensitivity(keysPerPerson: number): number {
  return partitionCountSensitivity(keysPerPerson);
}

export interface LevelOutcome {
  readonly level: number;
  readonly length: number | 'full';
  readonly mechanism: 'public-histogram' | 'partition-selection';
  readonly rho: number;
  /** δ of the level (0 for a public histogram: its δ share is charged but unused). */
  readonly delta: number;
  readonly sigma: number;
  readonly threshold: number;
  /** Candidates measured (public levels only). */
  readonly candidates?: number;
  /** Keys released at this level (the missing key included at the top). */
  readonly released: number;
}

export interface HierarchicalDiscovery {
  readonly column: CategoricalColumn;
  readonly levels: readonly LevelOutcome[];
  readonly other: { readonly count: number; readonly sigma: number; readonly released: boolean };
}

/** Each level's fraction of the column's ρ: share_l / Σ share (HierarchyLevel.share, default 1). */
export function levelShares(h: Hierarchy): number[] {
  const w = h.levels.map((l) => l.share ?? 1);
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / total);
}

/** Expected released keys of count 0 allowed at a public level (0: the top). */
export function spuriousAt(level: number): number {
  return level === 0 ? SPURIOUS_TOP : SPURIOUS;
}

/** A public level's threshold: σ·Q⁻¹(s_l/m), s_l = spuriousAt(level), m the candidates. */
export function publicThreshold(sigma: number, candidates: number, level: number): number {
  return sigma * normalUpperTailInverse(Math.min(0.5, spuriousAt(level) / Math.max(1, candidates)));
}

/** Gaussian histogram over public candidates; the kept keys (code-point order) and σ, τ. */
function publicLevel(
  candidates: readonly string[],
  counts: ReadonlyMap<string, number>,
  rho: number,
  level: number,
  noise: NoiseSource,
  keysPerPerson: number,
): { kept: SelectedKey[]; sigma: number; threshold: number } {
  const mech = makeGaussianCounts(rho, levelSensitivity(keysPerPerson));
  const exact = Float64Array.from(candidates, (k) => counts.get(k) ?? 0);
  const noisy = measureCounts(mech, exact, noise);
  const threshold = publicThreshold(mech.sigma, candidates.length, level);
  const kept: SelectedKey[] = [];
  candidates.forEach((key, i) => {
    if (noisy[i] > threshold) kept.push({ key, noisyCount: noisy[i] });
  });
  kept.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { kept, sigma: mech.sigma, threshold };
}

/**
 * Level l's exact key counts (private): each record adds 1 to its key at level l when it has one
 * and its key one level up is in `parents` (the released keys above; ignored at the top, where
 * missing values count under MISSING_KEY). `values`: each distinct value's record count.
 */
export function levelKeyCounts(
  values: ReadonlyMap<string, number>,
  hierarchy: Hierarchy,
  level: number,
  parents: ReadonlySet<string>,
): Map<string, number> {
  const keyCounts = new Map<string, number>();
  for (const [value, c] of values) {
    if (value === MISSING_KEY) {
      if (level === 0) keyCounts.set(MISSING_KEY, c);
      continue;
    }
    const key = keyAt(hierarchy, value, level);
    if (key === undefined) continue;
    if (level > 0 && !parents.has(keyAt(hierarchy, value, level - 1)!)) continue;
    keyCounts.set(key, (keyCounts.get(key) ?? 0) + c);
  }
  return keyCounts;
}

/** The person-level counts, checked (discover.ts profiles a hierarchical column so with a unit). */
function personCounts(counts: ColumnCounts): HierarchyCounts {
  if (!(counts instanceof HierarchyCounts))
    throw new Error('internal: at the person level a hierarchical column needs HierarchyCounts');
  return counts;
}

/**
 * Level l's distinct-person key counts (private): the keys at level l whose key one level up is
 * in `parents` (every key at the top; the missing markers are added by formKeys).
 */
export function personLevelKeyCounts(
  counts: HierarchyCounts,
  level: number,
  parents: ReadonlySet<string>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, c] of counts.keyPersons[level]) {
    if (level > 0 && !parents.has(keyAt(counts.hierarchy, key, level - 1)!)) continue;
    out.set(key, c);
  }
  return out;
}

const FORM_PREFIX = `${MISSING_KEY}:`;
const isMissingKey = (key: string) => key.startsWith(FORM_PREFIX);
const formOf = (key: string) => Number(key.slice(FORM_PREFIX.length));

/**
 * Replaces the top level's one missing key by one key per missing marker (exact per-form counts,
 * profile.ts): the candidates of a public top level (every form, a public list), the counts of the
 * forms that occur for partition selection. Returns the form keys.
 */
function formKeys(perForm: readonly number[], keyCounts: Map<string, number>): string[] {
  keyCounts.delete(MISSING_KEY);
  return perForm.map((c, i) => {
    const key = `${FORM_PREFIX}${i}`;
    if (c > 0) keyCounts.set(key, c);
    return key;
  });
}

export function discoverHierarchical(
  counts: ColumnCounts,
  hierarchy: Hierarchy,
  rho: number,
  delta: number,
  noise: NoiseSource,
  file: string,
  n: number,
  keysPerPerson = 1,
  /** The missing markers, in the order of `counts.missingForms` (profile.ts). */
  markers: readonly string[] = ['?'],
): HierarchicalDiscovery {
  // At the person level the counts must be distinct persons per key (hierarchy-counts.ts).
  const persons = keysPerPerson > 1 ? personCounts(counts) : undefined;
  if (!counts.values) {
    throw new InputError(
      `${file}, column "${counts.name}": more than ${MAX_DISTINCT_TEXTS} distinct codes; declare its codes in a schema file.`,
      { file, column: counts.name },
    );
  }
  const L = hierarchy.levels.length;
  const shares = levelShares(hierarchy);
  const deltaLevel = delta / L;
  const levels: LevelOutcome[] = [];
  const released: string[] = [];
  let missing = false;
  let missingBest = 0;
  let missingText = markers[0] ?? '';
  let top: { kept: SelectedKey[]; sigma: number; threshold: number } | undefined;
  let parents = new Set<string>();
  for (let l = 0; l < L; l++) {
    const rhoLevel = rho * shares[l];
    const keyCounts = persons
      ? personLevelKeyCounts(persons, l, parents)
      : levelKeyCounts(counts.values, hierarchy, l, parents);
    // Missing values: one top-level key per missing marker (a record is in one of them), so the
    // released missing category is written in its source form (`?`, empty, `NA`).
    const forms = l === 0 ? formKeys(persons?.formPersons ?? counts.missingForms, keyCounts) : [];
    const fanout = publicFanout(hierarchy, l);
    const candidateCount =
      fanout === undefined ? undefined : l === 0 ? fanout + forms.length : parents.size * fanout;
    let out: { kept: SelectedKey[]; sigma: number; threshold: number };
    let mechanism: LevelOutcome['mechanism'];
    if (candidateCount !== undefined && candidateCount <= MAX_PUBLIC_CANDIDATES) {
      const candidates =
        l === 0
          ? [...publicTopKeys(hierarchy)!, ...forms]
          : [...parents].sort().flatMap((p) => publicChildren(hierarchy, p, l)!);
      out = publicLevel(candidates, keyCounts, rhoLevel, l, noise, keysPerPerson);
      mechanism = 'public-histogram';
    } else {
      const sel = makePartitionSelection(rhoLevel, deltaLevel, keysPerPerson);
      out = { kept: selectPartitions(sel, keyCounts, noise), sigma: sel.sigma, threshold: sel.threshold };
      mechanism = 'partition-selection';
    }
    if (l === 0) top = out;
    parents = new Set();
    for (const k of out.kept) {
      if (isMissingKey(k.key)) {
        if (!missing || k.noisyCount > missingBest) {
          missingBest = k.noisyCount;
          missingText = markers[formOf(k.key)] ?? markers[0] ?? '';
        }
        missing = true;
        continue;
      }
      parents.add(k.key);
      released.push(k.key);
    }
    levels.push({
      level: l,
      length: hierarchy.levels[l].length,
      mechanism,
      rho: rhoLevel,
      delta: mechanism === 'public-histogram' ? 0 : deltaLevel,
      sigma: out.sigma,
      threshold: out.threshold,
      ...(mechanism === 'public-histogram' ? { candidates: candidateCount } : {}),
      released: out.kept.length,
    });
  }
  const categories = [...new Set(released)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // "(other)": the records whose top-level key did not pass (categorical.ts's rule and estimate).
  const estimate = otherCount(n, top!.kept, top!);
  // At the person level the counts are distinct persons, which do not add up to the rows: no
  // estimate of "(other)"'s rows, so it is always released (as categorical.ts does there).
  const otherReleased =
    keysPerPerson > 1 ||
    categories.length + (missing ? 1 : 0) === 0 ||
    estimate.count > OTHER_SIGMAS * estimate.sigma;
  const other = { ...estimate, released: otherReleased };
  const base = {
    name: counts.name,
    kind: 'categorical' as const,
    missing,
    hierarchy,
    ...(missing ? { missingText } : {}),
  };
  if (otherReleased)
    return { column: { ...base, categories: [...categories, OTHER_CATEGORY] }, levels, other };
  let best = top!.kept[0];
  for (const k of top!.kept) if (k.noisyCount > best.noisyCount) best = k;
  const fallbackCode = isMissingKey(best.key) ? categories.length : categories.indexOf(best.key);
  return { column: { ...base, categories, fallbackCode }, levels, other };
}
