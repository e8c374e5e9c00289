/**
 * The typed API between the renderer and the main-side services. The preload script exposes
 * it to the renderer over Electron IPC; web mode bridges the very same calls over HTTP and a
 * WebSocket. Every method takes one JSON argument and returns JSON; the main side validates
 * each argument before a service sees it (src/services/dispatch.ts).
 *
 * This file holds types only (no runtime code) so the renderer, preload and main can all
 * import it without pulling in Node modules; shared constants live in constants.ts. The shapes mirror the core types but are plain
 * JSON (no typed arrays, bigints as decimal strings).
 */

import type { ProgressEvent } from '../core/engine/progress.ts';
import type { ErrorRow, WorkloadErrorTable } from '../core/engine/workload-error-types.ts';
import type { ReportData } from '../core/release/report/types.ts';
import type { TextSettingName } from '../core/release/spec.ts';

export type { TextSettingName };

import type { RunStatus } from './constants.ts';

export type AppMode = 'electron' | 'web';

export interface AppInfo {
  readonly version: string;
  readonly mode: AppMode;
  readonly ledgerPath: string;
  /** The engine backend a run picks when none is asked for (e.g. 'cpu' = typed-array kernels). */
  readonly backend: string;
  /** Backends a curator may ask for on this machine. */
  readonly backends: readonly string[];
}

// ---- data and schema -------------------------------------------------------------------------

/** A column declared a date, time or datetime, in this format (e.g. MM/DD/YYYY): the curator's setting. */
export interface TemporalView {
  readonly kind: 'date' | 'time' | 'datetime';
  readonly format: string;
}

export interface CategoricalColumnView {
  readonly name: string;
  readonly kind: 'categorical';
  readonly categories: readonly string[];
  readonly missing: boolean;
  readonly temporal?: TemporalView;
}

export interface NumericColumnView {
  readonly name: string;
  readonly kind: 'numeric';
  /** Ascending bin edges; bin i is [e_i, e_{i+1}), the last one closed. */
  readonly edges: readonly number[];
  readonly integer: boolean;
  readonly missing: boolean;
  readonly temporal?: TemporalView;
}

export type ColumnView = CategoricalColumnView | NumericColumnView;

/**
 * What a curator may send as a schema (the same JSON shape the views use). `declare: true` says
 * the curator typed or pasted this column's whole domain afresh (the editor's "Declare…", which
 * starts empty); without it an edit of a column read off the data keeps it read off the data.
 */
export interface SchemaInput {
  readonly columns: readonly (ColumnView & { readonly declare?: boolean })[];
}

export interface SchemaView {
  readonly origin: 'declared' | 'inferred' | 'discovered';
  readonly confirmedFromInferred: boolean;
  /** One line saying where the schema came from and what that means. */
  readonly originText: string;
  readonly columns: readonly ColumnView[];
  /**
   * The columns the curator declared: used exactly at release and free. All of them for a
   * declared schema; in one read off the data, those edited in the schema editor (categories,
   * bounds, bin count or edges) or declared in an imported schema file.
   */
  readonly declaredColumns: readonly string[];
  /** Codes per column (missing category included). */
  readonly sizes: readonly number[];
  readonly oneHotWidth: number;
}

export interface RejectedRowsView {
  readonly reason: string;
  readonly count: number;
  readonly firstLine: number;
}

/** The ledger's record for one dataset, as screens show it. ε figures are at the cap's δ. */
export interface BudgetView {
  readonly registered: boolean;
  readonly releases: number;
  readonly capEpsilon: number | null;
  readonly capDelta: number | null;
  readonly capRho: number | null;
  readonly spentRho: number;
  /** The cap's δ spent by partition selection, outside ρ (the ledger's admission rule). */
  readonly spentApproxDelta: number;
  readonly spentEpsilon: number | null;
  readonly remainingEpsilon: number | null;
  readonly remainingRho: number | null;
  readonly remainingShare: number | null;
}

export type DatasetFormat = 'csv' | 'benchmark';

