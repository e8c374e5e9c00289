/**
 * One dataset's releases over time, for an oversight body: a CSV and a printable page (the Ledger
 * step offers both). Ledger facts only — dates, ε, δ, ρ, unit, plan, status, output hashes, the
 * cap and what remains — and no fingerprint of the private file (the ledger keeps it for itself).
 */
import { svgChart } from './charts.ts';
import { esc, num, page } from './html.ts';

export interface TimelineRelease {
  readonly id: string;
  readonly createdAt: string;
  readonly status: string;
  readonly epsilon: number;
  readonly delta: number;
  readonly rho: number;
  readonly unit: string;
  readonly plan: string;
  readonly outputSha256: string | null;
  readonly abortReason: string | null;
  /** Cumulative spend after this release, as ε at the cap's δ (null without a cap). */
  readonly cumulativeEpsilon: number | null;
}

export interface Timeline {
  readonly dataset: string;
  readonly rows: number;
  readonly cap: { readonly epsilon: number; readonly delta: number } | null;
  readonly spentEpsilon: number | null;
  readonly remainingEpsilon: number | null;
  readonly releases: readonly TimelineRelease[];
  readonly generatedAt: string;
}

export const REMAINING_EXPLAINED =
  'Releases add up in ρ (zero-concentrated DP), not in ε, and ε grows slower than ρ: two releases at ε = 1 ' +
  'cost less than one at ε = 2, so what remains is more than the cap minus the sum of the ε spent. ' +
  'Reserved, committed and aborted releases all count.';

const COLUMNS = [
  'dataset',
  'reserved_at',
  'release_id',
  'status',
  'epsilon',
  'delta',
  'rho',
  'unit_of_privacy',
  'plan',
  'output_sha256',
  'cumulative_epsilon',
  'cap_epsilon',
  'cap_delta',
  'abort_reason',
] as const;

/** A CSV cell: quoted when needed; text a spreadsheet would run as a formula is prefixed with '. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'number' ? String(v) : String(v);
  if (typeof v !== 'number' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function timelineCsv(t: Timeline): string {
  const lines = [COLUMNS.join(',')];
  for (const r of t.releases) {
    lines.push(
      [
        t.dataset,
        r.createdAt,
        r.id,
        r.status,
        r.epsilon,
        r.delta,
        r.rho,
        r.unit,
        r.plan,
        r.outputSha256,
        r.cumulativeEpsilon,
        t.cap?.epsilon,
        t.cap?.delta,
        r.abortReason,
      ]
        .map(cell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

function chart(t: Timeline): string {
  const points = t.releases
    .filter((r) => r.cumulativeEpsilon !== null)
    .map((r) => [r.createdAt, r.cumulativeEpsilon]);
  if (points.length === 0) return '';
  return svgChart(
    {
      grid: { left: 60, right: 30, top: 20, bottom: 40 },
      xAxis: { type: 'time' },
      yAxis: {
        type: 'value',
        min: 0,
        // The cap stays in view (a mark line outside the axis is not drawn).
        max: Number((1.1 * Math.max(t.cap?.epsilon ?? 0, ...points.map((p) => Number(p[1])))).toPrecision(2)),
        name: 'cumulative ε',
        nameTextStyle: { align: 'left' },
      },
      series: [
        {
          type: 'line',
          step: 'end',
          data: points,
          symbolSize: 7,
          markLine: t.cap
            ? {
                symbol: 'none',
                lineStyle: { type: 'dashed', color: '#b42318' },
                label: {
                  formatter: `cap ε = ${num(t.cap.epsilon)}`,
                  color: '#b42318',
                  position: 'insideEndTop',
                },
                data: [{ yAxis: t.cap.epsilon }],
              }
            : undefined,
        },
      ],
    },
    1000,
    260,
  );
}

/** The printable page: the cap, what remains (and why), every release in order. */
export function renderTimeline(t: Timeline): string {
  const rows = t.releases
    .map(
      (
        r,
      ) => `<tr data-status="${esc(r.status)}"><td>${esc(r.createdAt.replace('T', ' ').slice(0, 19))}</td><td class="mono">${esc(r.id)}</td>
<td><span class="badge ${r.status === 'committed' ? 'ok' : r.status === 'aborted' ? 'bad' : 'warn'}">${esc(r.status)}</span>${r.abortReason ? `<br><small class="muted">${esc(r.abortReason)}</small>` : ''}</td>
<td class="num">${num(r.epsilon)}</td><td class="num">${num(r.delta)}</td><td class="num">${num(r.rho)}</td><td>${esc(r.unit)}</td><td>${esc(r.plan)}</td>
<td class="mono">${esc(r.outputSha256 ?? '—')}</td><td class="num">${num(r.cumulativeEpsilon)}</td></tr>`,
    )
    .join('');
  const body = `<header class="top"><div class="kicker">Privacy budget ledger — releases of one dataset</div>
<h1>${esc(t.dataset)}</h1>
<p class="muted">${num(t.rows)} records · printed ${esc(t.generatedAt)}</p></header>
<section><h2>Budget</h2>
<dl class="facts">
<dt>Cap</dt><dd>${t.cap ? `ε = ${num(t.cap.epsilon)} at δ = ${num(t.cap.delta)}` : 'not set'}</dd>
<dt>Spent</dt><dd>ε = ${num(t.spentEpsilon)}</dd>
<dt>Remaining</dt><dd>ε = ${num(t.remainingEpsilon)}</dd>
</dl>
<p class="muted">${esc(REMAINING_EXPLAINED)}</p>
${chart(t)}</section>
<section class="flow"><h2>Releases</h2>
<table><thead><tr><th>Reserved</th><th>Release</th><th>Status</th><th class="num">ε</th><th class="num">δ</th><th class="num">ρ</th><th>Unit</th><th>Plan</th><th>Output SHA-256</th><th class="num">Cumulative ε</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
  return page(`Ledger timeline: ${t.dataset}`, body);
}
