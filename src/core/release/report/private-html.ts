/**
 * The curator's report, NAME.REPORT.private.html (written 0600): how faithful the release is and
 * what it spent. Its figures compare with the private data — for the curator's office only,
 * never to be published. Drawn from ReportData (data.ts), the same figures the app's Results
 * step shows.
 */
import { barsChart, cdfChart, heatmapChart, profileChart, thresholdChart } from './charts.ts';
import type { ReportData } from './data.ts';
import { esc, figure, num, page, pct } from './html.ts';

function tile(label: string, value: string, hint = '', testid = ''): string {
  return `<div class="tile"${testid ? ` data-testid="${esc(testid)}"` : ''}><div class="l">${esc(label)}</div><div class="v">${esc(value)}</div>${hint ? `<div class="l">${esc(hint)}</div>` : ''}</div>`;
}

function verdict(d: ReportData): string {
  const checks = d.validity.checks
    .map(
      (c) =>
        `<tr><td><span class="badge ${c.ok ? 'ok' : 'warn'}">${c.ok ? 'ok' : 'check'}</span></td><td><strong>${esc(c.title)}</strong></td><td>${esc(c.detail)}</td></tr>`,
    )
    .join('');
  const s = d.score;
  return `<section data-section="verdict"><h2>Verdict</h2>
<div class="tiles">
${tile('Overall score', pct(s.overall), 'see the definition below', 'score-overall')}
${tile('Column shapes', pct(s.columnShapes))}
${tile('Pair trends', s.pairTrends === null ? '—' : pct(s.pairTrends))}
${tile('Workload max error', num(d.workload.max.released), `GM baseline ${num(d.workload.max.gm)} · All-0 ${num(d.workload.max.all0)}`)}
</div>
<p class="muted">${esc(s.definition)}</p>
<h3>Validity</h3><table>${checks}</table>
</section>`;
}

function spend(d: ReportData): string {
  const p = d.privacy;
  const disc = p.discovery;
  return `<section data-section="spend"><h2>What it spent</h2>
<p>ε = <strong>${num(p.epsilon)}</strong>, δ = ${num(p.delta)} — the ε you chose, charged to the ledger as ρ = ${num(p.rho)} (zCDP).
${disc ? `Of that ρ, finding the columns' values privately used ${pct(disc.share)} (ρ = ${num(disc.rho)}, δ = ${num(disc.delta)}) and making the synthetic data the rest (ρ = ${num(p.synthesis.rho)}): two parts of one ε, not two budgets.` : `All of it went to making the synthetic data (ρ = ${num(p.synthesis.rho)}).`}</p>
<dl class="facts">
<dt>Plan</dt><dd>${esc(d.run.mode)}${d.run.strategy ? ` · ${esc(d.run.strategy)}` : ''} · ${num(d.run.rounds)} rounds × ${num(d.run.perRound)} · ${num(d.run.numQueries)} queries</dd>
<dt>Rows</dt><dd>n′ = ${num(d.run.relaxedRows)} relaxed rows, ${num(d.run.releasedRows)} released</dd>
<dt>Backend</dt><dd>${esc(d.run.backendNote ?? d.run.backend)}</dd>
<dt>Randomness</dt><dd>${esc(d.run.seedMode)}</dd>
</dl></section>`;
}

function columnsSection(d: ReportData): string {
  const rows = d.columns
    .map(
      (c) =>
        `<tr><td>${esc(c.name)}</td><td>${esc(c.kind)}</td><td>${esc(c.domain)}</td><td class="num">${c.metric} ${num(c.distance)}</td><td class="num">${pct(1 - c.distance)}</td><td class="num">${c.merged.share > 0 ? pct(c.merged.share) : '—'}</td></tr>`,
    )
    .join('');
  const charts = d.columns
    .map((c) => {
      if (c.cdf) {
        return figure(
          cdfChart(c.name, c.cdf),
          `${c.name}: cumulative distribution, real against released; KS gap ${num(c.distance)}`,
          `column-${c.name}`,
        );
      }
      if (c.bars) {
        const other = c.otherShare > 0 ? `; "(other)" holds ${pct(c.otherShare)} of the released rows` : '';
        return figure(
          barsChart(c.bars),
          `${c.name}: shares of rows, real against released; TV distance ${num(c.distance)}${other}`,
          `column-${c.name}`,
        );
      }
      return '';
    })
    .join('');
  return `<section class="flow" data-section="columns"><h2>Fidelity per column</h2>
<table><thead><tr><th>Column</th><th>Kind</th><th>Domain</th><th class="num">Distance</th><th class="num">Score</th><th class="num">Real rows merged</th></tr></thead><tbody>${rows}</tbody></table>
<div class="grid2">${charts}</div></section>`;
}

function pairsSection(d: ReportData): string {
  if (d.pairs.names.length < 2) return '';
  return `<section data-section="pairs"><h2>Pairs of columns</h2>
<p class="muted">Total variation distance between the real and the released 2-way table of each pair of columns (on the release's categories and bins): 0 is identical.</p>
${figure(heatmapChart(d.pairs.names, d.pairs.tv), '2-way errors (TV distance) for every pair of columns', 'pairs')}</section>`;
}

function workloadSection(d: ReportData): string {
  const w = d.workload;
  const rows = w.thresholds
    .map(
      (t, i) =>
        `<tr><td>#${i + 1}</td><td>${esc(t.label)}</td><td class="num">${num(t.weight)}</td><td class="num">${num(t.released)}</td><td class="num">${num(t.gm)}</td><td class="num">${num(t.all0)}</td></tr>`,
    )
    .join('');
  return `<section class="flow" data-section="workload"><h2>The workload: error against the baselines</h2>
<p>Max error over the workload's queries: <strong>${num(w.max.released)}</strong> on the released rows (${num(w.max.relaxed)} relaxed), against ${num(w.max.gm)} for the GM baseline (each workload table measured once with Gaussian noise at the same ε, no synthetic data) and ${num(w.max.all0)} for All-0 (every answer 0). Mean error ${num(w.roundedMeanError)}.</p>
${figure(thresholdChart(w.thresholds), 'Max error per threshold: the released data against the GM and All-0 baselines', 'thresholds')}
<table><thead><tr><th>#</th><th>Threshold</th><th class="num">Weight</th><th class="num">Released</th><th class="num">GM</th><th class="num">All-0</th></tr></thead><tbody>${rows}</tbody></table>
<h3>Relative-error profile</h3>
<p class="muted">Share of the workload's queries whose released answer is within ζ of the true answer (relative), up to a small absolute slack α.</p>
${figure(profileChart(d.profile), 'Relative-error profile of the released data', 'profile')}
</section>`;
}

