/**
 * The Results step: the run's report and real-vs-synthetic marginals. These compare with the
 * exact private answers: non-private diagnostics for the curator's own screen, never part of a
 * release (the manifest leaves them out).
 */
import type { EncodedDataset } from '../core/data/schema.ts';
import { InputError } from '../core/errors.ts';
import { NON_PRIVATE_NOTE } from '../core/release/messages.ts';
import { contingencyTable } from '../core/workload/exact.ts';
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
  const { result } = finished(run);
  const r = result.report;
  const { workload, source } = run.prepared.spec;
  const named = namedThresholds(workload, source.schema);
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
    thresholds: named.map((t, i) => ({ ...t, error: r.perThresholdError[i] ?? 0 })),
    futureError: r.futureError ?? null,
    roundedFutureError: r.roundedFutureError ?? null,
    features: source.schema.columns.map((c) => c.name),
    note: NON_PRIVATE_NOTE,
  };
}

function fractions(data: EncodedDataset, features: readonly number[]): number[] {
  const counts = contingencyTable(data, features);
  return Array.from(counts, (c) => (data.n > 0 ? c / data.n : 0));
}

/** Largest 2-way table the comparison draws (a heatmap past this is unreadable anyway). */
const MAX_CELLS = 10_000;

export function marginalView(run: RunRecord, features: readonly string[]): MarginalView {
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
