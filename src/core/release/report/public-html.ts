/**
 * The public report, NAME.report.html: what was released and under which guarantee, for anyone
 * the synthetic data goes to. It is rendered from the release manifest ALONE (and the manifest
 * file's own SHA-256): every value on it is a manifest value, shown in an element that names its
 * path in the manifest (`data-m`), so a test can check that the page holds nothing else.
 * Everything else on the page is fixed text.
 */
import { esc, num, page } from './html.ts';

type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };
export type Manifest = { readonly [k: string]: Json };

/** The manifest's value at a dotted path (array items by index), or undefined. */
export function at(m: Json | undefined, path: string): Json | undefined {
  let v: Json | undefined = m;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Array.isArray(v) ? (v as readonly Json[])[Number(key)] : (v as { [k: string]: Json })[key];
  }
  return v;
}

/** How a manifest leaf is shown: numbers to 4 significant digits, the rest as written. */
export function shown(v: Json | undefined): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return num(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** The manifest value at `path`, marked with its path. */
function m(manifest: Manifest, path: string, cls = ''): string {
  const v = at(manifest, path);
  return `<span data-m="${esc(path)}"${cls ? ` class="${cls}"` : ''}>${esc(shown(v))}</span>`;
}

function has(manifest: Manifest, path: string): boolean {
  const v = at(manifest, path);
  return v !== undefined && v !== null;
}

/** Every leaf of an object as rows "key path → value" (keys are the manifest's own). */
function leafRows(manifest: Manifest, path: string, skip: readonly string[] = []): string {
  const rows: string[] = [];
  const walk = (p: string) => {
    const v = at(manifest, p);
    if (v !== null && typeof v === 'object') {
      const keys = Array.isArray(v) ? v.map((_, i) => String(i)) : Object.keys(v);
      for (const k of keys) if (!skip.includes(`${p}.${k}`)) walk(`${p}.${k}`);
      return;
    }
    const label = p.slice(path.length + 1);
    rows.push(`<tr><th>${esc(label)}</th><td>${m(manifest, p)}</td></tr>`);
  };
  walk(path);
  return rows.length ? `<table class="kv">${rows.join('')}</table>` : '';
}

function columnsTable(manifest: Manifest): string {
  const cols = at(manifest, 'schema.columns');
  if (!Array.isArray(cols)) return '';
  const rows = cols.map((_, i) => {
    const p = `schema.columns.${i}`;
    const cost = has(manifest, `${p}.rho`)
      ? `ρ = ${m(manifest, `${p}.rho`)}, δ = ${m(manifest, `${p}.delta`)}`
      : '<span class="muted">free</span>';
    return `<tr><td>${m(manifest, `${p}.name`)}</td><td>${m(manifest, `${p}.domain`)}</td><td>${cost}</td></tr>`;
  });
  return `<table><thead><tr><th>Column</th><th>Where its domain came from</th><th>Cost</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function workloadItems(manifest: Manifest): string {
  const items = at(manifest, 'workload.items');
  if (!Array.isArray(items) || items.length === 0) return '';
  const rows = items.map((_, i) => {
    const p = `workload.items.${i}`;
    const feats = at(manifest, `${p}.features`);
    const names = Array.isArray(feats)
      ? feats.map((_, j) => m(manifest, `${p}.features.${j}`)).join(', ')
      : '';
    return `<li>at least ${m(manifest, `${p}.r`)} of {${names}} match, weight ${m(manifest, `${p}.weight`)}</li>`;
  });
  return `<p>Each threshold asks, for every combination of values of its columns, what share of the rows match at least r of them:</p><ol>${rows.join('')}</ol>`;
}

/** Where other parts of the manifest may state the unit of privacy and the accuracy certificate. */
const UNIT_PATHS = ['privacy.unit', 'unit', 'privacy.unitOfPrivacy'];
const CERTIFICATE_PATHS = ['certificate', 'accuracyCertificate', 'accuracy'];

export function renderPublicReport(manifest: Manifest, manifestSha256: string): string {
  const discovery = has(manifest, 'privacy.discovery');
  const unit = UNIT_PATHS.find((p) => has(manifest, p));
  const certificate = CERTIFICATE_PATHS.find((p) => has(manifest, p));
  const unitText = (() => {
    if (!unit) return 'one record (one row of the table)';
    const v = at(manifest, unit);
    return v !== null && typeof v === 'object' ? leafRows(manifest, unit) : m(manifest, unit);
  })();
  const body = [
    `<header class="top"><div class="kicker">Public release report — publish it with the synthetic data</div>
<h1>Synthetic data: ${m(manifest, 'dataset.name')}</h1>
<p class="muted">Release ${m(manifest, 'releaseId', 'mono')} · written ${m(manifest, 'createdAt')}</p></header>`,
    has(manifest, 'notARelease')
      ? `<section><h2><span class="badge bad">Not a release</span></h2><p>${m(manifest, 'notARelease')}</p></section>`
      : '',
    `<section data-section="guarantee"><h2>The guarantee</h2>
<p class="guarantee">This table was made with <strong>differential privacy</strong> at ε = <strong>${m(manifest, 'privacy.epsilon')}</strong> and δ = <strong>${m(manifest, 'privacy.delta')}</strong>.
In plain words: whatever one person's record was — in the data, out of it, or different — every possible version of this release stays about as likely (at most e<sup>ε</sup> times more or less likely), except with a chance of at most δ. The smaller ε, the less anyone can learn about one person from it.</p>
<p>Unit of privacy: ${unitText}.</p>
<dl class="facts">
<dt>ε (the budget chosen)</dt><dd>${m(manifest, 'privacy.epsilon')}</dd>
<dt>δ</dt><dd>${m(manifest, 'privacy.delta')}</dd>
<dt>ρ (zCDP, what the budget ledger charged)</dt><dd>${m(manifest, 'privacy.rho')}</dd>
${discovery ? `<dt>of which: finding the columns' values privately</dt><dd>ρ = ${m(manifest, 'privacy.discovery.rho')} (share ${m(manifest, 'privacy.discovery.share')}), δ = ${m(manifest, 'privacy.discovery.delta')}</dd>` : ''}
<dt>of which: making the synthetic data</dt><dd>ρ = ${m(manifest, 'privacy.synthesis.rho')}</dd>
<dt>How it adds up</dt><dd>${m(manifest, 'privacy.accounting')}</dd>
<dt>Mechanism</dt><dd>${m(manifest, 'mechanism')}</dd>
<dt>Randomness</dt><dd>${m(manifest, 'seedMode')}</dd>
</dl></section>`,
    `<section data-section="data"><h2>What was released</h2>
<dl class="facts">
<dt>Records in the original table</dt><dd>${m(manifest, 'dataset.rows')}</dd>
<dt>Synthetic rows released</dt><dd>${m(manifest, 'output.rows')}</dd>
<dt>File</dt><dd>${m(manifest, 'output.file', 'mono')}</dd>
<dt>Domain</dt><dd>${m(manifest, 'schema.origin')}: ${m(manifest, 'schema.note')}</dd>
</dl>
<h3>Columns</h3>${columnsTable(manifest)}</section>`,
    `<section data-section="plan"><h2>How it was made</h2>
${has(manifest, 'plan') ? `<h3>Plan</h3>${leafRows(manifest, 'plan')}` : ''}
<h3>Parameters</h3>${leafRows(manifest, 'parameters', ['parameters.columns', 'parameters.discovery'])}
<p>Engine backend: ${m(manifest, 'backend')}</p></section>`,
    `<section data-section="workload"><h2>The workload it was made for</h2>
<p>${m(manifest, 'workload.thresholds')} thresholds (r-of-k queries) with their weights; workload SHA-256 ${m(manifest, 'workload.sha256', 'mono')}.</p>
${workloadItems(manifest)}</section>`,
    certificate
      ? `<section data-section="certificate"><h2>Accuracy certificate</h2>${leafRows(manifest, certificate)}</section>`
      : '',
    `<section data-section="files"><h2>Files and software</h2>
<dl class="facts">
<dt>Synthetic CSV SHA-256</dt><dd>${m(manifest, 'output.sha256', 'mono')}</dd>
<dt>Schema SHA-256</dt><dd>${m(manifest, 'schema.sha256', 'mono')}</dd>
<dt>RAP Studio version</dt><dd>${m(manifest, 'appVersion')}</dd>
${has(manifest, 'ledger') ? `<dt>Budget ledger</dt><dd>${leafRows(manifest, 'ledger')}</dd>` : ''}
<dt>Manifest SHA-256</dt><dd><span data-manifest-sha256 class="mono">${esc(manifestSha256)}</span></dd>
</dl>
<p class="muted">The manifest (the JSON file beside the CSV) holds every figure on this page; nothing here was computed from the original data beyond what the guarantee above covers.</p></section>`,
  ];
  return page('Public release report', body.join('\n'));
}
