/**
 * The `prem` suite's runs (issue 30): each case is a whole release through the release pipeline
 * (release-run.ts: the spec module, then releaseStraightThrough — prepare → validate → reserve →
 * run → publish) with a throwaway ledger and seeded, INSECURE noise, `--certify ζ` on; the released CSV is read back
 * and scored against the exact answers: the share of the workload's queries within the
 * certificate's (1 ± ζ)·q(D) ± α, whether the certificate holds, and the relative-error profile
 * (ζ ∈ {0.1, 0.25}, α = 1/n') before the pass (the engine's private report) and after it (the
 * released CSV). Benchmarks release nothing.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadBenchmark, parseDomainJson } from '../../src/core/data/benchmark.ts';
import { loadCsv } from '../../src/core/data/load.ts';
import type { AccuracyCertificate, RapReport } from '../../src/core/engine/types.ts';
import { exactThresholdAnswers } from '../../src/core/workload/exact.ts';
import { randomWorkload } from '../../src/core/workload/random.ts';
import type { BenchArgs } from './args.ts';
import { listedCases, selectedCases } from './cases.ts';
import { SHARED_DATASETS } from './datasets.ts';
import { describeMachine, fileNameFor, publishReport, writeAtomically } from './output.ts';
import { releaseCase } from './release-run.ts';
import { formatNumber } from './table.ts';

export interface PremCase {
  readonly id: string;
  readonly group: string;
  readonly epsilon: number;
  readonly zeta: number;
  readonly share: number;
  /** c, the violations the monitor may report. */
  readonly maxViolations: number;
  readonly workload: { readonly k: number; readonly r: number; readonly size: number };
  readonly seed: number;
}

export interface PremResult {
  readonly case: PremCase;
  readonly n: number;
  readonly rho: number;
  readonly certificate: AccuracyCertificate;
  /** On the released CSV, against the exact answers. */
  readonly releasedShareAtCertificate: number;
  /** The certificate's claim checked on the released CSV (clean: every query; else: the share). */
  readonly certificateHolds: boolean;
  readonly profileBefore: RapReport['relativeErrorProfile'];
  readonly profileAfter: readonly { zeta: number; alpha: number; share: number }[];
  readonly shareBeforeAtCertificate: number;
  readonly maxErrorReleased: number;
  /** The synthesis's plan (table mode's strategy, or query mode). */
  readonly plan: string;
  /** CPU seconds of the release, the engine process included (release-run.ts). */
  readonly cpuSeconds: number;
}

export interface PremSuite {
  readonly kind: 'prem';
  readonly name: string;
  readonly description: string;
  readonly defaultSeeds: number;
  readonly budget: string;
  cases(seeds: readonly number[]): PremCase[];
}

