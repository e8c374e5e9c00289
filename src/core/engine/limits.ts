/**
 * Guards before the ledger reserves: a run that cannot finish must not cost budget. Every bound
 * here reads public inputs only (options, schema, workload, n), so refusing says nothing about
 * the data; a refusal is an InputError (CLI exit 2, the app's input banner) and the ledger is
 * never touched.
 *
 * Two kinds of check:
 * - hard bounds on each size (n', oversampling, T, K, columns, categories/bins per column, total
 *   one-hot width, the largest threshold's table), far above anything the benchmarks use (n' =
 *   1,000, oversampling 5, ADULT's 15 columns and one-hot width 530) but well below what breaks
 *   the engine (typed arrays, 2³² codes, the app's schema editor caps);
 * - an estimate of the run's memory against the machine's: a run that needs more than 80% of
 *   the machine's memory, or more than is available right now, is refused. The estimate is an
 *   upper-bound model of the engine's largest arrays (see `memoryEstimate`), not a measurement.
 */
import { freemem, totalmem } from 'node:os';
import { MAX_CSV_COLUMNS } from '../data/csv.ts';
import { domainSizes, MAX_DOMAIN_SIZE, type Schema } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import type { Workload } from '../workload/types.ts';
import { DEFAULT_OVERSAMPLE } from './defaults.ts';
import { requiredFeatureSets } from './required-tables.ts';

/** The hard bounds. Each is a sanity cap, not a tuning value. */
export const LIMITS = {
  /** Synthetic rows n'. The papers use 1,000 (500–2,000 in their grids). */
  rows: 10_000_000,
  /** Rounded rows per relaxed row. Default 50 (DEFAULT_OVERSAMPLE). */
  oversample: 1_000,
  /** Rounds T (table mode: the measurement bound T₀). Defaults: 8–96. */
  rounds: 10_000,
  /** Queries (query mode) or tables (table mode) per round K. Defaults: 1–8 tables, ≤ 64 queries. */
  perRound: 100_000,
  /** Schema columns: the CSV reader's cap. */
  columns: MAX_CSV_COLUMNS,
  /** Categories or bins of one column (including "missing"): the schema editor's cap. */
  domain: MAX_DOMAIN_SIZE,
  /** Total one-hot width d' = Σ domain sizes: the relaxed table is n' × d'. */
  oneHotWidth: 1_000_000,
  /** Cells of the largest threshold's table (Π of its features' domain sizes), 2²⁸ ≈ 2.7·10⁸. */
  tableCells: 2 ** 28,
} as const;

/** What the engine will be asked to do, all public. */
export interface RunSize {
  readonly mode: 'query' | 'table';
  readonly rows: number;
  readonly oversample: number;
  readonly rounds: number;
  readonly perRound: number;
  /** Records in the private file (public n). */
  readonly n: number;
  readonly schema: Schema;
  readonly workload: Workload;
  /**
   * How the private data reaches the engine: its encoded rows (default), or its exact tables
   * (data/counted.ts), whose memory does not grow with n.
   */
  readonly form?: DataForm;
}

/** The encoded rows, or the exact tables a counting engine computed (no rows). */
export type DataForm = 'rows' | 'counted';

export interface MachineMemory {
  readonly totalBytes: number;
  readonly availableBytes: number;
}

export interface MemoryEstimate {
  readonly bytes: number;
  readonly parts: {
    readonly relaxed: number;
    readonly answers: number;
    readonly data: number;
    readonly rounded: number;
    readonly base: number;
  };
}

const MiB = 2 ** 20;
/** A run may use at most this share of the machine's memory (the rest: the OS, the app, the renderer). */
export const MEMORY_SHARE = 0.8;

function bound(value: number, max: number, what: string, fix: string): void {
  if (!(value <= max)) {
    throw new InputError(
      `${what} is ${fmt(value)}, more than RAP Studio can run (at most ${fmt(max)}). ${fix} Nothing was reserved: the budget is untouched.`,
      { field: what },
    );
  }
}

/** Whole numbers in full (10,000,001 vs 10,000,000 must not both read 1.00·10^7); others in 3 digits. */
function fmt(x: number): string {
  if (Number.isSafeInteger(x)) return x.toLocaleString('en-US');
  return Math.abs(x) >= 1e6 ? x.toExponential(2).replace('e+', '·10^') : x.toLocaleString('en-US');
}

/** The largest table a threshold asks about, with the names of its features. */
function largestTable(size: RunSize): { cells: number; features: string } {
  const sizes = domainSizes(size.schema);
  let best = { cells: 0, features: '' };
  for (const t of size.workload.thresholds) {
    const cells = t.features.reduce((p, f) => p * sizes[f], 1);
    if (cells > best.cells)
      best = { cells, features: t.features.map((f) => size.schema.columns[f].name).join(' × ') };
  }
  return best;
}