function mergesSection(d: ReportData): string {
  const cols = d.merges.columns
    .map(
      (c) =>
        `<tr><td>${esc(c.name)}</td><td class="num">${num(c.values)}</td><td class="num">${pct(c.share)}</td><td class="num">${pct(c.otherShare)}</td></tr>`,
    )
    .join('');
  const grouped = d.merges.grouped
    .map(
      (g) => `<li>${esc(g.name)}: ${num(g.categories)} categories measured in ${num(g.groups)} groups</li>`,
    )
    .join('');
  return `<section data-section="merges"><h2>What was merged</h2>
${cols ? `<p>Real values the release's domain does not name — merged into "(other)" by private partition selection, or outside a numeric column's range:</p><table><thead><tr><th>Column</th><th class="num">Distinct values merged</th><th class="num">Real rows</th><th class="num">Released "(other)"</th></tr></thead><tbody>${cols}</tbody></table>` : '<p>Nothing: every real value is one the release names.</p>'}
${grouped ? `<h3>Grouped for measuring (table mode)</h3><ul>${grouped}</ul>` : ''}
</section>`;
}

function timingsSection(d: ReportData): string {
  const rows = d.timings
    .map((t) => `<tr><td>${esc(t.label)}</td><td class="num">${num(t.seconds)} s</td></tr>`)
    .join('');
  return `<section data-section="timings"><h2>Timings</h2><table>${rows}</table></section>`;
}

function previewSection(d: ReportData): string {
  const head = d.preview.header.map((h) => `<th>${esc(h)}</th>`).join('');
  const rows = d.preview.rows.map((r) => `<tr>${r.map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`).join('');
  return `<section data-section="preview"><h2>The first ${d.preview.rows.length} released rows</h2>
<div class="preview"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

export function renderPrivateReport(d: ReportData): string {
  const body = [
    `<header class="top"><div class="kicker private-mark">Private — for the curator's eyes only; do not publish</div>
<h1>Release report: ${esc(d.datasetName)}</h1>
<p class="muted">Release <span class="mono">${esc(d.releaseId)}</span> · ${esc(d.createdAt)}</p>
<p>${esc(d.note)}</p></header>`,
    verdict(d),
    spend(d),
    previewSection(d),
    columnsSection(d),
    pairsSection(d),
    workloadSection(d),
    mergesSection(d),
    timingsSection(d),
  ];
  return stableIds(page(`PRIVATE release report: ${d.datasetName}`, body.join('\n')));
}

/**
 * ECharts numbers its ids and classes process-wide (zr12-cls-40, zr12-g0): renumbered in order of
 * appearance, so the same data draws the same bytes in any process, at any time.
 */
function stableIds(html: string): string {
  const ids = new Map<string, string>();
  return html.replace(/\bzr\d+-[A-Za-z0-9_-]+/g, (id) => {
    if (!ids.has(id)) ids.set(id, `c${ids.size + 1}`);
    return ids.get(id)!;
  });
}
