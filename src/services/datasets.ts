/**
 * The curator's open datasets: the file, its current schema (inferred, declared, confirmed or
 * edited), the encoded rows for the curator's own screens (preview, histograms), and the
 * workloads built against it. Nothing here reaches the ledger or the engine: a run reads the
 * file again through the release pipeline (runs.ts, src/core/release).
 */
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseDomainJson } from '../core/data/benchmark.ts';
import { readCsvRecords } from '../core/data/csv.ts';
import { type LoadOptions, type LoadProgress, type LoadResult, loadCsv } from '../core/data/load.ts';
import { Rejections } from '../core/data/rejections.ts';
import { domainSize, type Schema } from '../core/data/schema.ts';
import { parseSchemaJson } from '../core/data/schema-file.ts';
import { isKeptAsMissing, readTable } from '../core/data/table.ts';
import { DEFAULT_MISSING_MARKERS, integerRange } from '../core/data/values.ts';
import { InputError } from '../core/errors.ts';
import type {
  BudgetView,
  DatasetFormat,
  DatasetView,
  HistogramView,
  OpenDatasetArg,
  ThresholdInput,
  UnitHint,
  WorkloadRole,
} from '../shared/api.ts';
import { schemaView } from './schema-view.ts';
import type { ServiceContext } from './service-context.ts';
import { readablePath } from './upload-guard.ts';

/** Rows shown in the Data step's preview. */
export const PREVIEW_ROWS = 200;

export interface OpenedDataset {
  readonly id: string;
  /** The real path the host reads. */
  readonly path: string;
  readonly fileName: string;
  readonly format: DatasetFormat;
  readonly bytes: number;
  /** The schema the next run uses (the loaded dataset is encoded with the same domains). */
  schema: Schema;
  loaded: LoadResult;
  readonly preview: DatasetView['preview'];
  readonly workloads: Record<WorkloadRole, readonly ThresholdInput[]>;
  /**
   * The first row was taken for the header by a guess (Header row "Detect", no declared schema
   * naming the columns): a release would publish those names, so the app asks the curator
   * (setHeader) and refuses to run until they answer (docs/privacy.md, "The header rule").
   */
  headerGuessed: boolean;
  /** Category limits the curator raised, by column (setCategoryLimit); others: the default 1,000. */
  readonly categoryLimits: Readonly<Record<string, number>>;
}

const HEADER_MODES = { auto: 'auto', yes: true, no: false } as const;

/**
 * The loader names files by path; in web mode that is a private upload folder the curator never
 * chose. Messages name the file as the curator knows it.
 */
export function namedAs<T>(path: string, fileName: string, fn: () => Promise<T>): Promise<T> {
  return fn().catch((err: unknown) => {
    if (err instanceof InputError && err.message.includes(path)) {
      throw new InputError(err.message.split(path).join(fileName), err.where);
    }
    throw err;
  });
}

class PreviewFull extends Error {}

/** The first rows as text, for the curator's own preview (read once, held in memory). */
async function readPreview(path: string, hasHeader: boolean, header: readonly string[]) {
  const rows: string[][] = [];
  const skip = hasHeader ? 1 : 0;
  let seen = 0;
  try {
    await readCsvRecords(path, (fields) => {
      if (seen++ < skip) return;
      rows.push(fields);
      if (rows.length >= PREVIEW_ROWS) throw new PreviewFull();
    });
  } catch (err) {
    if (!(err instanceof PreviewFull)) throw err;
  }
  return { columns: [...header], rows };
}

function throttled(ctx: ServiceContext): (p: LoadProgress) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (now - last < 100 && p.bytes < p.totalBytes) return;
    last = now;
    ctx.emit({ type: 'load-progress', bytes: p.bytes, totalBytes: p.totalBytes, phase: p.phase });
  };
}

function declaredSchema(arg: OpenDatasetArg): { schema?: Schema; format: DatasetFormat } {
  if (arg.domainText !== undefined && arg.schemaText !== undefined) {
    throw new InputError('Give either a schema file or a benchmark domain file, not both.');
  }
  if (arg.domainText !== undefined)
    return { schema: parseDomainJson(arg.domainText, 'the domain file'), format: 'benchmark' };
  if (arg.schemaText !== undefined)
    return { schema: parseSchemaJson(arg.schemaText, 'the schema file'), format: 'csv' };
  return { format: 'csv' };
}

