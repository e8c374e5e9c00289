/**
 * Each release as a Frictionless Data Package (https://specs.frictionlessdata.io/data-package/):
 * `<csv without .csv>.datapackage.json` beside the synthetic CSV, one tabular resource — the CSV,
 * its SHA-256 and its Table Schema (the released domain: declared or discovered with DP, so
 * public) — and a `rap-studio` property with the release's privacy statement and each column's
 * provenance, as the manifest carries them. Built from the manifest alone (publish.ts writes it
 * after the manifest, with the same exclusive create), so the CLI and the app's export write the
 * same file.
 *
 * The name: a folder may hold several releases, and no release overwrites a file it did not
 * create, so the descriptor is named after its CSV rather than the bare `datapackage.json`
 * (Frictionless tools read a descriptor at any path).
 */
import { basename } from 'node:path';
import { z } from 'zod';
import type { Schema } from '../data/schema.ts';
import {
  dataPackageJson,
  RAP_KEY,
  type TableSchemaJson,
  tableSchemaJson,
  toTableSchema,
} from '../data/table-schema.ts';
import { asWrittenSchema, type WrittenCsv } from './output.ts';
import { OUTPUT_MEDIA, outputFormatOf } from './output-format.ts';

export const DATA_PACKAGE_FORMAT = 'rap-studio-data-package';

/** The released file's name less its .csv / .parquet / .xlsx / .sav / .dta extension. */
export function releasedStem(file: string): string {
  return file.replace(/\.(csv|parquet|xlsx|sav|dta)$/i, '');
}

/** `<released file without .csv / .parquet / .xlsx / .sav / .dta>.datapackage.json`. */
export function dataPackagePathFor(csvPath: string): string {
  return `${releasedStem(csvPath)}.datapackage.json`;
}

/** The released CSV's Table Schema, as its cells are written (formula-escaped categories); for the manifest. */
export function releasedTableSchema(schema: Schema): TableSchemaJson {
  return toTableSchema(asWrittenSchema(schema));
}

/** A Data Package name: lower-case letters, digits, `-`, `_`, `.` (the spec's pattern). */
function packageName(file: string): string {
  return (
    releasedStem(basename(file))
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-._]+|[-._]+$/g, '') || 'synthetic'
  );
}

const provenanceEntry = z.looseObject({
  name: z.string(),
  domain: z.string(),
  rho: z.number().optional(),
  delta: z.number().optional(),
});

/** What the Data Package reads of the manifest (manifest.ts: manifestFields, publish.ts: publicManifest). */
const manifestPart = z.looseObject({
  releaseId: z.string(),
  appVersion: z.string(),
  notARelease: z.string().optional(),
  createdAt: z.string(),
  mechanism: z.unknown(),
  privacy: z.looseObject({ epsilon: z.number(), delta: z.number(), rho: z.number() }),
  seedMode: z.string(),
  unit: z.unknown(),
  dataset: z.looseObject({ source: z.unknown().optional() }).optional(),
  schema: z.looseObject({ columns: z.array(provenanceEntry), tableSchema: tableSchemaJson }),
});

/** Our own descriptor's shape: a Data Package with one tabular resource and the rap-studio property. */
export const releaseDataPackageJson = dataPackageJson.extend({
  profile: z.literal('tabular-data-package'),
  resources: z
    .array(
      z.looseObject({
        name: z.string().regex(/^[a-z0-9._-]+$/),
        path: z.string(),
        profile: z.literal('tabular-data-resource'),
        format: z.enum(['csv', 'parquet', 'xlsx', 'sav', 'dta']),
        mediatype: z.enum(Object.values(OUTPUT_MEDIA).map((m) => m.mediatype) as [string, ...string[]]),
        // A text file's encoding (CSV only: Parquet and .xlsx are binary formats).
        encoding: z.literal('utf-8').optional(),
        hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
        schema: tableSchemaJson,
      }),
    )
    .length(1),
  [RAP_KEY]: z.looseObject({
    format: z.literal(DATA_PACKAGE_FORMAT),
    releaseId: z.string(),
    manifest: z.string(),
    columns: z.array(provenanceEntry),
  }),
});

/**
 * The descriptor, from the manifest as written and the CSV; undefined when the manifest carries
 * no Table Schema (a manifest stored by an older version: its export writes no Data Package).
 */
export function dataPackageFor(
  manifest: Readonly<Record<string, unknown>>,
  csv: WrittenCsv,
  manifestPath: string,
): Record<string, unknown> | undefined {
  if ((manifest.schema as { tableSchema?: unknown } | undefined)?.tableSchema === undefined) return undefined;
  // Our own manifest: a field missing here is a bug, reported rather than skipped.
  const m = { data: manifestPart.parse(manifest) };
  const { tableSchema, columns } = m.data.schema;
  // The CSV's column order (the input's), not the schema's.
  const byName = new Map(tableSchema.fields.map((f) => [f.name, f]));
  const fields = csv.header.map((h) => byName.get(h)).filter((f) => f !== undefined);
  const name = packageName(csv.path);
  const format = outputFormatOf(csv.path) ?? 'csv';
  const media = { ...OUTPUT_MEDIA[format], ...(format === 'csv' ? { encoding: 'utf-8' } : {}) };
  const descriptor = {
    profile: 'tabular-data-package',
    name,
    title: `Synthetic data, release ${m.data.releaseId}`,
    description:
      (m.data.notARelease ? `${m.data.notARelease}. ` : '') +
      `Differentially private synthetic data made by RAP Studio ${m.data.appVersion} (ε = ${m.data.privacy.epsilon}, ` +
      `δ = ${m.data.privacy.delta}); the release manifest ${basename(manifestPath)} states every mechanism.`,
    created: m.data.createdAt,
    resources: [
      {
        name,
        path: basename(csv.path),
        profile: 'tabular-data-resource',
        ...media,
        hash: `sha256:${csv.sha256}`,
        schema: { ...tableSchema, fields },
      },
    ],
    [RAP_KEY]: {
      format: DATA_PACKAGE_FORMAT,
      version: 1,
      releaseId: m.data.releaseId,
      manifest: basename(manifestPath),
      ...(m.data.notARelease ? { notARelease: m.data.notARelease } : {}),
      privacy: m.data.privacy,
      mechanism: m.data.mechanism,
      seedMode: m.data.seedMode,
      unit: m.data.unit,
      // A database source by kind only (manifest.ts: DATABASE_SOURCE_STATEMENT).
      ...(m.data.dataset?.source ? { source: m.data.dataset.source } : {}),
      columns,
    },
  };
  // Our own writer checked by our own schema: a descriptor that would not read back is a bug.
  releaseDataPackageJson.parse(descriptor);
  return descriptor;
}