/**
 * An upper-bound model of the engine's memory (bytes), from the arrays that grow with the inputs:
 * - relaxed: the relaxed table D' (n' × d' float64) and what the fit keeps beside it — gradient,
 *   Adam's two moments, sparsemax's work row and the best D' so far: 6 copies;
 * - answers: every workload table's exact, noisy, synthetic answers and gradient (4 × float64
 *   per cell, Σ over thresholds);
 * - data: the encoded private codes (≤ 4 bytes per cell), held by the app and the engine; or, for
 *   counted data, the exact tables requiredFeatureSets lists (float64 per cell), held by both;
 * - rounded: the n'·oversample rounded rows (4 bytes per code), in the engine and the app;
 * - base: Node, the engine's code and buffers (256 MiB).
 * Writing the CSV holds at most 200,000 decoded cells at a time (csv-write.ts), so it adds no term.
 * Measured on wide tables (50 rows, n' = 300, oversampling 50, 8 two-way thresholds, every column
 * discovered; peak RSS of the CLI and its engine): 2,000 columns 268 MB against an estimate of
 * 541 MiB, 5,000 columns 408 MB against 967 MiB. Before the writer was bounded by cells it held
 * 10,000 rows: 1.9 GB at 2,000 columns and 4.5 GB at 5,000.
 */
export function memoryEstimate(size: RunSize): MemoryEstimate {
  const sizes = domainSizes(size.schema);
  const width = sizes.reduce((a, b) => a + b, 0);
  const cols = sizes.length;
  const cells = size.workload.thresholds.reduce(
    (s, t) => s + t.features.reduce((p, f) => p * sizes[f], 1),
    0,
  );
  const parts = {
    relaxed: 6 * 8 * size.rows * width,
    answers: 4 * 8 * cells,
    data: size.form === 'counted' ? 2 * 8 * countedCells(size, sizes) : 2 * 4 * size.n * cols,
    rounded: 2 * 4 * size.rows * size.oversample * cols,
    base: 256 * MiB,
  };
  return { bytes: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}

/** Cells of the exact tables a counted run holds (its required feature sets'). */
function countedCells(size: RunSize, sizes: readonly number[]): number {
  return requiredFeatureSets(size).reduce((s, set) => s + set.reduce((p, f) => p * sizes[f], 1), 0);
}

/**
 * Refuses (InputError) a run over any bound or one whose memory estimate cannot fit; returns the
 * estimate otherwise. `machine` defaults to this machine (os.totalmem, process.availableMemory).
 */
export function assertRunFits(size: RunSize, machine: MachineMemory): MemoryEstimate {
  bound(
    size.rows,
    LIMITS.rows,
    "The number of synthetic rows n'",
    "Ask for fewer synthetic rows (--rows / the Privacy step's n').",
  );
  bound(
    size.oversample,
    LIMITS.oversample,
    'The oversampling factor',
    `Use a smaller oversampling factor (default ${DEFAULT_OVERSAMPLE}).`,
  );
  bound(size.rounds, LIMITS.rounds, 'The number of rounds T', 'Use fewer rounds (--rounds).');
  bound(size.perRound, LIMITS.perRound, 'The number per round K', 'Use a smaller K (--per-round).');
  const cols = size.schema.columns.length;
  bound(cols, LIMITS.columns, 'The number of columns', 'Leave out columns the release does not need.');
  const sizes = domainSizes(size.schema);
  sizes.forEach((s, j) => {
    bound(
      s,
      LIMITS.domain,
      `The number of categories/bins of column "${size.schema.columns[j].name}"`,
      'Declare fewer categories, or wider bins, for that column.',
    );
  });
  const width = sizes.reduce((a, b) => a + b, 0);
  bound(
    width,
    LIMITS.oneHotWidth,
    "The schema's total one-hot width (Σ categories/bins)",
    'Declare fewer categories or wider bins.',
  );
  const largest = largestTable(size);
  bound(
    largest.cells,
    LIMITS.tableCells,
    `The largest workload table (${largest.features})`,
    'Use thresholds over fewer features, or columns with fewer categories/bins.',
  );
  const estimate = memoryEstimate(size);
  const allowed = MEMORY_SHARE * machine.totalBytes;
  const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;
  const biggest = Object.entries(estimate.parts).sort((a, b) => b[1] - a[1])[0][0];
  const advice: Record<string, string> = {
    relaxed: "fewer synthetic rows n' or fewer categories/bins (the relaxed table is n' × one-hot width)",
    answers: 'a workload with fewer or smaller tables',
    data: 'a smaller input file',
    rounded: "fewer synthetic rows n' or a smaller oversampling factor",
    base: 'closing other programs',
  };
  if (estimate.bytes > allowed) {
    throw new InputError(
      `This run would need about ${gib(estimate.bytes)} of memory, more than this machine can give it ` +
        `(${Math.round(MEMORY_SHARE * 100)}% of ${gib(machine.totalBytes)}). Try ${advice[biggest]}. ` +
        'Nothing was reserved: the budget is untouched.',
    );
  }
  if (estimate.bytes > machine.availableBytes) {
    throw new InputError(
      `This run would need about ${gib(estimate.bytes)} of memory, but only ${gib(machine.availableBytes)} ` +
        `is free right now. Close other programs, or try ${advice[biggest]}. Nothing was reserved: the budget is untouched.`,
    );
  }
  return estimate;
}

/** This machine's memory: total, and available now (cgroup-aware where Node knows it). */
export function thisMachine(): MachineMemory {
  const available = (process as { availableMemory?: () => number }).availableMemory?.() ?? freemem();
  return { totalBytes: totalmem(), availableBytes: Math.min(available || freemem(), totalmem()) };
}