export async function openDataset(
  ctx: ServiceContext,
  arg: OpenDatasetArg,
  categoryLimits: Readonly<Record<string, number>> = {},
): Promise<OpenedDataset> {
  const path = await readablePath(ctx, arg.path);
  const { schema, format } = declaredSchema(arg);
  const fileName = arg.name ?? basename(arg.path);
  const opts: LoadOptions = {
    header: HEADER_MODES[arg.header ?? 'auto'],
    // The release's rule for a row of the wrong width (docs/privacy.md): kept, every value missing.
    raggedAsMissing: true,
    onProgress: throttled(ctx),
    // One column's cardinality never refuses the whole file: it is set aside, and the Schema step
    // asks the curator to leave it out, mark it as the identifier, or raise its limit.
    overLimit: 'set-aside',
    columnLimits: categoryLimits,
    ...(schema ? { schema } : {}),
  };
  const loaded = await namedAs(path, fileName, () => loadCsv(path, opts));
  const { size } = await stat(path);
  return {
    id: randomUUID(),
    path,
    fileName,
    format,
    bytes: size,
    schema: loaded.dataset.schema,
    loaded,
    preview: await readPreview(path, loaded.summary.hasHeader, loaded.header),
    workloads: { main: [], eval: [] },
    headerGuessed: (arg.header ?? 'auto') === 'auto' && !schema && loaded.summary.hasHeader,
    categoryLimits,
  };
}

/**
 * A column's category limit raised (or lowered) on the curator's screens: the file is read again
 * with it, as the curator last said about its header; the workloads are kept.
 */
export async function withCategoryLimit(
  ctx: ServiceContext,
  ds: OpenedDataset,
  column: string,
  limit: number,
): Promise<OpenedDataset> {
  if (!ds.loaded.header.includes(column)) {
    throw new InputError(`${ds.fileName}: no column named "${column}".`, { column });
  }
  const again = await openDataset(
    ctx,
    { path: ds.path, name: ds.fileName, header: ds.loaded.summary.hasHeader ? 'yes' : 'no' },
    { ...ds.categoryLimits, [column]: limit },
  );
  if (again.loaded.fingerprint !== ds.loaded.fingerprint) {
    throw new InputError(`${ds.fileName}: the file changed since it was opened; open it again.`, {
      file: ds.fileName,
    });
  }
  return { ...again, id: ds.id, workloads: ds.workloads, headerGuessed: ds.headerGuessed };
}

/**
 * Encodes the file again under a new schema (edited, imported). The file must still be the one
 * that was opened; a schema that rejects every row is refused and the old one stays.
 */
export async function applySchema(ctx: ServiceContext, ds: OpenedDataset, schema: Schema): Promise<void> {
  const loaded = await namedAs(ds.path, ds.fileName, () =>
    loadCsv(ds.path, {
      schema,
      header: ds.loaded.summary.hasHeader,
      raggedAsMissing: true,
      onProgress: throttled(ctx),
    }),
  );
  if (loaded.fingerprint !== ds.loaded.fingerprint) {
    throw new InputError(`${ds.fileName}: the file changed since it was opened; open it again.`, {
      file: ds.fileName,
    });
  }
  // Columns set aside for their category limit stay so (a schema given to loadCsv sets none
  // aside): the curator's choice for them — left out, the identifier — still applies.
  const setAside = ds.loaded.summary.overLimit.filter(
    (o) => !schema.columns.some((c) => c.name === o.column),
  );
  ds.loaded = { ...loaded, summary: { ...loaded.summary, overLimit: setAside } };
  ds.schema = schema;
}

