/**
 * The Markdown report: a header (command, machine, references), one table row per case (mean ±
 * sample sd over seeds) and, when profiled, where the time went.
 */
import { aggregate, type Spread, type TableRow } from './aggregate.ts';
import type { ProfileSummary } from './profile.ts';
import { REFERENCE_NOTES, referencesFor } from './reference.ts';
import type { BenchResult } from './types.ts';

/** Three significant digits; exponent form outside [0.001, 100,000). */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e-3 && a < 1e5) return String(Number(x.toPrecision(3)));
  return x.toExponential(2).replace('e+', 'e');
}

export function formatSpread(s: Spread | undefined, format = formatNumber): string {
  if (!s) return 'n/a';
  return s.count > 1 ? `${format(s.mean)} ± ${format(s.sd)}` : format(s.mean);
}

const integer = (x: number) => Math.round(x).toLocaleString('en-US');

export interface Column {
  readonly header: string;
  cell(row: TableRow): string;
}

const first = (row: TableRow): BenchResult => row.results[0];

function roundsCell(row: TableRow): string {
  const r = first(row);
  const x = r.extrapolation;
  return x ? `${x.targetRounds} (ran ${x.measuredRounds})` : String(r.report.rounds);
}

function referenceError(row: TableRow): string {
  const r = first(row);
  const refs = referencesFor({
    ...r.workload,
    dataset: r.dataset.name,
    thresholds: r.workload.size,
    epsilon: r.case.epsilon,
  });
  return refs.error.map((e) => `${e.source} ${formatNumber(e.value)}`).join('; ');
}

function referenceQps(row: TableRow): string {
  const r = first(row);
  const q = referencesFor({
    ...r.workload,
    dataset: r.dataset.name,
    thresholds: r.workload.size,
    epsilon: r.case.epsilon,
  }).queriesPerSecond;
  return q ? `${integer(q.value)} (${q.source})` : '';
}

export const COLUMNS: readonly Column[] = [
  { header: 'dataset', cell: (row) => first(row).dataset.name },
  {
    header: 'workload',
    cell: (row) => {
      const w = first(row).workload;
      return `${w.r}-of-${w.k} × ${w.size}${w.maxDomain !== undefined ? ` (domains ≤ ${w.maxDomain})` : ''}`;
    },
  },
  { header: 'queries', cell: (row) => formatNumber(first(row).workload.queries) },
  { header: 'mode', cell: (row) => first(row).report.mode },
  { header: 'ε', cell: (row) => String(first(row).case.epsilon) },
  { header: 'δ', cell: (row) => formatNumber(first(row).delta) },
  { header: "n'", cell: (row) => String(first(row).report.rows) },
  { header: 'T', cell: roundsCell },
  { header: 'K', cell: (row) => String(first(row).report.perRound) },
  { header: 'backend', cell: (row) => first(row).backend },
  { header: 'seeds', cell: (row) => `${row.results.length} × ${first(row).report.seedMode}` },
  { header: 'released CSV err', cell: (row) => formatSpread(row.metrics.roundedPresentError) },
  { header: 'relaxed err', cell: (row) => formatSpread(row.metrics.presentError) },
  { header: 'GM (tables)', cell: (row) => formatSpread(row.metrics.gmError) },
  { header: 'ref err', cell: referenceError },
  {
    header: 'plan',
    cell: (row) =>
      first(row).released?.plan ?? `${first(row).report.tableMode?.strategy ?? 'query'} (engine-only)`,
  },
  { header: 'mean err', cell: (row) => formatSpread(row.metrics.meanError) },
  { header: 'All-0', cell: (row) => formatSpread(row.metrics.all0Error) },
  {
    header: 's total (sel / proj)',
    cell: (row) =>
      `${formatSpread(row.metrics.secondsTotal)} (${formatSpread(row.metrics.secondsSelection)} / ${formatSpread(row.metrics.secondsProjection)})` +
      (first(row).extrapolation ? ' †' : ''),
  },
  { header: 'CPU s', cell: (row) => formatSpread(row.metrics.cpuSeconds) },
  { header: 'queries/s', cell: (row) => formatSpread(row.metrics.queriesPerSecond, integer) },
  { header: 'ref q/s', cell: referenceQps },
  { header: 'peak RSS MB', cell: (row) => formatSpread(row.metrics.peakRssMB, integer) },
];

function escapeCell(s: string): string {
  return s.replace(/\|/g, '\\|');
}

export function markdownTable(rows: readonly TableRow[], columns: readonly Column[] = COLUMNS): string {
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  return [
    line(columns.map((c) => c.header)),
    line(columns.map(() => '---')),
    ...rows.map((row) => line(columns.map((c) => c.cell(row)))),
  ].join('\n');
}

export interface ReportHeader {
  readonly suite: string;
  readonly description: string;
  readonly command: string;
  readonly date: string;
  readonly machine: string;
  readonly wallSeconds: number;
  readonly budget?: string;
  readonly notes?: readonly string[];
  /** The suite's own sections after the table. */
  readonly sections?: readonly string[];
}

