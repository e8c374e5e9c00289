/**
 * Private discovery of a date, time or datetime column on a PUBLIC calendar grid, as numeric.ts
 * does for numbers on the octave grid. Values are the format's internal units (data/formats.ts).
 *
 * Level 1 — one Gaussian histogram: the years 1900–2099 (dates, datetimes) or the 24 hours of the
 * day (times), the cells that do not parse (or fall outside those years), and the missing cells
 * by marker (`?`, empty, `NA`: the released missing category is written in the likeliest).
 * A record is in one bucket: ℓ2 sensitivity √2 (k√2 for k rows per person), σ₁ = Δ/√(2ρ₁).
 * A year or hour is occupied when its noisy count passes OCCUPIED_SIGMAS·σ₁ (a year with no
 * record passes with probability Q(4) = 3·10⁻⁵; 200 years: 0.6% chance of a spurious one), then
 * grown by neighbours and gaps above NEIGHBOUR_SIGMAS·σ₁ (`occupiedCells`).
 *
 * Level 2 — one Gaussian vector: the months of the occupied years (dates, datetimes) or the
 * occupied hours cut into S equal stretches (times; S the largest divisor of 60 with the hour's
 * noisy count ≥ S·σ₂, so minutes at most), plus the 7 days of the week (dates, datetimes) and
 * the 24 hours (datetimes). A record is in one bucket of each group: under replace-one the vector
 * moves by √2 per group, ℓ2 sensitivity √(2g) for g groups (k√(2g) at the person level).
 *
 * Post-processing: each occupied year's (hour's) noisy level-1 count is spread over its months
 * (stretches) by projecting their noisy counts onto the simplex (numeric.ts) — the pieces — then
 * cut into equal-mass bins (binPieces). The weekday and hour counts, clipped at 0 and normalized,
 * are the column's shares: decoding draws a day (hour) inside a piece with them (data/decode.ts).
 * The missing category is released as for numbers (missing and unparsed cells above
 * MISSING_SIGMAS of their σ, √(forms + 1)·σ₁); else such a cell goes to the heaviest bin. No step
 * has a δ.
 */
import {
  hourOf,
  monthStart,
  SECONDS_PER_DAY,
  type TemporalFormat,
  type TemporalKind,
  weekdayOf,
  yearOf,
} from '../data/formats.ts';
import type { NumericColumn, NumericPiece } from '../data/schema.ts';
import { numericParser } from '../data/values.ts';
import { makeGaussianCounts, measureCounts } from '../privacy/counts.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { binPieces, heaviestBin, MISSING_SIGMAS, projectOntoSimplex } from './numeric.ts';
import type { CellCounter } from './profile.ts';

/** The public years of the calendar grid: [FIRST_YEAR, FIRST_YEAR + YEARS). */
export const FIRST_YEAR = 1900;
export const YEARS = 200;
export const OCCUPIED_SIGMAS = 4;
/** Next to or between occupied cells the bar is lower (numeric.ts's neighbour rule). */
export const NEIGHBOUR_SIGMAS = 1.5;
/** Divisors of 60: a time's hour is cut into this many stretches at most (minutes). */
const STRETCHES = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60];

/** Level-1 cells of a kind: years or hours. */
function level1Cells(kind: TemporalKind): number {
  return kind === 'time' ? 24 : YEARS;
}

/** Groups of level 2 (one bucket each per record): months or stretches, weekdays, hours. */
function level2Groups(kind: TemporalKind): number {
  return kind === 'time' ? 1 : kind === 'date' ? 2 : 3;
}

/** Exact counts of one temporal column (private). */
export class TemporalCounts implements CellCounter {
  missing = 0;
  /** Missing cells by the marker that wrote them (the profile's markers, in order). */
  readonly missingForms: number[];
  /** Cells that do not parse in the format, or fall outside the grid's years. */
  unparsed = 0;
  /** By fine cell: year·12 + month (dates, datetimes) or minute of the day (times). */
  readonly fine = new Map<number, number>();
  readonly weekdays = new Float64Array(7);
  readonly hours = new Float64Array(24);
  private readonly parse: (text: string) => number | undefined;

  constructor(
    readonly name: string,
    readonly format: TemporalFormat,
    forms = 1,
  ) {
    this.parse = numericParser({ temporal: format });
    this.missingForms = new Array<number>(Math.max(1, forms)).fill(0);
  }