export interface DatasetView {
  readonly id: string;
  readonly fileName: string;
  readonly format: DatasetFormat;
  readonly fingerprint: string;
  readonly bytes: number;
  readonly header: readonly string[];
  readonly hasHeader: boolean;
  /** The first row was taken for the header by a guess: the Data step asks (setHeader) before any run. */
  readonly headerGuessed: boolean;
  readonly delimiter: string;
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rejected: readonly RejectedRowsView[];
  /** Rows of the wrong width: kept as records with every value missing (the release's n counts them). */
  readonly keptAsMissing: readonly RejectedRowsView[];
  readonly blankLines: number;
  readonly ignoredColumns: readonly string[];
  /**
   * Text columns with more distinct values than their category limit: not on the curator's
   * screens (no schema column), never a refusal of the file. A run waits until each is left out
   * (RunSettingsInput.exclude), the identifier (unitColumn), or its limit raised (setCategoryLimit).
   */
  readonly overLimit: readonly { readonly column: string; readonly limit: number }[];
  /** The first rows as read (the curator's own screen; never logged or sent anywhere else). */
  readonly preview: { readonly columns: readonly string[]; readonly rows: readonly (readonly string[])[] };
  readonly schema: SchemaView;
  readonly budget: BudgetView;
}

/**
 * A PostgreSQL source the curator names on the Data step: the database's URL (no password in it),
 * and a table or one read-only query. The password, when the server asks one, is typed in the
 * app and sent with the call; the main process holds it in memory for this source's connections
 * only (counting/postgres.ts withPassword): never stored, logged or sent back.
 */
export interface DatabaseSourceArg {
  /** `postgres://[user@]host[:port]/database`. */
  readonly url: string;
  /** `[schema.]name`; give this or `sql`. */
  readonly table?: string;
  /** One SELECT (or WITH … SELECT), run read-only; give this or `table`. */
  readonly sql?: string;
  readonly password?: string;
}

/** A database source's public description: its columns and their types, from the catalogue. */
export interface DatabaseSourceView {
  readonly kind: 'table' | 'query';
  /** How the ledger and the curator's screens name it (no user, no password, no query text). */
  readonly location: string;
  readonly columns: readonly DatabaseColumnView[];
}

/**
 * One column of a database source: its name and PostgreSQL type (the catalogue's, public), and how
 * the curator declares its domain if they do (services/database-schema.ts): numeric bins for a
 * number type (`integer` for an integer type), categories otherwise. Undeclared, it is discovered
 * privately at release.
 */
export interface DatabaseColumnView {
  readonly name: string;
  readonly type: string;
  readonly kind: 'categorical' | 'numeric';
  readonly integer: boolean;
  /** A date or time type's: how discovery reads its values (services/database-schema.ts). */
  readonly temporal?: DatabaseTemporalRead;
}

/**
 * How discovery reads a PostgreSQL date or time column without a stated format, from its
 * catalogue type (public): the server writes it as ISO text (the connection's DateStyle), which
 * a public candidate format reads (date `YYYY-MM-DD`, timestamp `YYYY-MM-DD HH:MM:SS`, time
 * `HH:MM:SS`); a type whose text ends in a zone offset (`+00`) is read by none.
 */
export interface DatabaseTemporalRead {
  /** What discovery reads the values as; null: not as a date or time (the note says what to do). */
  readonly kind: 'date' | 'datetime' | 'time' | null;
  /** The format read, and what is not read and how to fix it. */
  readonly note: string;
}

/**
 * A release from a database source (no file, no rows in the app): the source as describeDatabase
 * takes it, the workload's thresholds over its column names (every column is discovered privately
 * at release), and the run's settings; the budget is the database dataset's in the ledger.
 */
