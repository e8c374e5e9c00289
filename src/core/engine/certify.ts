/**
 * The relative-error pass after RAP and its public accuracy certificate (PREM, Ghazi et al. 2025).
 *
 * The released (rounded) data's answers s to every workload query are checked against the private
 * answers t with FindMarginExample (privacy/find-margin.ts) through one RangeMonitor
 * (privacy/range-monitor.ts) at the curator's ζ. Each query the monitor reports outside its margin
 * becomes an extra projection target — PREM's multiplicative-weights step becomes RAP's projection:
 * the nearest value the report allows (with probability ≥ 1 − β), s/(1 + ζ) when s is too high,
 * (s + 2ζγ)/(1 − ζ) when it is too low — D' is projected again on the last round's targets plus
 * these, rounded again, and scanned again, until a scan passes every query (the certificate is
 * clean) or the monitor halts after c reports. The candidate released is the one whose scan passed
 * the most queries (a clean one if any; its certified share is that count over m). A scan stops after c − 1 reports (all but one of what is left), so
 * the scan after the fixes still has a report to spend: with c = 3, up to two fixes in one round,
 * then the last scan.
 *
 * Privacy: the monitor is the pass's only access to the private answers: ε = √(2ρ_c) pure DP, so
 * ρ_c-zCDP; the targets, D', the rounding and the certificate are post-processing of its answers
 * and of earlier public outputs. ρ_c = share·ρ comes out of the run's ρ (the synthesis runs on
 * (1 − share)·ρ), so the ledger charges the same ρ(ε, δ) in total (zCDP composition).
 */

import type { PrivateData } from '../data/counted.ts';
import type { OneHotLayout } from '../data/onehot.ts';
import type { CodeArray, EncodedDataset } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import { certifiedAlpha, MarginScan, type MarginViolation, scanMargin } from '../privacy/find-margin.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { RangeMonitor, type RangeMonitorScales, rangeMonitorScales } from '../privacy/range-monitor.ts';
import { exactThresholdAnswers } from '../workload/exact.ts';
import type { Workload } from '../workload/types.ts';
import type { ExactAnswers } from './exact-answers.ts';
import type { ProjectionBatch } from './kernels/session.ts';
import { SelectedQueries } from './query-mode/selected-queries.ts';
import type { RunControl } from './run-control.ts';
import type { AccuracyCertificate, CertifyOptions } from './types.ts';

/** The certificate's β when the curator gives none. */
export const DEFAULT_CERTIFY_BETA = 0.05;
/**
 * c when the curator gives none: each report the monitor may make multiplies the test noise
 * (2cΔ/ε₂), so α grows about linearly with c; 3 leaves two rounds of fixes before the last scan.
 */
export const DEFAULT_CERTIFY_VIOLATIONS = 3;
/** The pass's share of ρ when the curator asks for a certificate without one (CLI and app). */
export const DEFAULT_CERTIFY_SHARE = 0.1;
/** The relative margin ζ the app proposes. */
export const DEFAULT_CERTIFY_ZETA = 0.25;
/**
 * Weight of a violating query's target against the last round's targets (whose weights are ≤ 1
 * per cell): the fix should win where the two disagree (10/(10 + 1) of the way).
 */
export const VIOLATION_WEIGHT = 10;

/** Everything public about the pass, fixed before any private value is read. */
export interface CertifyPlan {
  readonly zeta: number;
  readonly share: number;
  readonly beta: number;
  readonly maxViolations: number;
  readonly rho: number;
  /** The monitor's Δ = 1/n, its N = 2m(c + 1) (at most c + 1 scans of m queries, two tests each). */
  readonly sensitivity: number;
  readonly maxTests: number;
  readonly scales: RangeMonitorScales;
  /** α₀, the margin scanned, and the certificate's α = 2(1 + ζ)γ. */
  readonly margin: number;
  readonly alpha: number;
}

function bad(field: string, value: unknown, what: string): never {
  throw new InputError(`option ${field} = ${String(value)}: ${what}`, { field, value: String(value) });
}