  /** @param weight records holding `value` (profile.ts's CellCounter.add). */
  add(value: string, isMissing: boolean, form = 0, weight = 1): void {
    if (isMissing) {
      this.missing += weight;
      this.missingForms[form] += weight;
      return;
    }
    const x = this.parse(value);
    if (x === undefined) {
      this.unparsed += weight;
      return;
    }
    const kind = this.format.kind;
    let cell: number;
    if (kind === 'time') {
      cell = Math.floor(x / 60);
    } else {
      const year = yearOf(kind, x);
      if (year < FIRST_YEAR || year >= FIRST_YEAR + YEARS) {
        this.unparsed += weight;
        return;
      }
      const days = kind === 'date' ? x : Math.floor(x / SECONDS_PER_DAY);
      const month = new Date(days * 86_400_000).getUTCMonth();
      cell = (year - FIRST_YEAR) * 12 + month;
      this.weekdays[weekdayOf(kind, x)] += weight;
      if (kind === 'datetime') this.hours[hourOf(kind, x)] += weight;
    }
    this.fine.set(cell, (this.fine.get(cell) ?? 0) + weight);
  }

  /** Temporal counts are of rows (their sensitivity carries the bound k). */
  startPerson(): void {}

  /** Level-1 exact counts: per year (hour), then unparsed, then missing by form. */
  level1(): Float64Array {
    const cells = level1Cells(this.format.kind);
    const out = new Float64Array(cells + 1 + this.missingForms.length);
    const per = this.format.kind === 'time' ? 60 : 12;
    for (const [cell, c] of this.fine) out[Math.floor(cell / per)] += c;
    out[cells] = this.unparsed;
    out.set(this.missingForms, cells + 1);
    return out;
  }
}

/**
 * Cells above OCCUPIED_SIGMAS·σ₁, then grown as numeric.ts grows octaves: a cell between two
 * occupied ones, or next to the occupied run, joins above NEIGHBOUR_SIGMAS·σ₁ (a few candidates
 * only; the hours wrap around midnight). hospital-visits' night hours (300–470 admissions each, σ₁ ≈ 110 at ε = 1) fall under
 * 4σ₁; without the growth they were dropped and admit_time's KS reached 0.09. Post-processing.
 */
function occupiedCells(l1: Float64Array, cells: number, sigma: number, circular: boolean): number[] {
  const on = new Uint8Array(cells);
  for (let c = 0; c < cells; c++) if (l1[c] > OCCUPIED_SIGMAS * sigma) on[c] = 1;
  const first = on.indexOf(1);
  if (first === -1) return [];
  const last = on.lastIndexOf(1);
  const passes = (c: number) => l1[c] > NEIGHBOUR_SIGMAS * sigma;
  for (let c = first + 1; c < last; c++) if (!on[c] && passes(c)) on[c] = 1;
  for (let c = first - 1; c >= 0 && passes(c); c--) on[c] = 1;
  for (let c = last + 1; c < cells && passes(c); c++) on[c] = 1;
  // The hours of the day are a circle: a run that reaches midnight goes on at the other end.
  if (circular && on[0] && !on[cells - 1])
    for (let c = cells - 1; c > 0 && !on[c] && passes(c); c--) on[c] = 1;
  if (circular && on[cells - 1] && !on[0])
    for (let c = 0; c < cells - 1 && !on[c] && passes(c); c++) on[c] = 1;
  const out: number[] = [];
  on.forEach((v, c) => {
    if (v) out.push(c);
  });
  return out;
}

export interface TemporalDiscovery {
  readonly column: NumericColumn;
  readonly level1Sigma: number;
  readonly level2Sigma: number;
  readonly occupied: number;
  readonly missing: { readonly count: number; readonly sigma: number; readonly released: boolean };
  /** Index of the missing marker of largest noisy count: how a released missing cell is written. */
  readonly missingForm: number;
}

function normalizedShares(noisy: ArrayLike<number>): number[] | undefined {
  const clipped = Array.from(noisy, (x) => (x > 0 ? x : 0));
  const total = clipped.reduce((a, b) => a + b, 0);
  return total > 0 ? clipped.map((x) => x / total) : undefined;
}

/**
 * Levels 1 and 2 and the bins (see the file comment): ρ₁ + ρ₂ zCDP. `bound` is the rows per
 * person (1 at the row level).
 */
