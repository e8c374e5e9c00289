/**
 * The Results step: the run's report and real-vs-synthetic marginals. These compare with the
 * exact private answers: non-private diagnostics for the curator's own screen, never part of a
 * release (the manifest leaves them out).
 */
import { existsSync } from 'node:fs';
import { isCounted, type PrivateData } from '../core/data/counted.ts';
import { decodedRows } from '../core/data/decode.ts';
import { Rejections } from '../core/data/rejections.ts';
import type { EncodedDataset } from '../core/data/schema.ts';
import { readTable } from '../core/data/table.ts';
import { ksTwoSample } from '../core/data/two-sample.ts';
import { parseNumber } from '../core/data/values.ts';
import { exactCounts } from '../core/engine/counted-tables.ts';
import { InputError } from '../core/errors.ts';
import { NON_PRIVATE_NOTE } from '../core/release/messages.ts';
import { cdfAt, countedCovers } from '../core/release/report/fidelity.ts';
import type { MarginalView, ResultsView } from '../shared/api.ts';
import { categoryLabels, columnIndex } from './datasets.ts';
import { finishedOf, type RunRecord } from './runs.ts';
import { namedThresholds } from './workloads.ts';

function finished(run: RunRecord) {
  const f = finishedOf(run);
  if (!f) throw new InputError('This run has no results: it has not finished. Start a run on the Run step.');
  return f;
}

export function resultsView(run: RunRecord): ResultsView {
  const { result, loaded } = finished(run);
  const r = result.report;
  const { workload, evalWorkload } = run.prepared.spec;
  // The schema the engine ran on: declared, or discovered privately after the reservation.
  const schema = loaded.dataset.schema;
  const named = namedThresholds(workload, schema);
  const tables = r.errorTables;
  return {
    runId: run.id,
    presentError: r.presentError,
    roundedPresentError: r.roundedPresentError,
    meanError: r.meanError,
    roundedMeanError: r.roundedMeanError,
    all0Error: r.all0Error,
    gmError: r.gmError,
    numQueries: r.numQueries,
    rounds: r.rounds,
    perRound: r.perRound,
    rows: r.rows,
    syntheticRows: result.synthetic.n,
    secondsTotal: r.secondsTotal,
    backend: r.backend,
    seedMode: r.seedMode,
    relativeErrorProfile: r.relativeErrorProfile.map((p) => ({ ...p })),
    certificate: r.certificate
      ? {
          ...r.certificate,
          before: r.relativeErrorAtCertificate?.before ?? null,
          after: r.relativeErrorAtCertificate?.after ?? null,
        }
      : null,
    thresholds: named.map((t, i) => ({ ...t, error: r.perThresholdError[i] ?? 0 })),
    futureError: r.futureError ?? null,
    roundedFutureError: r.roundedFutureError ?? null,
    errors: tables ? { present: tables.present, future: tables.future[0] ?? null } : null,
    futureThresholds: evalWorkload ? namedThresholds(evalWorkload, schema) : [],
    features: schema.columns.map((c) => c.name),
    note: NON_PRIVATE_NOTE,
  };
}

function fractions(data: PrivateData, features: readonly number[]): number[] {
  if (isCounted(data) && !countedCovers(data, features)) {
    throw new InputError(
      "This release counted the workload's tables only (in DuckDB or the database; no rows kept): choose features that one " +
        'of its marginals holds together.',
    );
  }
  const counts = exactCounts(data, features);
  return Array.from(counts, (c) => (data.n > 0 ? c / data.n : 0));
}

/** Largest 2-way table the comparison draws (a heatmap past this is unreadable anyway). */
const MAX_CELLS = 10_000;

/** Sorted numbers of one column of a CSV: the private file (the curator's screen only) or the release. */
async function realNumbers(file: string, column: string, header: boolean): Promise<Float64Array> {
  const out: number[] = [];
  let at = -1;
  await readTable(
    file,
    {
      start: (shape) => {
        at = shape.header.indexOf(column);
      },
      row: (values) => {
        const x = at >= 0 ? parseNumber(values[at]) : undefined;
        if (x !== undefined) out.push(x);
      },
    },
    new Rejections(),
    { header },
  );
  return Float64Array.from(out).sort();
}