export interface DatabaseRunArg {
  readonly source: DatabaseSourceArg;
  readonly thresholds: readonly ThresholdInput[];
  /**
   * The columns the curator declared (the Data step's "Declare…": each one's whole domain from
   * public knowledge, used exactly and free); every other released column is discovered privately.
   * The columns to leave out are `settings.exclude`, as for a file.
   */
  readonly schema?: SchemaInput;
  /**
   * A date, time or datetime format stated for a column to discover (the Schema step's "Date or
   * time" on a column read off a file's data): public, so discovery reads the column in it on the
   * calendar grid without the private format test; its domain is still discovered.
   */
  readonly temporal?: Readonly<Record<string, TemporalView>>;
  readonly settings: RunSettingsInput;
}

/** What a database release's plan needs: the run's argument without the workload. */
export type DatabasePlanArg = Omit<DatabaseRunArg, 'thresholds'>;

/**
 * A database release's plan before Run (services/database-plan.ts): each released column's domain
 * at release and its cost, and discovery's split (RunPlanView's fields, from the same split the
 * release spends); `problems` names a setting that does not parse (ε, δ, a hierarchy, a format).
 * `defaultDelta` is δ when the field is blank (1/n² from the row count, or the person level's
 * constant); `delta` the δ the release uses (the typed one, else the default).
 */
export type DatabasePlanView = Pick<
  RunPlanView,
  'problems' | 'epsilon' | 'delta' | 'defaultDelta' | 'columns' | 'discovery'
>;

/** The budget cap of a database source's dataset in the ledger (its identity: release/database.ts). */
export interface DatabaseCapArg {
  readonly source: DatabaseSourceArg;
  readonly epsilon: string;
  readonly delta?: string;
  /** The unit is fixed with the cap (as setCap's): per person (this column) or, blank, per row. */
  readonly unitColumn?: string;
}

export interface OpenDatasetArg {
  /** A path the host may read: in web mode only an upload (see /upload). */
  readonly path: string;
  /** Display name (default the file's name). */
  readonly name?: string;
  /** 'auto' (default) guesses whether the first row names the columns. */
  readonly header?: 'auto' | 'yes' | 'no';
  /** A declared schema file's text (rap-studio-schema JSON). */
  readonly schemaText?: string;
  /** The benchmark format's domain file text ({"column": size, …}): integer-coded CSV. */
  readonly domainText?: string;
}

export interface HistogramView {
  readonly column: string;
  readonly kind: 'categorical' | 'numeric';
  readonly labels: readonly string[];
  readonly counts: readonly number[];
}

export interface TextFile {
  readonly fileName: string;
  readonly text: string;
}

// ---- workload --------------------------------------------------------------------------------

export interface ThresholdInput {
  readonly features: readonly string[];
  readonly r: number;
  readonly weight: number;
}

export interface ThresholdView extends ThresholdInput {
  readonly k: number;
  readonly queries: number;
}

export type WorkloadRole = 'main' | 'eval';

export interface WorkloadView {
  readonly role: WorkloadRole;
  readonly thresholds: readonly ThresholdView[];
  /** Total query count as a decimal string (can pass 2^53). */
  readonly totalQueries: string;
}

export type FeatureDistributionName = 'uniform' | 'zipf' | 'geometric';

/** Max |error| of each answer source (relaxed, released, All-0, GM) over a workload or a threshold. */
export type ErrorRowView = ErrorRow;

export type WorkloadErrorsView = Pick<WorkloadErrorTable, 'max' | 'perThreshold'>;
// ---- privacy settings and the run plan -------------------------------------------------------

/**
 * The Privacy step's fields as typed (text), so the services check them with the CLI's rules
 * and return the same messages. Empty optional fields mean "default".
 */
