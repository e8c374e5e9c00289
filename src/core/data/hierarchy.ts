/**
 * Hierarchical codes (ICD-10 diagnoses, postcodes, NAICS industries): a column whose values are
 * codes with coarser codes as their prefixes (`C34.90` → `C34` → `C`). The curator declares the
 * levels — prefix lengths, or segments between separators, and whether the full code is a level —
 * or picks a preset. Public: nothing here reads data.
 *
 * A value's key at a level is its prefix of that length (`keyAt`). A value has a key at a level
 * only where that key is longer than its key one level up (`I10` has keys `I` and `I10`, none at
 * the full-code level after them), so each record adds to at most one key per level.
 *
 * The released domain holds keys of every level that passed (discovery/hierarchical.ts); a record
 * is encoded as its FINEST released key (`finestCategory`), so `C34.90` is `C34` when only the
 * category passed. With `fullCodes`, decoding turns a key that is a proper prefix into a released
 * full code inside it (uniformly among the released leaves under it; none: the prefix itself).
 */

/** Per added character, its public alphabet (e.g. the 26 capitals, the 10 digits). */
export type Charset = string;

export const DIGITS: Charset = '0123456789';
export const CAPITALS: Charset = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export interface HierarchyLevel {
  /** Prefix length in characters (or segments, with a separator); 'full': the whole value. */
  readonly length: number | 'full';
  /**
   * The public alphabet of each character this level adds to the one above (length − the level
   * above's length entries). Given: the level's candidate keys are a public list (every parent ×
   * every combination), measured by a Gaussian histogram over the list (no δ); absent: partition
   * selection over the keys that occur (discovery/hierarchical.ts).
   */
  readonly charsets?: readonly Charset[];
  /**
   * The level's weight in the column's ρ (default 1): level l gets ρ·share_l / Σ share. A preset
   * states its own (why: the preset's comment); prefix lengths weigh every level alike.
   */
  readonly share?: number;
}

export interface Hierarchy {
  /** Ascending levels, coarsest first. */
  readonly levels: readonly HierarchyLevel[];
  /** Levels count segments split by this separator (e.g. "."), not characters. */
  readonly separator?: string;
  /** Decoding draws a released full code inside a released prefix (else it outputs the prefix). */
  readonly fullCodes?: boolean;
  /** The preset it came from, for messages and manifests. */
  readonly preset?: HierarchyPreset;
}

export type HierarchyPreset = 'icd10' | 'postcode' | 'naics';

const ALNUM = DIGITS + CAPITALS;

/**
 * ICD-10's ρ over its levels (letters, categories, full codes): 0.45, 0.45, 0.10. A letter that
 * misses sends its whole subtree to "(other)", and the 3-character categories carry the target
 * (≥ 75 % of rows at least at their category); full codes only refine a released category, and
 * their private keys need τ ≈ 1 + 7σ whatever their share. Hospital-visits at ε = 1 (column ρ =
 * 5.69·10⁻⁴): equal shares gave σ = 72.6 everywhere, letter bar 132 (0.125 of the 270–304-record
 * letters missed per release, computed; 3 in the bench's 3 seeds), category bar 315 (0.750 of rows
 * expected at their category); these shares give σ = 62.5, 62.5, 132.6: letter bar 114 (0.023
 * missed per release), category bar 271 (0.761), full-code bar ≈ 890 instead of ≈ 490 (the 11
 * codes of 890 records or more; the others stay at their category).
 */
const ICD10_SHARES = [0.45, 0.45, 0.1] as const;

/**
 * Presets. ICD-10: the chapter letter, the 3-character category (a letter, a digit, a digit or a
 * capital: ICD-10-CM has C7A, M1A, …), then the full code (private keys: partition selection).
 * Postcode: 3-digit area, then the 5-digit code (US ZIP shape). NAICS: sector (2 digits) down to
 * the 6-digit industry, one digit per level.
 */
