/**
 * The person as the unit of privacy, in a release (docs/privacy.md, "The unit of privacy").
 *
 * Before the reservation (public inputs only): the unit column is checked against the header and
 * the declared schema, and the budget is split — `UNIT_COUNT_SHARE` of the release's ρ measures
 * the bounded row count n̂, `UNIT_BOUND_SHARE` chooses k when the curator did not give it, the
 * rest goes to discovery and synthesis as before.
 *
 * After the reservation (`boundSource`): the private file is read once; each record's person is
 * its unit-column value (records with a missing identifier count as ONE person, so they are
 * bounded together: the safe reading of "we do not know whose row this is"); k is chosen privately
 * if asked; at most k records per person are kept by a secure uniform sample; n̂ is measured; and
 * the kept records are written, grouped by person, to a private temporary file (a 0700 folder,
 * removed when the run has encoded it) that discovery and the encoder read like any CSV. The
 * identifier column goes no further: discovery never profiles it and the encoded data, the
 * workload and the released file never hold it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { Rejections } from '../data/rejections.ts';
import type { Schema } from '../data/schema.ts';
import { readTable, type TableOptions } from '../data/table.ts';
import { DEFAULT_MISSING_MARKERS } from '../data/values.ts';
import type { ReleaseBudget } from '../discovery/budget-split.ts';
import { InputError } from '../errors.ts';
import { epsilonFromRho } from '../privacy/accounting.ts';
import {
  BOUND_GRID,
  BOUND_QUANTILE,
  boundContributions,
  type ChosenBound,
  chooseBound,
  estimateRows,
  personIndices,
  type RowEstimate,
  rowsPerPerson,
} from '../privacy/contribution.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import type { Workload } from '../workload/types.ts';

/** The curator's unit: the column that names the person, and k (rows per person) or 'private'. */
export interface UnitSpec {
  readonly column: string;
  readonly bound: number | 'private';
}

/**
 * Share of the release's ρ for the noisy bounded row count n̂: at ε = 1 on hospital-visits
 * (ρ ≈ 0.012) σ = k/√(2·0.02ρ) ≈ 46k rows against n̂ ≈ 30,000: a 0.15k% scale error on every
 * answer, far below the measurements' noise.
 */
export const UNIT_COUNT_SHARE = 0.02;
/** Share of ρ for choosing k privately (a histogram of persons on 8 buckets; σ = 1/√(0.05ρ) ≈ 40 persons at ε = 1). */
export const UNIT_BOUND_SHARE = 0.05;

/**
 * The default δ at the person level. Row level uses 1/n², but n (the file's rows) is private when a
 * person has several rows, and δ is published; 10⁻¹⁰ is below 1/P² for up to 100,000 persons and
 * costs little: ρ(1, 10⁻¹⁰) = 0.0132 against ρ(1, 1/26,580²) = 0.0153 on hospital-visits.
 */
export const PERSON_DEFAULT_DELTA = 1e-10;

/** The unit's part of the budget, fixed before the reservation. */
export interface UnitBudget {
  readonly rhoCount: number;
  /** 0 when the curator gave k. */
  readonly rhoBound: number;
  /** What the engine is left with, as the ε that converts back to it at engineDelta. */
  readonly engineEpsilon: number;
  readonly engineRho: number;
}

/** ρ_count = 0.02ρ, ρ_k = 0.05ρ (k private), taken from the synthesis' share; composition (Σρ = ρ). */
export function unitBudget(budget: ReleaseBudget, unit: UnitSpec): UnitBudget {
  const rhoCount = UNIT_COUNT_SHARE * budget.rho;
  const rhoBound = unit.bound === 'private' ? UNIT_BOUND_SHARE * budget.rho : 0;
  const engineRho = budget.rhoSynthesis - rhoCount - rhoBound;
  // A hair below, as splitBudget does, so the engine's round trip never exceeds what is reserved.
  const engineEpsilon = epsilonFromRho(engineRho * (1 - 1e-12), budget.engineDelta);
  if (!(engineRho > 0 && engineEpsilon > 0)) {
    throw new RangeError(`the budget (ε = ${budget.epsilon}) is too small to split for the person level`);
  }
  return { rhoCount, rhoBound, engineEpsilon, engineRho };
}

/** Checks the unit against the table's header and the declared schema, before anything is read. */
export function checkUnitColumn(
  file: string,
  unit: UnitSpec,
  header: readonly string[],
  declared: Schema,
): void {
  if (!header.includes(unit.column)) {
    throw new InputError(
      `${file}: the unit column "${unit.column}" is not in the table (it has: ${header.join(', ')}); ` +
        'name the column that identifies the person.',
      { file, column: unit.column, field: 'unit-column' },
    );
  }
  if (declared.columns.some((c) => c.name === unit.column)) {
    throw new InputError(
      `the schema declares the unit column "${unit.column}": the column that identifies persons is never ` +
        'released; remove it from the schema.',
      { column: unit.column, field: 'unit-column' },
    );
  }
  if (unit.bound !== 'private' && !(Number.isSafeInteger(unit.bound) && unit.bound >= 1)) {
    throw new InputError(`rows per person must be an integer >= 1 or "private", got ${String(unit.bound)}`, {
      field: 'rows-per-person',
    });
  }
}