export interface RunSettingsInput extends Readonly<Partial<Record<TextSettingName, string>>> {
  readonly epsilon: string;
  readonly mode?: 'query' | 'table';
  /** Query mode: one-shot top-K (OSAS, default) or adaptive peeling (AS); same privacy cost. */
  readonly selection?: 'one-shot' | 'adaptive';
  /** How the relaxed data stays on the simplex: sparsemax (default) or GEM's softmax. */
  readonly relaxation?: 'sparsemax' | 'softmax';
  /** 'history': weight each threshold by how often its features appear in the workload (max 1). */
  readonly importance?: 'none' | 'history';
  /** Reproducible, NOT private-grade randomness (tests and benchmarks only). */
  readonly insecureSeed?: string;
  /**
   * For a schema read off the data: discover each column's domain privately at release (the
   * default), or release over the domain as read (not differentially private), which is refused
   * unless `allowNonPrivateDomain` is set. Ignored for a declared schema.
   */
  readonly domain?: DomainChoice;
  /** The curator's explicit override ("Release over a non-private domain"). */
  readonly allowNonPrivateDomain?: boolean;
  /**
   * One person can appear in several rows: the column that identifies the person (never
   * released). Blank or absent: one row is the unit of privacy.
   */
  readonly unitColumn?: string;
  /** With unitColumn: at most k rows per person, or 'private' (the default: k chosen privately). */
  readonly rowsPerPerson?: string;
  /** Columns left out of the release (the Schema step's "leave out"): never read, no cost. */
  readonly exclude?: readonly string[];
  /**
   * Columns marked as hierarchical codes (the Schema step's "hierarchical code"), as the CLI's
   * --hierarchy entries: `COLUMN=LEVELS`, LEVELS a preset (icd10, postcode, naics) or prefix
   * lengths (`1,3,full`), with `,full-codes` to decode to released full codes.
   */
  readonly hierarchy?: readonly string[];
  /**
   * The dataset picker: whose budget this file spends when it looks like a dataset the ledger
   * knows (RunPlanView.ledgerMatches): a known dataset's name, or a new dataset of its own.
   * Unset, such a file is refused before anything is spent.
   */
  readonly ledgerDataset?: LedgerDatasetChoice;
}

export type LedgerDatasetChoice = { readonly spend: string } | { readonly new: true };

/** A known dataset a new file looks like (same column names, a similar record count). */
export interface LedgerMatchView {
  readonly name: string;
  readonly rows: number;
}

/**
 * How often a column's values repeat (the Data step's hint for the unit question). Read off the
 * private file for the curator's screen only: never released, never in the ledger.
 */
export interface UnitHint {
  readonly column: string;
  readonly rows: number;
  readonly distinct: number;
  /** Rows of the value that repeats most. */
  readonly maxRows: number;
  /** Whether the column looks like a person identifier whose values repeat. */
  readonly looksLikeIdentifier: boolean;
}

export type DomainChoice = 'discover' | 'as-read';

/**
 * One column's domain at release, as the ledger and the manifest will state it, with its cost:
 * declared (free), discovered privately (its ρ and δ, and its share of the run's ρ; null until
 * ε and δ are valid), or not differentially private (only with the override).
 */
export type ColumnReleaseView =
  | { readonly name: string; readonly domain: 'declared' }
  | {
      readonly name: string;
      readonly domain: 'discovered';
      readonly cost: {
        readonly rho: number;
        readonly delta: number;
        readonly shareOfRho: number;
        /** Categories held by fewer than about this many records merge into "(other)" (preview). */
        readonly mergeBelow: number;
      } | null;
    }
  | { readonly name: string; readonly domain: 'not-dp' };

export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