export function discoverTemporal(
  counts: TemporalCounts,
  rho1: number,
  rho2: number,
  noise: NoiseSource,
  opts: { readonly bins: number; readonly bound?: number },
): TemporalDiscovery {
  const { kind } = counts.format;
  const bound = opts.bound ?? 1;
  const cells = level1Cells(kind);
  const m1 = makeGaussianCounts(rho1, bound * Math.SQRT2);
  const l1 = measureCounts(m1, counts.level1(), noise);
  let occupied = occupiedCells(l1, cells, m1.sigma, kind === 'time');
  if (occupied.length === 0) {
    let best = 0;
    for (let c = 1; c < cells; c++) if (l1[c] > l1[best]) best = c;
    occupied = [best];
  }
  const m2 = makeGaussianCounts(rho2, bound * Math.sqrt(2 * level2Groups(kind)));
  // Level-2 buckets per occupied cell: 12 months, or S stretches of the hour.
  const splits = occupied.map((c) => {
    if (kind !== 'time') return 12;
    let s = 1;
    for (const d of STRETCHES) if (l1[c] >= d * m2.sigma) s = d;
    return s;
  });
  const size = splits.reduce((a, b) => a + b, 0);
  const extra = kind === 'time' ? 0 : kind === 'date' ? 7 : 31;
  const exact = new Float64Array(size + extra);
  let at = 0;
  occupied.forEach((c, i) => {
    const s = splits[i];
    if (kind === 'time') {
      for (let minute = 0; minute < 60; minute++)
        exact[at + Math.floor((minute * s) / 60)] += counts.fine.get(c * 60 + minute) ?? 0;
    } else {
      for (let month = 0; month < 12; month++) exact[at + month] += counts.fine.get(c * 12 + month) ?? 0;
    }
    at += s;
  });
  if (kind !== 'time') exact.set(counts.weekdays, size);
  if (kind === 'datetime') exact.set(counts.hours, size + 7);
  const l2 = measureCounts(m2, exact, noise);
  const pieces: NumericPiece[] = [];
  at = 0;
  occupied.forEach((c, i) => {
    const s = splits[i];
    const shares = projectOntoSimplex(l2.subarray(at, at + s), Math.max(0, l1[c]));
    shares.forEach((weight, g) => {
      if (!(weight > 0)) return;
      let lo: number;
      let hi: number;
      if (kind === 'time') {
        lo = c * 3600 + (g * 3600) / s;
        hi = c * 3600 + ((g + 1) * 3600) / s;
      } else {
        const year = FIRST_YEAR + c;
        lo = monthStart(kind, year, g + 1);
        hi = monthStart(kind, year, g + 2);
      }
      pieces.push({ lo, hi, weight });
    });
    at += s;
  });
  if (pieces.length === 0) {
    const c = occupied[0];
    const lo = kind === 'time' ? c * 3600 : monthStart(kind, FIRST_YEAR + c, 1);
    const hi = kind === 'time' ? lo + 3600 : monthStart(kind, FIRST_YEAR + c, 13);
    pieces.push({ lo, hi, weight: 1 });
  }
  const weekdays = kind === 'time' ? undefined : normalizedShares(l2.subarray(size, size + 7));
  const hours = kind === 'datetime' ? normalizedShares(l2.subarray(size + 7, size + 31)) : undefined;
  const binned = binPieces(counts.name, pieces, true, opts.bins);
  const temporal = {
    ...counts.format,
    ...(weekdays ? { weekdays } : {}),
    ...(hours ? { hours } : {}),
  };
  // Unreadable cells and each missing form: forms + 1 noisy counts (σ₁ each).
  let missingCount = 0;
  let missingForm = 0;
  for (let i = cells; i < l1.length; i++) missingCount += l1[i];
  for (let i = cells + 2; i < l1.length; i++)
    if (l1[i] > l1[cells + 1 + missingForm]) missingForm = i - cells - 1;
  const missingSigma = Math.sqrt(l1.length - cells) * m1.sigma;
  const released = missingCount > MISSING_SIGMAS * missingSigma;
  const column: NumericColumn = released
    ? { ...binned, temporal }
    : { ...binned, temporal, missing: false, fallbackCode: heaviestBin(binned) };
  return {
    column,
    level1Sigma: m1.sigma,
    level2Sigma: m2.sigma,
    occupied: occupied.length,
    missing: { count: missingCount, sigma: missingSigma, released },
    missingForm,
  };
}
