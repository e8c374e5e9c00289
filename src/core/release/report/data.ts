/**
 * The curator's report of one release, as data: what the private HTML report draws and what the
 * app's Results step shows (the same figures from the same function). JSON-serialisable, so it
 * is kept with the release (the CLI's REPORT.private.json, the app's result store) and a release
 * can be re-inspected after a restart, or re-rendered by `rap-studio report RELEASE_ID`.
 *
 * Everything here except `manifest` compares with the private data: curator-only diagnostics.
 */

import type { CountedDataset } from '../../data/counted.ts';
import { Rejections } from '../../data/rejections.ts';
import type { Schema } from '../../data/schema.ts';
import { readTable } from '../../data/table.ts';
import type { RapReport } from '../../engine/types.ts';
import type { Workload } from '../../workload/types.ts';
import { NON_PRIVATE_NOTE } from '../messages.ts';
import { columnFidelity, pairFidelity } from './fidelity.ts';
import {
  type ColumnFidelity,
  type PairFidelity,
  REPORT_DATA_FORMAT,
  type ReportData,
  type Score,
  type ValidityCheck,
} from './types.ts';

export { REPORT_DATA_FORMAT, type ReportData } from './types.ts';

/** Rows of the released CSV shown as a preview. */
export const PREVIEW_ROWS = 20;

/**
 * The overall score, stated where it is shown. Close to SDMetrics' quality score (column shapes
 * and column-pair trends, averaged), on the values a user of the file sees.
 */
export const SCORE_DEFINITION =
  'Overall score = the mean of two parts, each from 0 % (disjoint) to 100 % (identical). Column shapes: ' +
  '100 % × (1 − the mean over columns of the distance between the real and the released distribution: ' +
  'total variation for categorical columns, Kolmogorov–Smirnov for numeric ones; a real value that the ' +
  'release merged into "(other)" counts as not reproduced). Pair trends: 100 % × (1 − the mean over all ' +
  'pairs of columns of the total variation distance between the real and the released 2-way table, on ' +
  "the release's categories and bins).";

/** What the report reads of a finished release (release.ts's Finished has all of it). */
export interface ReportInput {
  readonly release: { readonly id: string };
  readonly name: string;
  readonly request: {
    readonly epsilon: number;
    readonly delta: number;
    readonly rho: number;
    readonly params: Readonly<Record<string, unknown>>;
  };
  readonly spec: { readonly workload: Workload; readonly noise: { readonly mode: string } };
  readonly options: { readonly mode: string };
  readonly loaded: {
    /** The encoded rows, or the exact tables of a source counted by DuckDB (no rows). */
    readonly dataset:
      | { readonly schema: Schema; readonly n: number; readonly codes: readonly ArrayLike<number>[] }
      | CountedDataset;
    readonly summary: { readonly hasHeader: boolean };
    readonly header: readonly string[];
    /** A counted source's per-column histograms (release/counted-source.ts). */
    readonly histograms?: { readonly columns: ReadonlyMap<string, ReadonlyMap<string, number>> };
    /** A counted source's report samples of its columns too wide to keep (counted-source.ts). */
    readonly samples?: ReadonlyMap<string, readonly string[]>;
    readonly trimmed?: boolean;
  };
  readonly result: {
    readonly report: RapReport;
    readonly synthetic: { readonly n: number; readonly codes: readonly ArrayLike<number>[] };
  };
}

/** The first rows of the released CSV, as written. */
async function preview(csv: string): Promise<ReportData['preview']> {
  let header: readonly string[] = [];
  const rows: string[][] = [];
  await readTable(
    csv,
    {
      start: (s) => {
        header = s.header;
      },
      row: (v) => {
        if (rows.length < PREVIEW_ROWS) rows.push([...v]);
      },
    },
    new Rejections(),
    { header: true },
  );
  return { header: [...header], rows };
}

function thresholdLabel(schema: Schema, t: Workload['thresholds'][number]): string {
  return `${t.r}-of-{${t.features.map((f) => schema.columns[f]?.name ?? `#${f}`).join(', ')}}`;
}