const LEGEND = [
  "Released CSV err: max |answer − exact| over every query of the workload on the released (rounded) synthetic rows — what the curator gets; relaxed err: the same on the relaxed D'; mean err is the mean over queries (on the released CSV; on the relaxed D' for engine-only rows). All-0: the error of answering 0 everywhere; GM (tables): the expected max error of the Gaussian mechanism measuring each distinct workload table once at the same ρ, every query answered from its noisy table (no synthetic data). plan: the plan the release ran (table mode's direct, mixed or adaptive; query).",
  "Seconds are the engine's (secondsTotal includes the final evaluation over all queries); CPU s: user + system CPU time of the release, this process and the engine process together (on a busy machine wall seconds also count waiting for a core). queries/s = workload queries / total seconds. Peak RSS: the larger of this process's and the engine process's resident memory during the run (dataset included).",
  'Each run is a release through the release pipeline (the spec module and stages `rap-studio synth` runs) with seeded, insecure noise and a throwaway ledger: reproducible, no privacy; its errors are scored on the released CSV read back. Rows whose plan says engine-only (--profile) ran the engine in-process: a kernel micro-benchmark.',
];

function profileSection(label: string, p: ProfileSummary): string {
  const pct = (s: number) => `${((100 * s) / p.sampledSeconds).toFixed(1)}%`;
  const list = (items: readonly { name: string; seconds: number }[]) =>
    items.map((i) => `${i.name} ${formatNumber(i.seconds)} s (${pct(i.seconds)})`).join('; ');
  return [
    `### Profile: ${label}`,
    '',
    `Sampled CPU time ${formatNumber(p.sampledSeconds)} s.`,
    '',
    `- By phase: ${list(p.byPhase)}`,
    `- By kind: ${list(p.byKind)}`,
    `- Phase / kind (top 8): ${list(p.byPhaseAndKind.slice(0, 8))}`,
    '',
    '| function | where | self s |',
    '| --- | --- | --- |',
    ...p.topFunctions.map(
      (f) => `| ${escapeCell(f.name)} | ${escapeCell(f.where)} | ${formatNumber(f.seconds)} |`,
    ),
  ].join('\n');
}

/** The engine's own timing counters (RapReport.timings), one line per run that has them. */
function countersSection(results: readonly BenchResult[]): string[] {
  const lines = results.flatMap((r) => {
    const t = r.report.timings;
    if (!t) return [];
    const parts: [string, number][] = [
      ['sparsemax', t.sparsemax],
      ['loss & gradient', t.lossGradient],
      ['relaxed answers', t.relaxedAnswers],
      ['exact answers', t.exactAnswers],
      ['noise', t.noise],
      ['evaluation', t.evaluation],
    ];
    const list = parts.map(([name, s]) => `${name} ${formatNumber(s)}`).join(', ');
    return [`- ${r.case.id}: ${list} (of ${formatNumber(r.report.secondsTotal)} s total)`];
  });
  if (lines.length === 0) return [];
  return [
    '',
    '## Engine counters (seconds)',
    '',
    'Wall seconds the engine counted by kind of work: sparsemax, loss & gradient, relaxed and exact answers outside the final evaluation, privacy noise (Gumbel top-K and measurements), the whole final evaluation.',
    '',
    ...lines,
  ];
}

export function markdownReport(header: ReportHeader, results: readonly BenchResult[]): string {
  const rows = aggregate(results);
  const extrapolated = results.some((r) => r.extrapolation);
  const profiles = results.filter((r) => r.profile).map((r) => profileSection(r.case.id, r.profile!));
  return [
    `# Benchmark: ${header.suite}`,
    '',
    header.description,
    '',
    `- Command: \`${header.command}\``,
    `- Date: ${header.date}; machine: ${header.machine}`,
    `- Wall time of the suite: ${formatNumber(header.wallSeconds)} s (${results.length} runs)` +
      (header.budget ? `; budget ${header.budget}` : ''),
    ...(header.notes ?? []).map((n) => `- ${n}`),
    '',
    'Published references:',
    '',
    ...REFERENCE_NOTES.map((n) => `- ${n}`),
    '',
    markdownTable(rows),
    '',
    ...LEGEND.map((l) => `- ${l}`),
    ...(extrapolated
      ? [
          '- † Extrapolated: the run was cut to the first rounds (--max-rounds) at the same per-round ρ and its round times fitted by a line and extended to T — a lower bound when later rounds slow down faster than linearly (they do on `scale`; use a larger R there); errors of such rows are n/a.',
        ]
      : []),
    ...(header.sections?.length ? ['', ...header.sections] : []),
    ...countersSection(results),
    ...(profiles.length ? ['', '## Where the time goes', '', ...profiles.flatMap((p) => [p, ''])] : []),
    '',
  ].join('\n');
}
