/**
 * The public release manifest's fields, written beside the synthetic CSV by the CLI and the app
 * alike (publish.ts adds the time, the keyed ledger head and the output). Every field is public:
 * the parameters, ρ/ε/δ and how discovery and synthesis share them, the ledger's release id, each
 * column's provenance (declared / discovered privately / domain not differentially private).
 * Nothing computed from the private file goes in: no hash of the input (the ledger keeps that
 * fingerprint for itself) and no error metric (those go to the curator's private report) — except
 * the accuracy certificate, which is the output of a stated DP mechanism (the relative-error
 * pass's range monitor) and is paid for.
 */
import type { ValueLabelSet } from '../data/formats/declarations.ts';
import { describeSchemaOrigin, type Schema } from '../data/schema.ts';
import { statementOf, type TablePlanStatement } from '../engine/public-plan.ts';
import type { AccuracyCertificate, TableStrategy } from '../engine/types.ts';
import type { ReserveRequest } from '../ledger/types.ts';
import type { SeedMode } from '../privacy/noise.ts';
import { APP_VERSION } from '../version.ts';
import type { Workload } from '../workload/types.ts';
import { workloadToObject } from '../workload/workload.ts';
import { releasedStem, releasedTableSchema } from './data-package.ts';
import { FORMULA_ESCAPE_NOTE } from './output.ts';
import { describeUnit, type PersonOutcome } from './person.ts';

/** What the manifest reads of a finished release (release.ts's Finished has all of it). */
export interface ManifestInput {
  readonly release: { readonly id: string };
  /** An SPSS/Stata input's value labels that are declared categories (release.ts Prepared). */
  readonly valueLabels?: readonly ValueLabelSet[];
  readonly request: ReserveRequest;
  readonly plan: { readonly rho: number };
  readonly options: { readonly mode: string };
  readonly spec: {
    /** A database source is described by kind only in public files (release/database.ts). */
    readonly source?: { readonly postgres?: { readonly query?: string } };
    readonly noise: { readonly mode: SeedMode };
    readonly workload: Workload;
  };
  readonly result: {
    readonly report: {
      readonly backend: string;
      readonly rounds?: number;
      readonly perRound?: number;
      readonly tableMode?: {
        readonly strategy: TableStrategy;
        readonly roundBound: number;
        /** The one-way start: features, and how many of their one-ways discovery paid for. */
        readonly oneWay?: { readonly features: number; readonly paid?: number };
        readonly direct?: { readonly oneWay: { readonly features?: number; readonly paid?: number } };
      };
      readonly certificate?: AccuracyCertificate;
    };
  };
  readonly facts: { readonly rows: number };
  readonly loaded: { readonly dataset: { readonly schema: Schema } };
  /** The person level (release/person.ts); absent or null when one row is the unit. */
  readonly person?: PersonOutcome | null;
}

export const MANIFEST_FORMAT = 'rap-studio-release-manifest';

/** How a manifest states a database source (never its host, user or credentials). */
export const DATABASE_SOURCE_STATEMENT = {
  kind: 'postgresql-table',
  counting:
    'counted inside the database (GROUP BY GROUPING SETS): only grouped counts left it (each distinct value or combination with its exact count, never a row), and every released value is a noisy function of them',
} as const;

/** How a manifest states a read-only query's result as the source (never the query's text). */
export const DATABASE_QUERY_STATEMENT = {
  ...DATABASE_SOURCE_STATEMENT,
  kind: 'postgresql-query',
} as const;

export const INSECURE_SEED_MARK =
  'insecure-seed: the noise came from a seed, so anyone who knows it can remove it: this output is NOT a ' +
  'differentially private release (tests and benchmarks only)';

/** `<released file without .csv / .parquet / .xlsx>.manifest.json`: where the manifest goes. */
export function manifestPathFor(csvPath: string): string {
  return `${releasedStem(csvPath)}.manifest.json`;
}

/**
 * The plan that ran, as the release states it: table mode's plan (direct / mixed / adaptive),
 * its shares of ρ, T₀ and K; query mode's T and K. Public: the plan rule reads only public
 * inputs (and, with discovery, the discovered domains, which are DP outputs).
 */
export type RanPlan =
  | ({ readonly mode: 'table' } & TablePlanStatement)
  | { readonly mode: 'query'; readonly rounds: number; readonly perRound: number };

export function planThatRan(f: Pick<ManifestInput, 'result' | 'options' | 'request' | 'person'>): RanPlan {
  const { report } = f.result;
  if (f.options.mode === 'table' && report.tableMode) {
    // At the person level K was chosen by the engine from n̂/k (the ledger's is pre-reservation).
    const perRound =
      f.person && report.perRound !== undefined ? report.perRound : Number(f.request.params.perRound);
    // Discovery's one-ways the engine took as paid (the one-way share shrinks by their part).
    const trace = report.tableMode;
    const oneWay = trace.direct?.oneWay ?? trace.oneWay;
    const paid = oneWay?.paid ?? 0;
    const features = oneWay?.features ?? 1;
    return {
      mode: 'table',
      ...statementOf(trace.strategy, trace.roundBound, perRound, { paid, features }),
    };
  }
  return {
    mode: 'query',
    rounds: report.rounds ?? Number(f.request.params.rounds),
    perRound: report.perRound ?? Number(f.request.params.perRound),
  };
}