const ADULT = path.join(SHARED_DATASETS, 'adult/adult.csv');
const ADULT_DOMAIN = path.join(SHARED_DATASETS, 'adult/adult-domain.json');
const PROFILE_ZETAS = [0.1, 0.25];

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function runPremCase(c: PremCase, threads?: number): Promise<PremResult> {
  const schema = parseDomainJson(await readFile(ADULT_DOMAIN, 'utf8'), ADULT_DOMAIN);
  const original = (await loadBenchmark(ADULT, ADULT_DOMAIN)).dataset;
  const workload = randomWorkload({ numFeatures: schema.columns.length, ...c.workload, seed: c.seed });
  const dir = await mkdtemp(path.join(tmpdir(), 'rap-prem-'));
  try {
    // The settings as a curator types them (`synth --certify ζ --certify-share s …`).
    const r = await releaseCase({
      data: ADULT,
      schema,
      workload,
      settings: {
        epsilon: String(c.epsilon),
        certify: String(c.zeta),
        certifyShare: String(c.share),
        certifyViolations: String(c.maxViolations),
        seed: String(c.seed),
        ...(threads !== undefined ? { threads: String(threads) } : {}),
      },
      dir,
      name: 'prem',
    });
    const report = r.outcome.report;
    const cert = report.certificate;
    if (!cert) throw new Error('the release has no certificate');
    // Scored on the released CSV, read back like any user's file.
    const released = (await loadCsv(r.csvPath, { schema, header: true })).dataset;
    const profile = [...PROFILE_ZETAS.map((zeta) => ({ zeta, alpha: 1 / report.rows })), cert];
    const within = profile.map(() => 0);
    let total = 0;
    let maxError = 0;
    for (const t of workload.thresholds) {
      const truth = exactThresholdAnswers(original, t);
      const s = exactThresholdAnswers(released, t);
      for (let i = 0; i < truth.length; i++) {
        const err = Math.abs(s[i] - truth[i]);
        if (err > maxError) maxError = err;
        for (let z = 0; z < profile.length; z++)
          if (err <= profile[z].zeta * truth[i] + profile[z].alpha) within[z]++;
      }
      total += truth.length;
    }
    const shares = within.map((w) => w / total);
    const atCert = shares[PROFILE_ZETAS.length];
    return {
      case: c,
      n: original.n,
      rho: report.rho,
      plan: report.tableMode?.strategy ?? report.mode,
      certificate: cert,
      releasedShareAtCertificate: atCert,
      certificateHolds: cert.clean ? atCert === 1 : atCert >= cert.certifiedShare,
      profileBefore: report.relativeErrorBefore ?? [],
      profileAfter: PROFILE_ZETAS.map((zeta, z) => ({ zeta, alpha: 1 / report.rows, share: shares[z] })),
      shareBeforeAtCertificate: report.relativeErrorAtCertificate?.before ?? Number.NaN,
      maxErrorReleased: maxError,
      cpuSeconds: r.cpuSeconds,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** One row per run, then per (workload, ε) the smallest ζ whose certificate covers ≥ 95% of m. */
export function premTable(results: readonly PremResult[]): string {
  const out: string[] = [];
  out.push(
    '| case | ζ | c | α (records) | clean | certified share | cost ρ_c (ε_c) | share ≥ (ζ, α) before → after (released CSV) | holds | profile ζ=0.1 / 0.25 before → after | max error (released) | plan | CPU s |',
  );
  out.push(`|${' --- |'.repeat(13)}`);
  for (const r of results) {
    const c = r.certificate;
    const prof = (p: readonly { share: number }[]) => p.map((x) => pct(x.share)).join(' / ');
    out.push(
      `| ${r.case.id} | ${c.zeta} | ${c.maxViolations} | ${formatNumber(c.alpha)} (${Math.round(c.alpha * r.n)}) | ${c.clean ? 'yes' : 'no'} | ${pct(c.certifiedShare)} | ` +
        `${c.rho.toExponential(2)} (${formatNumber(c.epsilon)}) | ${pct(r.shareBeforeAtCertificate)} → ${pct(r.releasedShareAtCertificate)} | ${r.certificateHolds ? 'yes' : 'NO'} | ` +
        `${prof(r.profileBefore)} → ${prof(r.profileAfter)} | ${formatNumber(r.maxErrorReleased)} | ${r.plan} | ${formatNumber(r.cpuSeconds)} |`,
    );
  }
  out.push('');
  out.push('Smallest ζ certified (β = 0.05) for ≥ 95% of the m queries, per workload and ε:');
  out.push('');
  const groups = new Map<string, PremResult[]>();
  for (const r of results) groups.set(r.case.group, [...(groups.get(r.case.group) ?? []), r]);
  for (const [g, rs] of groups) {
    const ok = rs
      .filter((r) => r.certificate.certifiedShare >= 0.95)
      .sort((a, b) => a.case.zeta - b.case.zeta);
    out.push(
      `- ${g}: ${ok.length ? `ζ = ${ok[0].case.zeta} (c = ${ok[0].case.maxViolations}), α = ${formatNumber(ok[0].certificate.alpha)} (${Math.round(ok[0].certificate.alpha * ok[0].n)} records), m = ${ok[0].certificate.queries}${ok[0].certificate.alpha >= 1 ? ' — α ≥ 1: vacuous' : ''}` : 'none of the ζ tried'}`,
    );
  }
  return `${out.join('\n')}\n`;
}

export async function runPremSuite(
  suite: PremSuite,
  args: BenchArgs,
  outDir: string,
  latestPath: string,
  command: string,
): Promise<number> {
  const cases = selectedCases(suite, args);
  if (listedCases(cases, args)) return 0;
  const results: PremResult[] = [];
  const failures: string[] = [];
  // --from DIR…: the table again from earlier runs' JSON files (the selected cases found there).
  if (args.from.length > 0) {
    const wanted = new Set(cases.map((c) => c.id));
    for (const dir of args.from) {
      for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json') && f !== 'summary.json')) {
        const r = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as PremResult;
        if (r.case && wanted.has(r.case.id)) results.push(r);
      }
    }
    const order = new Map(cases.map((c, i) => [c.id, i]));
    results.sort((a, b) => (order.get(a.case.id) ?? 0) - (order.get(b.case.id) ?? 0));
  }
  for (const [i, c] of (args.from.length > 0 ? [] : cases).entries()) {
    log(`[${i + 1}/${cases.length}] ${c.id}`);
    const file = path.join(outDir, `${fileNameFor(c.id)}.json`);
    // A case already in the output folder (an interrupted run resumed) is read, not run again.
    const done = await readFile(file, 'utf8').then(
      (text) => JSON.parse(text) as PremResult,
      () => null,
    );
    if (done) {
      results.push(done);
      log('    (already in the output folder)');
      continue;
    }
    try {
      const r = await runPremCase(c, args.threads);
      results.push(r);
      await writeAtomically(file, `${JSON.stringify(r, null, 2)}\n`);
      log(
        `    done: certified ${pct(r.certificate.certifiedShare)} at ζ = ${c.zeta}, α = ${formatNumber(r.certificate.alpha)}`,
      );
    } catch (err) {
      failures.push(`${c.id}: ${err instanceof Error ? err.message : String(err)}`);
      log(`    FAILED: ${failures.at(-1)}`);
    }
  }
  const report =
    `# bench ${suite.name}\n\n${suite.description}\n\n\`${command}\` · ${new Date().toISOString()} · ${describeMachine()}\n\n` +
    (args.from.length > 0
      ? `Assembled from earlier runs' JSON files (${args.from.join(', ')}), each a \`--suite prem --threads 1\` run; CPU s include the engine process.\n\n`
      : 'CPU s include the engine process (release-run.ts).\n\n') +
    premTable(results) +
    (failures.length ? `\nFailed: ${failures.join('; ')}\n` : '');
  await publishReport(outDir, latestPath, report, args.latest && results.length > 0);
  return failures.length > 0 ? 1 : 0;
}