/** The pass's plan from the run's ρ, n and m (public). */
export function certifyPlan(o: CertifyOptions, totalRho: number, n: number, m: number): CertifyPlan {
  if (!(o.zeta > 0 && o.zeta < 1)) bad('certify.zeta', o.zeta, 'the relative margin ζ must be in (0, 1)');
  if (!(o.share > 0 && o.share < 1)) bad('certify.share', o.share, "the pass's share of ρ must be in (0, 1)");
  const beta = o.beta ?? DEFAULT_CERTIFY_BETA;
  if (!(beta > 0 && beta < 1)) bad('certify.beta', beta, 'β must be in (0, 1)');
  const maxViolations = o.maxViolations ?? DEFAULT_CERTIFY_VIOLATIONS;
  if (!Number.isSafeInteger(maxViolations) || maxViolations < 1)
    bad('certify.maxViolations', maxViolations, 'must be an integer >= 1');
  const rho = o.share * totalRho;
  const sensitivity = 1 / n;
  const maxTests = 2 * m * (maxViolations + 1);
  const scales = rangeMonitorScales({ rho, sensitivity, maxOutside: maxViolations, maxTests, beta });
  return {
    zeta: o.zeta,
    share: o.share,
    beta,
    maxViolations,
    rho,
    sensitivity,
    maxTests,
    scales,
    margin: scanMargin(o.zeta, scales.accuracy),
    alpha: certifiedAlpha(o.zeta, scales.accuracy),
  };
}

/** The certificate's sentence, as the manifest and the Results step say it. */
export function certificateStatement(c: Omit<AccuracyCertificate, 'statement'>): string {
  const vacuous =
    c.alpha >= 1
      ? ' With α ≥ 1 this says nothing (every answer is within 1): give the pass a larger share of ε, or spend more ε.'
      : '';
  return baseStatement(c) + vacuous;
}

function baseStatement(c: Omit<AccuracyCertificate, 'statement'>): string {
  const within = `within (1 ± ${c.zeta})·q(D) ± ${formatAlpha(c.alpha)} of its true value q(D) (q as a fraction of the records)`;
  if (c.clean) {
    return `With probability ≥ ${1 - c.beta}, every one of the workload's ${c.queries} queries is answered by the released data ${within}.`;
  }
  return (
    `The relative-error pass ended before every query was certified: with probability ≥ ${1 - c.beta}, ` +
    `${formatShare(c.certifiedShare)} of the workload's ${c.queries} queries are answered by the released data ${within}.`
  );
}

function formatAlpha(alpha: number): string {
  return alpha.toPrecision(3);
}

function formatShare(share: number): string {
  return `${(100 * share).toFixed(share >= 0.999 || share <= 0.001 ? 3 : 1)}%`;
}

export interface PassContext {
  readonly plan: CertifyPlan;
  /** The private data (rows or exact tables): only its schema is read here. */
  readonly data: PrivateData;
  readonly workload: Workload;
  readonly layout: OneHotLayout;
  /** Where each threshold's queries start in the workload's order. */
  readonly offsets: readonly number[];
  readonly exact: ExactAnswers;
  readonly noise: NoiseSource;
  readonly control: RunControl;
  /** Round the current D' into released rows (randomized rounding). */
  readonly round: () => CodeArray[];
  /** Rows of the rounded data (n'·oversample). */
  readonly syntheticRows: number;
  /** One more projection: the last round's targets plus the violations'. */
  readonly reproject: (extra: ProjectionBatch['groups']) => Promise<void>;
  /** Curator-only profile thresholds (ζ, α) to measure before the pass and at its end. */
  readonly profile: readonly { readonly zeta: number; readonly alpha: number }[];
}

export interface PassOutcome {
  readonly codes: CodeArray[];
  readonly certificate: AccuracyCertificate;
  /** Curator-only: shares within each profile's (ζ, α), then the certificate's, before the pass. */
  readonly sharesBefore: readonly number[];
  readonly sharesAfter: readonly number[];
}

/**
 * The pass: scan, feed back, re-project, re-round, until clean or the monitor halts. The shares
 * before/after are non-private diagnostics (they read the exact answers directly).
 */