export const HIERARCHY_PRESETS: Readonly<Record<HierarchyPreset, Hierarchy>> = {
  icd10: {
    preset: 'icd10',
    levels: [
      { length: 1, charsets: [CAPITALS], share: ICD10_SHARES[0] },
      { length: 3, charsets: [DIGITS, ALNUM], share: ICD10_SHARES[1] },
      { length: 'full', share: ICD10_SHARES[2] },
    ],
  },
  postcode: {
    preset: 'postcode',
    levels: [
      { length: 3, charsets: [DIGITS, DIGITS, DIGITS] },
      { length: 5, charsets: [DIGITS, DIGITS] },
    ],
  },
  naics: {
    preset: 'naics',
    levels: [
      { length: 2, charsets: [DIGITS, DIGITS] },
      { length: 3, charsets: [DIGITS] },
      { length: 4, charsets: [DIGITS] },
      { length: 5, charsets: [DIGITS] },
      { length: 6, charsets: [DIGITS] },
    ],
  },
};

/** At most this many levels (a deeper tree splits the column's budget too thin to release much). */
export const MAX_LEVELS = 8;

function isPreset(s: string): s is HierarchyPreset {
  return Object.hasOwn(HIERARCHY_PRESETS, s);
}

/**
 * The text form (CLI `--hierarchy col=TEXT`, and a schema file's string form): comma-separated
 * tokens — a preset name (`icd10`, `postcode`, `naics`), or ascending prefix lengths with `full`
 * for the whole code (`1,3,full`), `digits` (every added character is a digit: a public key list),
 * `sep=X` (lengths count segments split by X), and `full-codes` (decode to released full codes).
 * Throws a RangeError saying what is wrong; the caller names the setting.
 */
export function parseHierarchy(text: string): Hierarchy {
  const tokens = text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (tokens.length === 0)
    throw new RangeError('empty: give a preset (icd10, postcode, naics) or prefix lengths');
  let preset: Hierarchy | undefined;
  const lengths: (number | 'full')[] = [];
  let digits = false;
  let separator: string | undefined;
  let fullCodes = false;
  for (const t of tokens) {
    if (isPreset(t)) {
      if (preset || lengths.length > 0)
        throw new RangeError(`"${t}": a preset goes alone (with full-codes at most)`);
      preset = HIERARCHY_PRESETS[t];
    } else if (t === 'full-codes') fullCodes = true;
    else if (t === 'digits') digits = true;
    else if (t.startsWith('sep=')) {
      separator = t.slice(4);
      if (separator === '') throw new RangeError('sep= needs a separator character, e.g. sep=.');
    } else if (t === 'full') lengths.push('full');
    else if (/^[1-9][0-9]*$/.test(t)) lengths.push(Number(t));
    else {
      throw new RangeError(
        `"${t}" is not a level: give a preset (icd10, postcode, naics) or prefix lengths such as 1,3,full`,
      );
    }
  }
  if (preset) {
    if (digits || separator !== undefined || lengths.length > 0)
      throw new RangeError(`the preset ${preset.preset} goes alone (with full-codes at most)`);
    return fullCodes ? { ...preset, fullCodes } : preset;
  }
  return hierarchyFromLevels(lengths, { digits, separator, fullCodes });
}

/** A hierarchy from its lengths, checked (ascending, 'full' last, at most MAX_LEVELS). */
export function hierarchyFromLevels(
  lengths: readonly (number | 'full')[],
  opts: { readonly digits?: boolean; readonly separator?: string | undefined; readonly fullCodes?: boolean },
): Hierarchy {
  if (lengths.length === 0) throw new RangeError('no levels: give prefix lengths such as 3,5 or 1,3,full');
  if (lengths.length > MAX_LEVELS)
    throw new RangeError(`at most ${MAX_LEVELS} levels, got ${lengths.length}`);
  let previous = 0;
  lengths.forEach((l, i) => {
    if (l === 'full') {
      if (i !== lengths.length - 1) throw new RangeError('"full" must be the last level');
      return;
    }
    if (!Number.isSafeInteger(l) || l < 1) throw new RangeError(`level ${l} must be a whole number >= 1`);
    if (l <= previous) throw new RangeError(`levels must be ascending, got ${lengths.join(',')}`);
    previous = l;
  });
  if (opts.digits && opts.separator !== undefined)
    throw new RangeError('digits counts characters: it does not go with sep=');
  let above = 0;
  const levels = lengths.map((l): HierarchyLevel => {
    if (l === 'full' || !opts.digits) return { length: l };
    const charsets = Array.from({ length: l - above }, () => DIGITS);
    above = l;
    return { length: l, charsets };
  });
  return {
    levels,
    ...(opts.separator !== undefined && { separator: opts.separator }),
    ...(opts.fullCodes && { fullCodes: true }),
  };
}