/** The synthetic values of a numeric column: the released rows themselves when stored. */
async function syntheticNumbers(
  run: RunRecord,
  j: number,
  releasedCsv: string | null,
): Promise<Float64Array> {
  const { result, loaded } = finished(run);
  const schema = loaded.dataset.schema;
  if (releasedCsv !== null && existsSync(releasedCsv)) {
    return realNumbers(releasedCsv, schema.columns[j].name, true);
  }
  // Only in memory (the store could not take it): a fresh decode of the same codes.
  const column = { ...schema, columns: [schema.columns[j]] };
  return Float64Array.from(
    [...decodedRows(column, [result.synthetic.codes[j]], result.synthetic.n)].flatMap((r) => {
      const x = parseNumber(r[0]);
      return x === undefined ? [] : [x];
    }),
  ).sort();
}

async function numericDistribution(
  run: RunRecord,
  feature: string,
  releasedCsv: string | null,
): Promise<MarginalView['distribution']> {
  const { loaded } = finished(run);
  const schema = loaded.dataset.schema;
  const j = columnIndex(schema, feature);
  if (schema.columns[j].kind !== 'numeric') return undefined;
  // A database source has no file to read the real values from (no row leaves the database).
  if (run.dataset.database) return undefined;
  const real = await realNumbers(run.dataset.path, feature, loaded.summary.hasHeader);
  if (real.length === 0) return undefined;
  const synthetic = await syntheticNumbers(run, j, releasedCsv);
  // A fine grid: both samples' quantiles at every 0.5% (their extremes included), so the chart
  // shows where either distribution moves — also synthetic mass outside the real range.
  const grid = new Set<number>();
  for (const sorted of [real, synthetic]) {
    for (let i = 0; i <= GRID_STEPS && sorted.length > 0; i++) {
      grid.add(sorted[Math.min(sorted.length - 1, Math.floor((i / GRID_STEPS) * sorted.length))]);
    }
  }
  const x = [...grid].sort((a, b) => a - b);
  return {
    x,
    real: x.map((v) => cdfAt(real, v)),
    synthetic: x.map((v) => cdfAt(synthetic, v)),
    // The exact largest gap between the two cumulative distributions over all values (the bench's
    // KS, the same function), not only on the grid.
    ks: ksTwoSample(real, synthetic),
  };
}

/** Quantile steps per sample on the distribution chart's grid (every 0.5%). */
const GRID_STEPS = 200;

/**
 * Real against synthetic: the bins of one or two features and, for one numeric feature, its
 * distribution, compared with the released rows (`releasedCsv`, the result store's file) so the
 * chart shows exactly what is published.
 */
export async function marginalView(
  run: RunRecord,
  features: readonly string[],
  releasedCsv: string | null = null,
): Promise<MarginalView> {
  const view = marginalBins(run, features);
  if (features.length !== 1) return view;
  const distribution = await numericDistribution(run, features[0], releasedCsv);
  return distribution ? { ...view, distribution } : view;
}

function marginalBins(run: RunRecord, features: readonly string[]): MarginalView {
  const { result, loaded } = finished(run);
  if (features.length < 1 || features.length > 2 || new Set(features).size !== features.length) {
    throw new InputError('Choose one feature, or two different features, to compare.');
  }
  const schema = loaded.dataset.schema;
  const idx = features.map((f) => columnIndex(schema, f));
  const labels = idx.map((j) => categoryLabels(schema, j));
  const cells = labels.reduce((p, l) => p * l.length, 1);
  if (cells > MAX_CELLS) {
    throw new InputError(
      `That table has ${cells.toLocaleString('en-US')} cells; choose features with fewer categories.`,
    );
  }
  const synthetic: EncodedDataset = { schema, n: result.synthetic.n, codes: result.synthetic.codes };
  return {
    features: [...features],
    labels,
    real: fractions(loaded.dataset, idx),
    synthetic: fractions(synthetic, idx),
  };
}
