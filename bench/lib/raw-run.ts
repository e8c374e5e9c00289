/**
 * Running a raw-CSV suite (`raw`, `raw-share`): each case is a whole release pipeline
 * (raw-pipeline.ts); the table puts, per dataset and ε, every column's fidelity next to the
 * equal-width baseline (mean over seeds, worst seed in brackets).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { BenchArgs } from './args.ts';
import { listedCases, selectedCases } from './cases.ts';
import { describeMachine, fileNameFor, publishReport, writeAtomically } from './output.ts';
import { type RawCase, type RawResult, runRawCase } from './raw-pipeline.ts';
import { formatNumber } from './table.ts';

export interface RawSuite {
  readonly kind: 'raw';
  readonly name: string;
  readonly description: string;
  readonly defaultSeeds: number;
  readonly budget: string;
  cases(seeds: readonly number[]): RawCase[];
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function spread(xs: readonly number[]): string {
  if (xs.length === 0) return '';
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const worst = Math.max(...xs);
  return xs.length > 1 ? `${formatNumber(mean)} (${formatNumber(worst)})` : formatNumber(mean);
}

function groupBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    m.set(k, [...(m.get(k) ?? []), x]);
  }
  return m;
}

/** One section per dataset × ε × share: rows are columns, then the summary figures. */
export function rawTable(results: readonly RawResult[]): string {
  const out: string[] = [];
  const sections = groupBy(results, (r) => `${r.case.dataset} · ε = ${r.case.epsilon}`);
  for (const [title, rs] of sections) {
    const priv = groupBy(
      rs.filter((r) => r.case.method === 'private'),
      (r) => `share ${r.case.share}${r.case.bins ? `, ${r.case.bins} bins` : ''}`,
    );
    const base = rs.filter((r) => r.case.method === 'equal-width');
    for (const [variant, ps] of priv) {
      out.push(`### ${title} · private discovery (${variant}) vs equal-width baseline\n`);
      out.push(
        `Seeds: ${ps.map((r) => r.case.seed).join(', ')} (baseline: ${base.map((r) => r.case.seed).join(', ') || 'not run'}); mean over seeds, worst seed in brackets. ` +
          `n = ${ps[0].n}, δ = 1/n² = ${ps[0].delta.toExponential(2)}, ρ = ${ps[0].rhoTotal.toExponential(3)} of which discovery ${ps[0].rhoDiscovery.toExponential(3)}.\n`,
      );
      out.push(
        '| column | kind | private: KS / TV on the released domain | private: TV on raw strings | equal-width: KS / TV |',
      );
      out.push('| --- | --- | --- | --- | --- |');
      for (const [c, col] of ps[0].fidelity.columns.entries()) {
        const pick = (r: RawResult) => r.fidelity.columns[c];
        const main = (r: RawResult) => (col.kind === 'numeric' ? pick(r).ks! : pick(r).tvReleased!);
        const baseMain = (r: RawResult) => (col.kind === 'numeric' ? pick(r).ks! : pick(r).tvRaw!);
        out.push(
          `| ${col.name} | ${col.kind} | ${spread(ps.map(main))} | ${col.kind === 'categorical' ? spread(ps.map((r) => pick(r).tvRaw!)) : ''} | ${spread(base.map(baseMain))} |`,
        );
      }
      const line = (label: string, f: (r: RawResult) => number, baseToo = true) =>
        out.push(`| **${label}** | | ${spread(ps.map(f))} | | ${baseToo ? spread(base.map(f)) : ''} |`);
      line('mean KS (numeric columns)', (r) => r.fidelity.meanKs);
      line('max KS', (r) =>
        Math.max(...r.fidelity.columns.flatMap((c) => (c.ks === undefined ? [] : [c.ks]))),
      );
      line('max TV (released domain)', (r) =>
        Math.max(...r.fidelity.columns.flatMap((c) => (c.tvReleased === undefined ? [] : [c.tvReleased]))),
      );
      line('largest 2-way marginal error (deciles)', (r) => r.fidelity.maxTwoWay);
      line('… with real values mapped into the released domain', (r) => r.fidelity.maxTwoWayReleased);
      line('engine present error (workload)', (r) => r.report.presentError);
      line('CPU s', (r) => r.cpuSeconds);
      if (ps.some((r) => r.otherShare !== undefined)) {
        line('largest share of "(other)" in a column', (r) => r.otherShare ?? 0, false);
      }
      out.push('');
      out.push(
        `Worst 2-way pairs (private): ${ps.map((r) => r.fidelity.worstPair).join('; ')}; on the released domain: ${ps.map((r) => r.fidelity.worstPairReleased ?? '—').join('; ')}; baseline: ${base.map((r) => r.fidelity.worstPair).join('; ')}.\n`,
      );
    }
  }
  return out.join('\n');
}

async function stored(dir: string): Promise<RawResult[]> {
  const runs = path.join(dir, 'runs');
  const names = (await readdir(runs)).filter((n) => n.endsWith('.json')).sort();
  return Promise.all(
    names.map(async (n) => JSON.parse(await readFile(path.join(runs, n), 'utf8')) as RawResult),
  );
}

export async function runRawSuite(
  suite: RawSuite,
  args: BenchArgs,
  outDir: string,
  latestPath: string,
  command: string,
): Promise<number> {
  const cases = selectedCases(suite, args);
  if (listedCases(cases, args)) return 0;
  const started = performance.now();
  const results: RawResult[] = [];
  const failures: string[] = [];
  if (args.from.length) {
    const byId = new Map((await Promise.all(args.from.map(stored))).flat().map((r) => [r.case.id, r]));
    for (const c of cases) {
      const r = byId.get(c.id);
      if (r) results.push(r);
      else failures.push(`${c.id}: not run`);
    }
  } else {
    for (const [i, c] of cases.entries()) {
      log(`[${i + 1}/${cases.length}] ${c.id}`);
      try {
        const r = await runRawCase(c, path.join(outDir, 'releases'));
        await writeAtomically(
          path.join(outDir, 'runs', `${fileNameFor(c.id)}.json`),
          `${JSON.stringify(r)}\n`,
        );
        results.push(r);
        log(
          `    done: mean KS ${formatNumber(r.fidelity.meanKs)}, 2-way ${formatNumber(r.fidelity.maxTwoWay)}, ${formatNumber(r.cpuSeconds)} CPU s`,
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        failures.push(`${c.id}: ${message}`);
        log(`    FAILED: ${message}`);
      }
    }
  }
  const wall = (performance.now() - started) / 1000;
  const report = [
    `# Benchmark: ${suite.name}\n`,
    `${suite.description}\n`,
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${describeMachine()} (shared with other work while it ran: compare CPU s, not wall time)`,
    `- Wall time: ${formatNumber(wall)} s; budget ${suite.budget}`,
    ...(args.filter.length ? [`- Filtered: ${args.filter.join(' AND ')}`] : []),
    ...(failures.length ? [`- Not in the table: ${failures.join('; ')}`] : []),
    ...args.notes.map((n) => `- ${n}`),
    '',
    rawTable(results),
  ].join('\n');
  await publishReport(outDir, latestPath, report, args.latest && results.length > 0);
  return failures.length > 0 && !args.from.length ? 1 : 0;
}