export function scoreOf(columns: readonly ColumnFidelity[], pairs: PairFidelity): Score {
  const shapes = columns.length === 0 ? 1 : 1 - columns.reduce((s, c) => s + c.distance, 0) / columns.length;
  const tvs: number[] = [];
  pairs.tv.forEach((row, i) => {
    row.forEach((v, j) => {
      if (j > i && v !== null) tvs.push(v);
    });
  });
  const trends = tvs.length === 0 ? null : 1 - tvs.reduce((s, x) => s + x, 0) / tvs.length;
  return {
    overall: trends === null ? shapes : (shapes + trends) / 2,
    columnShapes: shapes,
    pairTrends: trends,
    definition: SCORE_DEFINITION,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

export function validityOf(columns: readonly ColumnFidelity[]): ReportData['validity'] {
  const outside = columns.filter((c) => c.outsideDomain > 0);
  const constant = columns.filter((c) => c.syntheticDistinct <= 1 && c.realDistinct > 1);
  // Listed from 0.05 % of the rows (a few stray values outside a numeric range are not news).
  const merged = columns
    .filter((c) => c.merged.share >= 5e-4)
    .sort((a, b) => b.merged.share - a.merged.share);
  const checks: ValidityCheck[] = [
    {
      code: 'outside-domain',
      ok: outside.length === 0,
      title: 'Values inside the domain',
      detail:
        outside.length === 0
          ? 'Every released value is one the domain holds.'
          : `Released values outside the domain: ${outside.map((c) => `${c.name} (${c.outsideDomain})`).join(', ')}.`,
      columns: outside.map((c) => c.name),
    },
    {
      code: 'constant-column',
      ok: constant.length === 0,
      title: 'No constant columns',
      detail:
        constant.length === 0
          ? 'Every column that varies in the real data varies in the release.'
          : `Released as one value although the real data varies: ${constant.map((c) => c.name).join(', ')}.`,
      columns: constant.map((c) => c.name),
    },
    {
      code: 'merged-categories',
      ok: merged.every((c) => c.merged.share < 0.05),
      title: 'Few merged values',
      detail:
        merged.length === 0
          ? "Every real value is one the release's domain names."
          : `Real values the release does not name (merged into "(other)", or outside the numeric range): ${merged
              .map((c) => `${c.name} ${pct(c.merged.share)} of rows`)
              .join(', ')}.`,
      columns: merged.map((c) => c.name),
    },
  ];
  return { ok: checks.every((c) => c.ok), checks };
}

function timingsOf(r: RapReport): ReportData['timings'] {
  const out = [
    { label: 'whole run (engine)', seconds: r.secondsTotal },
    { label: 'selection', seconds: r.secondsSelection },
    { label: 'projection (fitting the synthetic data)', seconds: r.secondsProjection },
  ];
  const t = r.timings;
  if (t) {
    out.push(
      { label: 'sparsemax', seconds: t.sparsemax },
      { label: 'loss and gradient', seconds: t.lossGradient },
      { label: 'relaxed answers', seconds: t.relaxedAnswers },
      { label: 'exact answers', seconds: t.exactAnswers },
      { label: 'privacy noise', seconds: t.noise },
      { label: 'final evaluation', seconds: t.evaluation },
    );
  }
  return out;
}

/**
 * Builds the report of a finished release whose synthetic CSV is at `releasedCsv`; reads the
 * private file at `privatePath` again (the curator's machine, the curator's report).
 */
export async function buildReportData(
  f: ReportInput,
  privatePath: string,
  releasedCsv: string,
  manifest: Readonly<Record<string, unknown>>,
): Promise<ReportData> {
  const r = f.result.report;
  const schema = f.loaded.dataset.schema;
  const columns = await columnFidelity(
    {
      path: privatePath,
      hasHeader: f.loaded.summary.hasHeader,
      header: f.loaded.header,
      rows: f.loaded.dataset.n,
      ...(f.loaded.histograms
        ? {
            histograms: {
              columns: f.loaded.histograms.columns,
              trimmed: f.loaded.trimmed === true,
              ...(f.loaded.samples ? { samples: f.loaded.samples } : {}),
            },
          }
        : {}),
    },
    { path: releasedCsv, rows: f.result.synthetic.n },
    schema.columns,
  );
  const real = f.loaded.dataset as Parameters<typeof pairFidelity>[0];
  const synthetic = { schema, n: f.result.synthetic.n, codes: f.result.synthetic.codes } as Parameters<
    typeof pairFidelity
  >[1];
  const pairs = pairFidelity(real, synthetic);
  const discovery = f.request.params.discovery as
    | { share: number; rho: number; delta: number; synthesisRho: number }
    | undefined;
  const present = r.errorTables?.present;
  const thresholds = f.spec.workload.thresholds.map((t, i) => {
    const row = present?.perThreshold[i];
    return {
      label: thresholdLabel(schema, t),
      weight: t.weight,
      relaxed: row?.relaxed ?? Number.NaN,
      released: row?.released ?? r.perThresholdError[i] ?? Number.NaN,
      all0: row?.all0 ?? Number.NaN,
      gm: row?.gm ?? Number.NaN,
    };
  });
  const names = schema.columns.map((c) => c.name);
  const tm = r.tableMode;
  return {
    format: REPORT_DATA_FORMAT,
    version: 1,
    releaseId: f.release.id,
    datasetName: f.name,
    createdAt: new Date().toISOString(),
    manifest,
    privacy: {
      epsilon: f.request.epsilon,
      delta: f.request.delta,
      rho: f.request.rho,
      discovery: discovery ? { rho: discovery.rho, delta: discovery.delta, share: discovery.share } : null,
      synthesis: { rho: discovery ? discovery.synthesisRho : r.rho },
    },
    run: {
      mode: f.options.mode,
      strategy: tm?.strategy ?? null,
      rounds: r.rounds,
      perRound: r.perRound,
      relaxedRows: r.rows,
      releasedRows: f.result.synthetic.n,
      numQueries: r.numQueries,
      backend: r.backend,
      backendNote: r.backendNote ?? null,
      seedMode: f.spec.noise.mode,
    },
    score: scoreOf(columns, pairs),
    validity: validityOf(columns),
    columns,
    pairs,
    workload: {
      max: present?.max ?? {
        relaxed: r.presentError,
        released: r.roundedPresentError,
        all0: r.all0Error,
        gm: r.gmError,
      },
      meanError: r.meanError,
      roundedMeanError: r.roundedMeanError,
      thresholds,
    },
    profile: r.relativeErrorProfile.map((p) => ({ ...p })),
    merges: {
      columns: columns
        .filter((c) => c.merged.share > 0 || c.otherShare > 0)
        .map((c) => ({
          name: c.name,
          values: c.merged.values,
          share: c.merged.share,
          otherShare: c.otherShare,
        })),
      grouped:
        tm && 'compressed' in tm
          ? tm.compressed.map((g) => ({
              name: names[g.feature] ?? `#${g.feature}`,
              categories: g.categories,
              groups: g.groups,
            }))
          : [],
    },
    timings: timingsOf(r),
    preview: await preview(releasedCsv),
    note: NON_PRIVATE_NOTE,
  };
}