export async function relativeErrorPass(ctx: PassContext, first: CodeArray[]): Promise<PassOutcome> {
  const { plan, workload, offsets, exact, control } = ctx;
  const monitor = new RangeMonitor(
    {
      rho: plan.rho,
      sensitivity: plan.sensitivity,
      maxOutside: plan.maxViolations,
      maxTests: plan.maxTests,
      beta: plan.beta,
    },
    ctx.noise,
  );
  const profile = [...ctx.profile, { zeta: plan.zeta, alpha: plan.alpha }];
  let codes = first;
  let scans = 0;
  let fixed = 0;
  let sharesBefore: number[] | undefined;
  let best: { codes: CodeArray[]; certified: number; clean: boolean; shares: number[] } | undefined;
  for (;;) {
    const synthetic: EncodedDataset = { schema: ctx.data.schema, n: ctx.syntheticRows, codes };
    // While two or more reports are left, a scan stops after all but one (fed back together) and
    // the next scan keeps one report: the scan that may come out clean.
    const left = plan.maxViolations - monitor.outsideCount;
    const scan = new MarginScan(
      monitor,
      plan.zeta,
      plan.margin,
      left >= 2 ? left - 1 : Number.POSITIVE_INFINITY,
    );
    const within = profile.map(() => 0);
    let total = 0;
    const candidates: Float64Array[] = [];
    for (const [ti, t] of workload.thresholds.entries()) {
      await control.checkpoint();
      const truth = exact.of(t);
      const answers = exactThresholdAnswers(synthetic, t);
      candidates.push(answers);
      scan.scan(truth, answers, offsets[ti]);
      // Curator-only diagnostics (not part of the mechanism: they never reach the monitor).
      for (let y = 0; y < truth.length; y++) {
        const err = Math.abs(answers[y] - truth[y]);
        for (let z = 0; z < profile.length; z++)
          if (err <= profile[z].zeta * truth[y] + profile[z].alpha) within[z]++;
      }
      total += truth.length;
    }
    scans++;
    const shares = within.map((w) => (total > 0 ? w / total : 0));
    sharesBefore ??= shares;
    const m = offsets[offsets.length - 1];
    // Every ⊥ answer of every scan is covered by the monitor's accuracy at once (its union bound
    // runs over all N tests), so the candidate whose scan passed the most queries may be released:
    // a choice made on the monitor's outputs only (post-processing), which the pass never worsens.
    const certified = scan.clean ? m : scan.inside;
    if (!best || certified >= best.certified) best = { codes, certified, clean: scan.clean, shares };
    if (scan.clean || monitor.halted) {
      const body = {
        zeta: plan.zeta,
        alpha: plan.alpha,
        beta: plan.beta,
        queries: m,
        clean: best.clean,
        certifiedShare: best.certified / m,
        rho: plan.rho,
        epsilon: plan.scales.epsilon,
        share: plan.share,
        maxViolations: plan.maxViolations,
        scans,
        violationsFixed: fixed,
      };
      return {
        codes: best.codes,
        certificate: { ...body, statement: certificateStatement(body) },
        sharesBefore,
        sharesAfter: best.shares,
      };
    }
    // Not clean and the monitor has reports left: feed the violations back, project, round again.
    const extra = violationTargets(ctx, scan.violations, candidates);
    fixed += scan.violations.length;
    await ctx.reproject(extra.groups());
    codes = ctx.round();
  }
}

/**
 * Each violation as a query target: the nearest value its report allows with probability ≥ 1 − β
 * (a report 'below' means t ≤ L + γ = s/(1 + ζ); 'above' means t ≥ U − γ = (s + 2ζγ)/(1 − ζ)).
 */
function violationTargets(
  ctx: PassContext,
  violations: readonly MarginViolation[],
  candidates: readonly Float64Array[],
): SelectedQueries {
  const { plan, workload, layout, offsets } = ctx;
  const gamma = plan.scales.accuracy;
  const weights = new Float64Array(workload.thresholds.length).fill(VIOLATION_WEIGHT);
  const selected = new SelectedQueries(workload, layout, weights);
  for (const v of violations) {
    const ti = thresholdOf(offsets, v.index);
    const local = v.index - offsets[ti];
    if (selected.has(ti, local)) continue;
    const s = candidates[ti][local];
    const target =
      v.side === 'below' ? s / (1 + plan.zeta) : Math.min(1, (s + 2 * plan.zeta * gamma) / (1 - plan.zeta));
    selected.add(ti, local, target);
  }
  return selected;
}

/** The threshold whose queries hold the global index (offsets ascending, offsets[0] = 0). */
function thresholdOf(offsets: readonly number[], index: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