/**
 * A workload read against the table's columns (unit column included) as a workload over the
 * release's columns (unit column removed): refused when a threshold names the unit column.
 */
export function workloadWithoutUnit(workload: Workload, unitIndex: number, unitName: string): Workload {
  for (const t of workload.thresholds) {
    if (t.features.includes(unitIndex)) {
      throw new InputError(
        `the workload names the unit column "${unitName}": the column that identifies persons is never ` +
          'released and cannot be in the workload; remove it from the workload.',
        { column: unitName, field: 'workload' },
      );
    }
  }
  return {
    ...workload,
    thresholds: workload.thresholds.map((t) => ({
      ...t,
      features: t.features.map((f) => (f > unitIndex ? f - 1 : f)),
    })),
  };
}

/** What bounding released and kept (public: k, how it was chosen, n̂ and their noise). */
export interface PersonOutcome {
  readonly column: string;
  readonly bound: number;
  /** The private choice of k (null when the curator gave k). */
  readonly chosen: ChosenBound | null;
  readonly rows: RowEstimate;
}

export interface BoundedSource extends PersonOutcome {
  /** The private temporary CSV of the kept records, grouped by person, with a header row. */
  readonly file: string;
  /** Records kept (private: for the encoder's check only). */
  readonly kept: number;
  dispose(): Promise<void>;
}

/** After the reservation: reads the file, bounds each person to k records, measures n̂. */
export async function boundSource(
  file: string,
  unit: UnitSpec,
  budget: UnitBudget,
  noise: NoiseSource,
  opts: {
    readonly header?: boolean;
    readonly signal?: AbortSignal;
    /** The columns to read (column-choice.ts): the bounded file holds these only. */
    readonly choice?: TableOptions['choice'];
  } = {},
): Promise<BoundedSource> {
  const records: string[][] = [];
  let header: readonly string[] = [];
  let unitAt = -1;
  const missing = new Set(DEFAULT_MISSING_MARKERS);
  const ids: string[] = [];
  await readTable(
    file,
    {
      start(shape) {
        header = shape.header;
        unitAt = header.indexOf(unit.column);
        if (unitAt < 0) {
          throw new InputError(`${file}: the unit column "${unit.column}" is not in the table.`, {
            file,
            column: unit.column,
          });
        }
      },
      row(values) {
        records.push([...values]);
        const id = values[unitAt];
        // Every record without an identifier belongs to one and the same "person".
        ids.push(missing.has(id) ? '\u0000missing' : id);
      },
    },
    new Rejections(),
    {
      raggedAsMissing: true,
      ...(opts.header === undefined ? {} : { header: opts.header }),
      ...(opts.choice ? { choice: opts.choice } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
  );
  const { person, persons } = personIndices(ids);
  const chosen =
    unit.bound === 'private' ? chooseBound(rowsPerPerson(person, persons), budget.rhoBound, noise) : null;
  const k = chosen ? chosen.k : (unit.bound as number);
  const bounded = boundContributions(person, persons, k, noise);
  const rows = estimateRows(bounded.kept, k, budget.rhoCount, noise);
  const dir = await mkdtemp(path.join(tmpdir(), 'rap-person-'));
  const out = path.join(dir, 'bounded.csv');
  const kept: string[][] = [];
  for (let p = 0; p < persons; p++) {
    const s = bounded.start[p];
    for (let j = 0; j < bounded.taken[p]; j++) {
      const record = records[bounded.order[s + j]];
      // The records without an identifier are one person: written under one text ('' is a
      // marker), so discovery's profile, which tells persons by the text, sees one person too
      // (`?` and `NA` among them would otherwise be read as persons of their own).
      if (missing.has(record[unitAt])) record[unitAt] = '';
      kept.push(record);
    }
  }
  const config = { newline: '\r\n', header: false, quotes: true, escapeFormulae: false };
  const text = `${Papa.unparse([header as string[]], config)}\r\n${kept.length > 0 ? `${Papa.unparse(kept, config)}\r\n` : ''}`;
  await writeFile(out, text, { mode: 0o600 });
  return {
    column: unit.column,
    bound: k,
    chosen,
    rows,
    file: out,
    kept: bounded.kept,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** How the ledger event and the manifest state the unit, fixed before the reservation. */
export function unitParams(unit: UnitSpec, budget: UnitBudget) {
  return {
    kind: 'person' as const,
    column: unit.column,
    neighbours: "one person's rows added, removed or replaced",
    rowsPerPerson:
      unit.bound === 'private'
        ? `chosen privately: the smallest of ${BOUND_GRID.join(', ')} at or above the noisy ${BOUND_QUANTILE * 100}th percentile of rows per person`
        : unit.bound,
    boundRho: budget.rhoBound,
    rowCountRho: budget.rhoCount,
    bounding: 'at most k rows per person, a uniform sample (secure randomness) of a person with more',
    normaliser: 'the noisy bounded row count n̂',
    identifierReleased: false,
  };
}

/** The unit in words, for the manifest, the report and the app's screens. */
export function describeUnit(outcome: PersonOutcome): string {
  const how = outcome.chosen ? 'k chosen privately' : 'k given by the curator';
  return `person, identified by column ${outcome.column}, at most ${outcome.bound} rows each (${how})`;
}