export interface RunPlanView {
  /** Field problems (ε, δ, n', T, K, …); when any, the plan numbers below are absent. */
  readonly problems: readonly FieldProblem[];
  readonly n: number;
  readonly defaultDelta: number;
  readonly delta: number | null;
  readonly deltaWarning: string | null;
  readonly epsilon: number | null;
  readonly rho: number | null;
  readonly rounds: number | null;
  readonly perRound: number | null;
  readonly defaultRounds: number | null;
  readonly defaultPerRound: number | null;
  readonly rows: number | null;
  readonly oversample: number | null;
  readonly kind: string | null;
  readonly numQueries: number | null;
  readonly budget: BudgetView;
  /** Remaining ε at the cap's δ after this run (null without a cap or a plan). */
  readonly remainingAfterEpsilon: number | null;
  readonly affordable: boolean;
  /** Why the run cannot start (shown next to the disabled Run button); null when it can. */
  readonly reason: string | null;
  /** What needs fixing for the reason: lets the screen offer the fix right there. */
  readonly blocker:
    | 'settings'
    | 'header'
    | 'domain'
    | 'workload'
    | 'dataset'
    | 'no-cap'
    | 'over-budget'
    | 'busy'
    | null;
  /** Known datasets this file looks like: the curator must choose whose budget it spends. */
  readonly ledgerMatches: readonly LedgerMatchView[];
  /** Each column's domain at release and its cost (the Schema step shows it). */
  readonly columns: readonly ColumnReleaseView[];
  readonly warnings: readonly string[];
  readonly seedMode: 'secure' | 'insecure-seed';
  /**
   * How the run's budget splits when its schema was read off the data (its columns are then
   * discovered privately after the reservation); null when every column is declared.
   */
  /**
   * The relative-error pass, when asked: its cost (ρ, its pure-DP ε, its share of the run's ρ,
   * taken out of the synthesis) and the certificate's terms, all fixed before Run.
   */
  readonly certify: {
    readonly zeta: number;
    readonly share: number;
    readonly beta: number;
    readonly maxViolations: number;
    readonly rho: number;
    readonly epsilon: number;
    readonly alpha: number;
    /**
     * With private discovery: the pass's share is of what discovery leaves, and m (so α) is
     * known only after discovery; α here is from the schema as read (an estimate).
     */
    readonly approximate: boolean;
  } | null;
  readonly discovery: {
    readonly share: number;
    readonly columns: number;
    /** What one discovered column costs (discovery's ρ and δ split equally). */
    readonly perColumn: { readonly rho: number; readonly delta: number };
    /**
     * Public, before Run: a discovered categorical column's categories held by fewer than about
     * this many records merge into "(other)" (core/discovery/preview.ts).
     */
    readonly mergeBelow: number;
    readonly rhoDiscovery: number;
    readonly rhoSynthesis: number;
    readonly deltaDiscovery: number;
  } | null;
}

// ---- runs ------------------------------------------------------------------------------------

export type { RunStatus } from './constants.ts';

/** One progress sample: the engine's ProgressEvent itself. The losses and errors are noisy: safe to show. */
export type ProgressPoint = ProgressEvent;

export interface RunView {
  readonly runId: string;
  readonly releaseId: string | null;
  readonly datasetId: string;
  readonly datasetName: string;
  readonly status: RunStatus;
  readonly startedAt: string;
  readonly endedAt: string | null;
  /** The ε and δ the curator chose (discovery's and synthesis's shares are parts of its ρ). */
  readonly epsilon: number;
  readonly delta: number;
  readonly rho: number;
  readonly rounds: number;
  readonly perRound: number;
  readonly rows: number;
  readonly oversample: number;
  readonly mode: string;
  readonly seedMode: 'secure' | 'insecure-seed';
  /** Requested backend ('auto' = the best available) and, once known, the one that ran. */
  readonly backendRequested: string;
  readonly backend: string | null;
  /** Once known: one line on what ran and why (CPU threads, why the GPU was not used). */
  readonly backendNote: string | null;
  /** The engine process while it runs (fault-injection tests kill it from outside). */
  readonly enginePid: number | null;
  /** Progress samples (thinned for long runs). */
  readonly history: readonly ProgressPoint[];
  readonly error: ApiErrorPayload | null;
  readonly warnings: readonly string[];
  readonly exported: ExportView | null;
  /**
   * The unit of privacy: "one row", or once the run has bounded the data "person, identified by
   * column X, at most k rows each (k chosen privately)" (before that: "person, identified by column X").
   */
  readonly unit: string;
}

