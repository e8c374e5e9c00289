/**
 * The ledger's public records. A release's status decides which outcome fields it carries, so a
 * reserved run can never show an output hash and an aborted run always says why.
 */
import type { AnchorReport } from './anchor.ts';

export type ReleaseStatus = 'reserved' | 'committed' | 'aborted';
/**
 * What a release's domain was, as a whole: 'declared' (every column declared by the curator),
 * 'discovered' (some columns discovered with differential privacy, the rest declared; schema
 * version 3 on), 'inferred' (some columns read off the data without DP, under the curator's
 * override). Which column is which: params.columns.
 */
export type SchemaOrigin = 'declared' | 'inferred' | 'discovered';
export const SCHEMA_ORIGINS: readonly SchemaOrigin[] = ['declared', 'inferred', 'discovered'];

/** Each origin in words, for listings, exports and screens (the same words everywhere). */
export const SCHEMA_ORIGIN_WORDS: { readonly [O in SchemaOrigin]: string } = {
  declared: 'domain declared',
  discovered: 'domain discovered privately',
  inferred: 'domain NOT differentially private (read from the data)',
};
export type LedgerSeedMode = 'secure' | 'insecure-seed';

/** A curator's cap: stated as (ε, δ), enforced as ρ = rhoFromEpsilon(ε, δ). */
export interface BudgetCap {
  readonly rho: number;
  readonly epsilon: number;
  readonly delta: number;
  readonly setAt: string;
}

export interface DatasetRecord {
  /** SHA-256 of the file's bytes (lower-case hex): the dataset's identity. */
  readonly fingerprint: string;
  /** The first name the dataset was registered under. */
  readonly name: string;
  /** Later names the same bytes were loaded under, in the order first seen. */
  readonly aliases: readonly string[];
  /** Row count; 0 = not known yet (registered by `ledger set-cap` before any run). */
  readonly rows: number;
  readonly createdAt: string;
  readonly cap: BudgetCap | null;
  /** The file's column names; null when not known (registered before ledger schema 4, or by set-cap). */
  readonly columns: readonly string[] | null;
}

/**
 * What a release asks of the ledger about its file: the dataset whose budget it spends.
 * `chosen`: the curator named the dataset (`--name`, the app's dataset picker); only then may a
 * new file spend a known dataset's budget, or become a new dataset while it looks like a known one.
 */
export interface DatasetRequest {
  readonly fingerprint: string;
  readonly name: string;
  readonly rows: number;
  readonly columns?: readonly string[];
  readonly chosen?: boolean;
}

export interface ReleaseParams {
  readonly rounds: number;
  readonly perRound: number;
  /** Synthetic rows n'. */
  readonly rows: number;
  readonly oversample: number;
  readonly [k: string]: unknown;
}

export interface ReserveRequest {
  fingerprint: string;
  /** e.g. 'rap-query' | 'rap-table'. */
  mechanism: string;
  epsilon: number;
  delta: number;
  rho: number;
  /**
   * The δ of the release's approximate-zCDP part (partition selection in private discovery):
   * the release is approxDelta-approximately ρ-zCDP (Bun & Steinke 2016, Def. 1.9), so
   * ρ = rhoFromEpsilon(ε, δ − approxDelta). 0 (the default) for a plain ρ-zCDP release.
   * The ledger charges it: the dataset's δ-spends add up outside ρ (admission.ts).
   */
  approxDelta?: number;
  /** The released file's fingerprint when it is another file of the dataset (named datasets). */
  fileFingerprint?: string;
  params: ReleaseParams;
  workload: { hash: string; json: string };
  schema: { hash: string; origin: SchemaOrigin };
  seedMode: LedgerSeedMode;
  backend: string;
  appVersion: string;
}

interface ReleaseBase {
  readonly id: string;
  readonly datasetFingerprint: string;
  readonly createdAt: string;
  readonly mechanism: string;
  readonly epsilon: number;
  readonly delta: number;
  readonly rho: number;
  /** δ of the approximate-zCDP part (ReserveRequest.approxDelta); 0 for a plain ρ-zCDP release. */
  readonly approxDelta: number;
  readonly params: ReleaseParams;
  readonly workload: { readonly hash: string; readonly json: string };
  readonly schema: { readonly hash: string; readonly origin: SchemaOrigin };
  readonly seedMode: LedgerSeedMode;
  readonly backend: string;
  readonly appVersion: string;
  readonly statusChangedAt: string;
  /** Hash chain link of the event that recorded the spend (see ledger.ts). */
  readonly prevHash: string;
  readonly rowHash: string;
}

export interface ReservedRelease extends ReleaseBase {
  readonly status: 'reserved';
  readonly outputSha256?: undefined;
  readonly outputPath?: undefined;
  readonly abortReason?: undefined;
}

export interface CommittedRelease extends ReleaseBase {
  readonly status: 'committed';
  readonly outputSha256: string;
  readonly outputPath?: string;
  readonly abortReason?: undefined;
}

export interface AbortedRelease extends ReleaseBase {
  readonly status: 'aborted';
  readonly outputSha256?: undefined;
  readonly outputPath?: undefined;
  readonly abortReason: string;
}

export type ReleaseRecord = ReservedRelease | CommittedRelease | AbortedRelease;

/**
 * Per-dataset totals by composition of approximate zCDP (ρ's add, δ's add): every release
 * counts, whatever its status. The cap fields (and everything stated as ε, which needs the
 * cap's δ) are null while no cap is set. What the releases' δ-spends leave of the cap's δ
 * converts ρ to ε: spentEpsilon = ε(Σρ, δ_cap − Σδ), so (spentEpsilon, δ_cap) is the whole
 * dataset's guarantee so far (admission.ts, docs/privacy.md "The ledger's admission rule").
 */
export interface BudgetTotals {
  readonly fingerprint: string;
  readonly releases: number;
  /** ρ(ε_cap, δ_cap): the cap when no release spent δ. */
  readonly capRho: number | null;
  readonly capEpsilon: number | null;
  readonly delta: number | null;
  readonly spentRho: number;
  /** Σ approxDelta over the releases: the part of the cap's δ spent outside ρ. */
  readonly spentApproxDelta: number;
  /** ε(Σρ, δ_cap − Σδ); Infinity when the δ-spends use up the cap's δ. */
  readonly spentEpsilon: number | null;
  /** ρ(ε_cap, δ_cap − Σδ) − Σρ, at least 0: what a plain ρ-zCDP release may still spend. */
  readonly remainingRho: number | null;
  /** remainingRho as ε at δ_cap − Σδ. */
  readonly remainingEpsilon: number | null;
  /** remainingRho / capRho, in [0, 1]. */
  readonly remainingShare: number | null;
}

export type VerifyResult =
  | {
      readonly ok: true /** events checked */;
      readonly rows: number;
      readonly headHash: string;
      /** The check against the anchor file (absent for a ledger without one, e.g. in memory). */
      readonly anchor?: AnchorReport;
    }
  | {
      readonly ok: false;
      /** 'anchor' when the chain holds but the file is behind / not the one its anchor records. */
      readonly firstBrokenTable: string;
      readonly firstBrokenId: string;
      readonly reason: string;
      readonly anchor?: AnchorReport;
    };