/** The text form of a hierarchy (parseHierarchy reads it back). */
export function hierarchyText(h: Hierarchy): string {
  const tail = h.fullCodes ? ',full-codes' : '';
  if (h.preset) return `${h.preset}${tail}`;
  const digits = h.levels.some((l) => l.charsets) ? ',digits' : '';
  const sep = h.separator !== undefined ? `,sep=${h.separator}` : '';
  return `${h.levels.map((l) => l.length).join(',')}${digits}${sep}${tail}`;
}

/** The prefix of `value` at `length` (characters, or segments with a separator). */
function prefix(h: Hierarchy, value: string, length: number | 'full'): string {
  if (length === 'full') return value;
  if (h.separator === undefined) return value.slice(0, length);
  const parts = value.split(h.separator);
  return parts.slice(0, length).join(h.separator);
}

/**
 * The value's key at level `level`, or undefined where it has none: a level below the top has a
 * key only when it is longer than the level above's (so a record adds to at most one key per level
 * and `I10` stops at `I10`).
 */
export function keyAt(h: Hierarchy, value: string, level: number): string | undefined {
  const key = prefix(h, value, h.levels[level].length);
  if (level === 0) return key;
  const above = prefix(h, value, h.levels[level - 1].length);
  return key.length > above.length ? key : undefined;
}

/** Every key of the value, coarsest first (its keys at successive levels). */
export function keysOf(h: Hierarchy, value: string): string[] {
  const out: string[] = [];
  for (let l = 0; l < h.levels.length; l++) {
    const k = keyAt(h, value, l);
    if (k === undefined) break;
    out.push(k);
  }
  return out;
}

/** The index of the value's finest key in `index` (a released domain), or undefined. */
export function finestCategory(
  h: Hierarchy,
  value: string,
  index: ReadonlyMap<string, number>,
): number | undefined {
  const direct = index.get(value);
  if (direct !== undefined) return direct;
  const keys = keysOf(h, value);
  for (let l = keys.length - 1; l >= 0; l--) {
    const code = index.get(keys[l]);
    if (code !== undefined) return code;
  }
  return undefined;
}

/**
 * The candidate children of a released key at level `level` (≥ 1) when the level's alphabet is
 * public: the key followed by every combination of the level's charsets (a public list).
 * Undefined when the level has no public alphabet (or uses separators).
 */
export function publicChildren(h: Hierarchy, parent: string, level: number): string[] | undefined {
  const charsets = h.levels[level].charsets;
  if (!charsets || h.separator !== undefined) return undefined;
  let out = [parent];
  for (const cs of charsets) out = out.flatMap((p) => [...cs].map((ch) => p + ch));
  return out;
}

/** The public top-level keys (level 0 with a public alphabet), or undefined. */
export function publicTopKeys(h: Hierarchy): string[] | undefined {
  return publicChildren(h, '', 0);
}

/** The number of public candidates a level has per released parent (undefined: private keys). */
export function publicFanout(h: Hierarchy, level: number): number | undefined {
  const charsets = h.levels[level].charsets;
  if (!charsets || h.separator !== undefined) return undefined;
  return charsets.reduce((a, cs) => a * cs.length, 1);
}

/**
 * For decoding with fullCodes: per category, the categories it may be drawn as — the released
 * leaves (categories with no released category under them) strictly under it; empty for a leaf.
 */
export function leavesUnder(h: Hierarchy, categories: readonly string[]): number[][] {
  const released = new Set(categories);
  const parentOf = (c: string): string | undefined => {
    const keys = keysOf(h, c);
    // The released key just above c: its longest proper prefix among the released keys.
    for (let l = keys.length - 1; l >= 0; l--) if (keys[l] !== c && released.has(keys[l])) return keys[l];
    return undefined;
  };
  const hasChild = new Set<string>();
  for (const c of categories) {
    const p = parentOf(c);
    if (p !== undefined) hasChild.add(p);
  }
  const index = new Map(categories.map((c, i) => [c, i]));
  const out: number[][] = categories.map(() => []);
  for (const c of categories) {
    if (hasChild.has(c)) continue;
    for (let p = parentOf(c); p !== undefined; p = parentOf(p)) out[index.get(p)!].push(index.get(c)!);
  }
  return out;
}