export interface ResultsView {
  readonly runId: string;
  readonly presentError: number;
  readonly roundedPresentError: number;
  readonly meanError: number;
  readonly roundedMeanError: number;
  readonly all0Error: number;
  readonly gmError: number;
  readonly numQueries: number;
  readonly rounds: number;
  readonly perRound: number;
  readonly rows: number;
  readonly syntheticRows: number;
  readonly secondsTotal: number;
  readonly backend: string;
  readonly seedMode: 'secure' | 'insecure-seed';
  readonly relativeErrorProfile: readonly { zeta: number; alpha: number; share: number }[];
  /**
   * The public accuracy certificate of the relative-error pass (a DP output: it is in the
   * manifest too), and the curator-only shares within its (ζ, α) before and after the pass.
   */
  readonly certificate: {
    readonly zeta: number;
    readonly alpha: number;
    readonly beta: number;
    readonly queries: number;
    readonly clean: boolean;
    readonly certifiedShare: number;
    readonly rho: number;
    readonly epsilon: number;
    readonly share: number;
    readonly scans: number;
    readonly violationsFixed: number;
    readonly statement: string;
    readonly before: number | null;
    readonly after: number | null;
  } | null;
  readonly thresholds: readonly (ThresholdInput & { readonly error: number })[];
  readonly futureError: number | null;
  readonly roundedFutureError: number | null;
  /** Present (the workload) and future (the evaluation workload) error tables, per threshold. */
  readonly errors: {
    readonly present: WorkloadErrorsView;
    readonly future: WorkloadErrorsView | null;
  } | null;
  /** The evaluation workload's thresholds (named), when there is one. */
  readonly futureThresholds: readonly ThresholdInput[];
  readonly features: readonly string[];
  readonly note: string;
}

export interface MarginalView {
  readonly features: readonly string[];
  /** Category labels per feature. */
  readonly labels: readonly (readonly string[])[];
  /** Fractions of rows, row-major over the features' categories. */
  readonly real: readonly number[];
  readonly synthetic: readonly number[];
  /**
   * One numeric feature: its distribution, not only its bins — the real and the synthetic
   * cumulative distribution at `x` (both samples' quantiles every 0.5%, extremes included),
   * synthetic values as decoded (inside each bin by the discovered shape), and `ks`, the largest
   * gap between the two over all values (two-sample Kolmogorov–Smirnov).
   */
  readonly distribution?: {
    readonly x: readonly number[];
    readonly real: readonly number[];
    readonly synthetic: readonly number[];
    readonly ks: number;
  };
}

export interface ExportView {
  readonly releaseId: string;
  readonly fileName: string;
  readonly path: string;
  readonly manifestPath: string;
  readonly sha256: string;
  readonly rows: number;
  /** Web mode: URLs the browser fetches the files from. */
  readonly downloadUrl: string | null;
  readonly manifestUrl: string | null;
  /** The two HTML reports written beside the CSV (null when they could not be written). */
  readonly reports?: {
    readonly publicPath: string;
    readonly privatePath: string;
    readonly publicUrl: string | null;
    readonly privateUrl: string | null;
  } | null;
}

/**
 * A release's private report as kept with it (result store): the figures the Results step's
 * verdict shows and the private HTML report itself, drawn from the same data.
 */
export interface ReleaseReportView {
  readonly runId: string;
  readonly releaseId: string;
  readonly datasetName: string;
  /** null: a release stored before reports were kept. */
  readonly data: ReportData | null;
  readonly privateHtml: string | null;
}

export interface DiscardOutcome {
  readonly releaseId: string;
  /** What happened to the budget, in words (it stays spent). */
  readonly message: string;
}

export type ExportOutcome =
  | ({ readonly written: true } & ExportView)
  | { readonly written: false; readonly reason: 'cancelled' };

// ---- ledger ----------------------------------------------------------------------------------

export interface ReleaseView {
  readonly id: string;
  readonly createdAt: string;
  readonly status: 'reserved' | 'committed' | 'aborted';
  readonly statusChangedAt: string;
  readonly mechanism: string;
  readonly epsilon: number;
  readonly delta: number;
  readonly rho: number;
  readonly rounds: number;
  readonly perRound: number;
  readonly rows: number;
  readonly seedMode: string;
  /** The release's domain as a whole: declared, discovered privately, or not DP (inferred). */
  readonly schemaOrigin: 'declared' | 'inferred' | 'discovered';
  readonly backend: string;
  readonly outputSha256: string | null;
  readonly outputPath: string | null;
  readonly abortReason: string | null;
  /** Cumulative spend after this release, as ε at the cap's δ (null without a cap). */
  readonly cumulativeEpsilon: number | null;
  readonly cumulativeRho: number;
  /** The unit of privacy: "one row", or "person (column X)" as the ledger event states it. */
  readonly unit: string;
  /** The plan in words, e.g. "table · mixed". */
  readonly plan: string;
}