/** The manifest's public fields fixed when the run finishes (no output yet, no time). */
export function manifestFields(f: ManifestInput, datasetName: string) {
  const { request, plan, options } = f;
  const discovery = request.params.discovery as
    | { share: number; rho: number; delta: number; synthesisRho: number; usedRho: number; deltaTotal: number }
    | undefined;
  const insecure = f.spec.noise.mode === 'insecure-seed';
  const certificate = f.result.report.certificate;
  return {
    format: MANIFEST_FORMAT,
    version: 2,
    ...(insecure ? { notARelease: INSECURE_SEED_MARK } : {}),
    releaseId: f.release.id,
    appVersion: APP_VERSION,
    mechanism: request.mechanism,
    privacy: {
      epsilon: request.epsilon,
      delta: request.delta,
      /** Reserved in the ledger: ρ(ε, δ); with discovery ρ(ε, 0.9δ), plus partition selection's δ/10. */
      rho: request.rho,
      ...(discovery ? { usedRho: discovery.usedRho } : {}),
      accounting: discovery
        ? 'approximate zCDP: ρ-zCDP outside an event of probability δ_discovery (partition selection), then (ε, δ − δ_discovery)-DP by the zCDP conversion'
        : 'zCDP, then (ε, δ)-DP by the zCDP conversion',
      discovery: discovery ? { rho: discovery.rho, delta: discovery.delta, share: discovery.share } : null,
      // The relative-error pass's ρ comes out of what would otherwise be the synthesis's.
      synthesis: { rho: (discovery ? discovery.synthesisRho : plan.rho) - (certificate?.rho ?? 0) },
      ...(certificate
        ? {
            relativeErrorPass: {
              rho: certificate.rho,
              epsilon: certificate.epsilon,
              share: certificate.share,
              mechanism:
                'RangeMonitor (sparse vector, pure ε-DP, ε²/2-zCDP) over the workload, taken out of the synthesis ρ',
            },
          }
        : {}),
    },
    // PREM's accuracy certificate: computed from the range monitor's answers only (a DP output).
    ...(certificate ? { accuracyCertificate: certificate } : {}),
    parameters: f.person
      ? personParameters(request.params, options.mode)
      : { ...request.params, mode: options.mode },
    plan: planThatRan(f),
    seedMode: f.spec.noise.mode,
    backend: f.result.report.backend,
    // No hash of the input: the ledger keeps the fingerprint for itself. At the person level the
    // file's row count is not public (it depends on persons' row counts): only n̂ is released.
    dataset: {
      name: datasetName,
      rows: f.person ? null : f.facts.rows,
      // A database table: its kind and where it was counted; no host, user or password.
      // A query's text is in no public file (it may quote private values): its kind only.
      ...(f.spec.source?.postgres
        ? {
            source:
              f.spec.source.postgres.query === undefined
                ? DATABASE_SOURCE_STATEMENT
                : DATABASE_QUERY_STATEMENT,
          }
        : {}),
    },
    unit: f.person ? personUnit(f.person) : { kind: 'row', statement: 'one CSV row is the unit of privacy' },
    schema: {
      sha256: request.schema.hash,
      // The ledger's word for the whole release: declared, discovered, or inferred (some not DP).
      origin: request.schema.origin,
      note: describeSchemaOrigin(f.loaded.dataset.schema),
      columns: request.params.columns,
      // The released CSV's Table Schema (its domain: declared, or discovered with DP): the Data
      // Package beside the CSV (data-package.ts) carries it.
      tableSchema: releasedTableSchema(f.loaded.dataset.schema),
      // An SPSS or Stata input's codes for declared categories (its dictionary: public metadata);
      // a release to .sav or .dta writes those columns as these codes with their labels.
      ...(f.valueLabels?.length ? { valueLabels: f.valueLabels } : {}),
    },
    workload: {
      sha256: request.workload.hash,
      thresholds: f.spec.workload.thresholds.length,
      // The workload in words (public: the curator's own input, over the released column names).
      items: workloadToObject(f.spec.workload, f.loaded.dataset.schema).thresholds.map((t) => ({
        r: t.r,
        features: t.features,
        weight: t.weight ?? 1,
      })),
    },
    csv: { formulaEscape: FORMULA_ESCAPE_NOTE },
  };
}

/**
 * At the person level the ledger's pre-reservation plan (T₀, K, the plan kind, read off the file's
 * private row count to check memory) is not public: the engine chose them from n̂/k.
 */
function personParameters(params: ReserveRequest['params'], mode: string) {
  const { rounds: _r, perRound: _k, kind: _p, ...rest } = params as Record<string, unknown>;
  return { ...rest, mode, plan: 'chosen by the public rule from n̂/k after the reservation' };
}

function personUnit(p: PersonOutcome) {
  return {
    kind: 'person',
    statement: describeUnit(p),
    column: p.column,
    identifierReleased: false,
    rowsPerPerson: p.bound,
    boundChosen: p.chosen
      ? {
          rule: 'smallest grid value at or above the noisy 90th percentile of rows per person',
          grid: p.chosen.grid,
          rho: p.chosen.rho,
          sigma: p.chosen.sigma,
          noisyPersonsPerBucket: p.chosen.noisyPersons,
        }
      : null,
    noisyRowCount: { rows: p.rows.rows, rho: p.rows.rho, sigma: p.rows.sigma },
  };
}
