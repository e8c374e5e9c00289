/**
 * The shapes of a release's private report (data.ts builds it), in their own file with no imports
 * but import-free type files, so that the renderer's API types can use them without Node types.
 */
import type { ErrorRow } from '../../engine/workload-error-types.ts';

export const REPORT_DATA_FORMAT = 'rap-studio-private-report';

/** Where a column's domain came from, in the manifest's words. */
export type DomainSource = 'declared' | 'discovered privately' | 'not DP';

export interface ColumnFidelity {
  readonly name: string;
  readonly kind: 'categorical' | 'numeric';
  readonly domain: DomainSource;
  readonly metric: 'TV' | 'KS';
  /** TV (categorical) or KS (numeric): 0 identical, 1 disjoint. */
  readonly distance: number;
  /** Categorical: the most frequent real values and the released "(other)", shares of rows. */
  readonly bars?: {
    readonly labels: readonly string[];
    readonly real: readonly number[];
    readonly synthetic: readonly number[];
  };
  /** Numeric: both CDFs on a common grid of values. */
  readonly cdf?: {
    readonly x: readonly number[];
    readonly real: readonly number[];
    readonly synthetic: readonly number[];
  };
  /** Real rows whose value the released domain does not hold (merged into "(other)" or clamped). */
  readonly merged: { readonly values: number; readonly share: number };
  /** Released rows holding "(other)". */
  readonly otherShare: number;
  /** Missing values' shares. */
  readonly missing: { readonly real: number; readonly synthetic: number };
  /** Distinct values among the released rows (1: a constant column). */
  readonly syntheticDistinct: number;
  readonly realDistinct: number;
  /** Released values the declared or discovered domain cannot hold (should be 0). */
  readonly outsideDomain: number;
}

export interface PairFidelity {
  readonly names: readonly string[];
  /** tv[i][j]: TV distance of the (i, j) 2-way table; null on the diagonal or when too large. */
  readonly tv: readonly (readonly (number | null)[])[];
}

export interface Score {
  readonly overall: number;
  readonly columnShapes: number;
  readonly pairTrends: number | null;
  readonly definition: string;
}

export type ValidityCode = 'outside-domain' | 'constant-column' | 'merged-categories';

export interface ValidityCheck {
  readonly code: ValidityCode;
  readonly ok: boolean;
  readonly title: string;
  readonly detail: string;
  readonly columns: readonly string[];
}

export interface ThresholdErrors extends ErrorRow {
  /** e.g. "2-of-{age, sex}". */
  readonly label: string;
  readonly weight: number;
}

export interface ReportData {
  readonly format: 'rap-studio-private-report';
  readonly version: 1;
  readonly releaseId: string;
  readonly datasetName: string;
  readonly createdAt: string;
  /** The release's public manifest fields (the same as the manifest file's). */
  readonly manifest: Readonly<Record<string, unknown>>;
  /** One ε: the one the curator chose; discovery and synthesis are parts of its ρ. */
  readonly privacy: {
    readonly epsilon: number;
    readonly delta: number;
    readonly rho: number;
    readonly discovery: { readonly rho: number; readonly delta: number; readonly share: number } | null;
    readonly synthesis: { readonly rho: number };
  };
  readonly run: {
    readonly mode: string;
    readonly strategy: string | null;
    readonly rounds: number;
    readonly perRound: number;
    readonly relaxedRows: number;
    readonly releasedRows: number;
    readonly numQueries: number;
    readonly backend: string;
    readonly backendNote: string | null;
    readonly seedMode: string;
  };
  readonly score: Score;
  readonly validity: { readonly ok: boolean; readonly checks: readonly ValidityCheck[] };
  readonly columns: readonly ColumnFidelity[];
  readonly pairs: PairFidelity;
  readonly workload: {
    readonly max: ErrorRow;
    readonly meanError: number;
    readonly roundedMeanError: number;
    readonly thresholds: readonly ThresholdErrors[];
  };
  readonly profile: readonly { readonly zeta: number; readonly alpha: number; readonly share: number }[];
  readonly merges: {
    /** Per column: real values the release's domain does not name, and the released "(other)" share. */
    readonly columns: readonly {
      readonly name: string;
      readonly values: number;
      readonly share: number;
      readonly otherShare: number;
    }[];
    /** Table mode: features whose small categories were grouped for measuring. */
    readonly grouped: readonly {
      readonly name: string;
      readonly categories: number;
      readonly groups: number;
    }[];
  };
  readonly timings: readonly { readonly label: string; readonly seconds: number }[];
  readonly preview: { readonly header: readonly string[]; readonly rows: readonly (readonly string[])[] };
  readonly note: string;
}