export interface LedgerDatasetView {
  readonly fingerprint: string;
  readonly name: string;
  readonly aliases: readonly string[];
  readonly rows: number;
  readonly createdAt: string;
  readonly budget: BudgetView;
  readonly releases: readonly ReleaseView[];
}

export interface LedgerOverview {
  readonly ledgerPath: string;
  readonly datasets: readonly LedgerDatasetView[];
}

export type LedgerVerifyView =
  | { readonly ok: true; readonly rows: number; readonly headHash: string }
  | {
      readonly ok: false;
      readonly firstBrokenTable: string;
      readonly firstBrokenId: string;
      readonly reason: string;
    };

// ---- the method map --------------------------------------------------------------------------

type Empty = Record<string, never>;
interface DatasetRef {
  readonly datasetId: string;
}
interface RunRef {
  readonly runId: string;
}

/** Everything the renderer needs after a reload: the open dataset, workloads and the run. */
export interface SessionView {
  readonly dataset: DatasetView | null;
  readonly workload: WorkloadView | null;
  readonly evalWorkload: WorkloadView | null;
  readonly run: RunView | null;
}

/**
 * Method name → [argument, result]. Add new methods here first; the dispatcher's validators
 * (src/services/dispatch.ts) must cover every key (a type test enforces it).
 */