/** `budget`: the dataset's budget in the ledger (UNREGISTERED_BUDGET when the ledger cannot be read). */
export function datasetView(ds: OpenedDataset, budget: BudgetView): DatasetView {
  const s = ds.loaded.summary;
  return {
    id: ds.id,
    fileName: ds.fileName,
    format: ds.format,
    fingerprint: ds.loaded.fingerprint,
    bytes: ds.bytes,
    header: [...ds.loaded.header],
    hasHeader: s.hasHeader,
    headerGuessed: ds.headerGuessed,
    delimiter: s.delimiter,
    rowsRead: s.rowsRead,
    rowsAccepted: s.rowsAccepted,
    rejected: s.rejected
      .filter((r) => !isKeptAsMissing(r.reason))
      .map((r) => ({ reason: r.reason, count: r.count, firstLine: r.firstLine })),
    keptAsMissing: s.rejected
      .filter((r) => isKeptAsMissing(r.reason))
      .map((r) => ({ reason: r.reason, count: r.count, firstLine: r.firstLine })),
    blankLines: s.blankLines,
    // Columns set aside for their category limit are listed apart (overLimit), not as ignored.
    ignoredColumns: s.ignoredColumns.filter((c) => !s.overLimit.some((o) => o.column === c)),
    overLimit: s.overLimit.map((o) => ({ ...o })),
    preview: ds.preview,
    schema: schemaView(ds.schema),
    budget,
  };
}

function binLabel(edges: readonly number[], bin: number, integer: boolean): string {
  if (integer) {
    const { low, high } = integerRange(edges, bin);
    return low === high ? String(low) : `${low}–${high}`;
  }
  const last = bin === edges.length - 2;
  return `[${edges[bin]}, ${edges[bin + 1]}${last ? ']' : ')'}`;
}

/** Category labels of a column, the missing category last. */
export function categoryLabels(schema: Schema, column: number): string[] {
  const c = schema.columns[column];
  const labels =
    c.kind === 'categorical'
      ? [...c.categories]
      : c.edges.slice(0, -1).map((_, b) => binLabel(c.edges, b, c.integer));
  if (c.missing) labels.push('(missing)');
  return labels;
}

export function columnIndex(schema: Schema, name: string): number {
  const i = schema.columns.findIndex((c) => c.name === name);
  if (i < 0) throw new InputError(`No column named "${name}" in the schema.`, { column: name });
  return i;
}

/** One-way counts of a column on the curator's own screen. */
export function histogram(ds: OpenedDataset, column: string): HistogramView {
  const { dataset } = ds.loaded;
  const j = columnIndex(dataset.schema, column);
  const col = dataset.schema.columns[j];
  const counts = new Array<number>(domainSize(col)).fill(0);
  const codes = dataset.codes[j];
  for (let i = 0; i < dataset.n; i++) counts[codes[i]]++;
  return { column, kind: col.kind, labels: categoryLabels(dataset.schema, j), counts };
}

/** Distinct values a column's hint counts at most (a column with more is not a repeating identifier). */
const HINT_MAX_DISTINCT = 200_000;

/**
 * How often each column's values repeat, read off the private file for the curator's Data step
 * only (never released, never in the ledger): a column with many distinct values of which some
 * fill several rows looks like a person identifier, so a curator who did not name a unit is told.
 */
export async function unitHints(ds: OpenedDataset): Promise<UnitHint[]> {
  const counts: (Map<string, number> | undefined)[] = [];
  let header: readonly string[] = [];
  let rows = 0;
  const missing = new Set(DEFAULT_MISSING_MARKERS);
  await namedAs(ds.path, ds.fileName, () =>
    readTable(
      ds.path,
      {
        start(shape) {
          header = shape.header;
          for (let c = 0; c < header.length; c++) counts.push(new Map());
        },
        row(values) {
          rows++;
          for (let c = 0; c < values.length; c++) {
            const m = counts[c];
            if (!m || missing.has(values[c])) continue;
            m.set(values[c], (m.get(values[c]) ?? 0) + 1);
            if (m.size > HINT_MAX_DISTINCT) counts[c] = undefined;
          }
        },
      },
      new Rejections(),
      { header: ds.loaded.summary.hasHeader, raggedAsMissing: true },
    ),
  );
  return header.map((column, c) => {
    const m = counts[c];
    const distinct = m ? m.size : HINT_MAX_DISTINCT;
    let maxRows = 0;
    for (const v of m?.values() ?? []) maxRows = Math.max(maxRows, v);
    // Many distinct values (at least 5% of the rows, and more than 50) yet some repeat: the shape
    // of an identifier of persons with several rows (patient ids, customer numbers).
    const looksLikeIdentifier =
      m !== undefined && distinct > 50 && distinct >= 0.05 * rows && maxRows >= 2 && distinct < rows;
    return { column, rows, distinct, maxRows, looksLikeIdentifier };
  });
}