export interface ApiMethods {
  appInfo: [Empty, AppInfo];
  session: [Empty, SessionView];
  /** Electron: a native open dialog; null when the curator cancels. Web mode: an input error. */
  pickFile: [{ readonly purpose: 'data' }, { readonly path: string; readonly name: string } | null];
  openDataset: [OpenDatasetArg, DatasetView];
  /** A PostgreSQL table's or read-only query's columns and types (the catalogue; no row read). */
  describeDatabase: [DatabaseSourceArg, DatabaseSourceView];
  /** A database source's budget in the ledger, its cap set (created on first use, as setCap). */
  setDatabaseCap: [DatabaseCapArg, BudgetView];
  /** Starts a release from a database source (counted in the database; no row leaves it). */
  startDatabaseRun: [DatabaseRunArg, RunView];
  /** A database release's columns at release and their discovery cost, before Run (no row read). */
  planDatabaseRun: [DatabasePlanArg, DatabasePlanView];
  /** The curator's answer to "does the first row name the columns?" ('no' reads the file again). */
  setHeader: [DatasetRef & { readonly header: 'yes' | 'no' }, DatasetView];
  histogram: [DatasetRef & { readonly column: string }, HistogramView];
  /** How often each column's values repeat (curator only; the unit question's hint). */
  unitHints: [DatasetRef, readonly UnitHint[]];
  /** A column's category limit on the curator's screens (the file is read again with it). */
  setCategoryLimit: [DatasetRef & { readonly column: string; readonly limit: number }, DatasetView];
  setSchema: [DatasetRef & { readonly schema: SchemaInput }, DatasetView];
  importSchema: [DatasetRef & { readonly text: string; readonly fileName?: string }, DatasetView];
  exportSchema: [DatasetRef, TextFile];
  confirmSchema: [DatasetRef, DatasetView];
  setWorkload: [
    DatasetRef & { readonly role: WorkloadRole; readonly thresholds: readonly ThresholdInput[] },
    WorkloadView,
  ];
  importWorkload: [
    DatasetRef & { readonly role: WorkloadRole; readonly text: string; readonly fileName?: string },
    WorkloadView,
  ];
  exportWorkload: [DatasetRef & { readonly role: WorkloadRole }, TextFile];
  allSubsets: [
    DatasetRef & {
      readonly features: readonly string[];
      readonly k: number;
      readonly r: number;
      readonly weight: number;
    },
    readonly ThresholdInput[],
  ];
  /** Every 2-way marginal, plus every 3-way marginal with `target` when given; weight 1 each. */
  defaultThresholds: [DatasetRef & { readonly target?: string }, readonly ThresholdInput[]];
  randomThresholds: [
    DatasetRef & {
      readonly features?: readonly string[];
      readonly k: number;
      readonly r: number;
      readonly size: number;
      readonly dist: FeatureDistributionName;
      readonly seed: number;
      readonly weight: number;
    },
    readonly ThresholdInput[],
  ];
  /** Future (evaluation) thresholds drawn from the main workload's feature frequencies, drifted by γ. */
  driftedThresholds: [
    DatasetRef & {
      readonly k: number;
      readonly r: number;
      readonly size: number;
      readonly drift: number;
      readonly seed: number;
      readonly weight: number;
    },
    readonly ThresholdInput[],
  ];
  runPlan: [DatasetRef & { readonly settings: RunSettingsInput }, RunPlanView];
  setCap: [
    DatasetRef & {
      readonly epsilon: string;
      readonly delta?: string;
      readonly ledgerDataset?: LedgerDatasetChoice;
      readonly unitColumn?: string;
    },
    BudgetView,
  ];
  startRun: [DatasetRef & { readonly settings: RunSettingsInput }, RunView];
  runState: [Empty, RunView | null];
  cancelRun: [Empty, RunView | null];
  results: [RunRef, ResultsView];
  marginalCompare: [RunRef & { readonly features: readonly string[] }, MarginalView];
  exportRun: [RunRef & { readonly fileName?: string }, ExportOutcome];
  /** Finished releases not exported yet (kept in the result store, also across restarts), newest first. */
  pendingReleases: [Empty, readonly RunView[]];
  releaseReport: [RunRef, ReleaseReportView];
  /** Every release kept in the result store (exported or not), newest first. */
  keptReleases: [Empty, readonly RunView[]];
  /** Drops a finished, unexported release's output for good; its spend stays counted. */
  discardRun: [RunRef & { readonly confirm: 'discard' }, DiscardOutcome];
  ledgerOverview: [Empty, LedgerOverview];
  ledgerVerify: [Empty, LedgerVerifyView];
  ledgerExport: [{ readonly format: 'csv' | 'json' }, TextFile];
  /** One dataset's releases over time: CSV, or a printable HTML page. */
  ledgerTimeline: [{ readonly fingerprint: string; readonly format: 'csv' | 'html' }, TextFile];
}

export type ApiMethod = keyof ApiMethods;
export type ApiArg<M extends ApiMethod> = ApiMethods[M][0];
export type ApiResult<M extends ApiMethod> = ApiMethods[M][1];

/** Events pushed from the main side (run progress, run end, load progress). */
export type AppEvent =
  | { readonly type: 'hello'; readonly at: string }
  | {
      readonly type: 'load-progress';
      readonly bytes: number;
      readonly totalBytes: number;
      readonly phase: string;
    }
  | { readonly type: 'run-progress'; readonly runId: string; readonly point: ProgressPoint }
  | { readonly type: 'run-update'; readonly run: RunView };

/** The error shape carried across the bridge. `kind` lets the UI choose what to say. */
export interface ApiErrorPayload {
  /** 'ledger': the ledger is locked, read-only, full, corrupt or disagrees with its anchor. */
  readonly kind: 'input' | 'budget' | 'cancelled' | 'internal' | 'output' | 'ledger';
  readonly message: string;
}

/** What the preload exposes as `window.rapStudio` (and the web client implements). */
export interface RapStudioBridge {
  invoke<M extends ApiMethod>(method: M, arg: ApiArg<M>): Promise<ApiResult<M>>;
  onEvent(listener: (event: AppEvent) => void): () => void;
  /** Electron only: a native file picker. Web mode uses a file input instead. */
  readonly mode: AppMode;
}
