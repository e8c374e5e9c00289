/**
 * The public report holds only what the manifest holds: every value on it sits in an element
 * naming its manifest path and equals the manifest's value there, and the rest of the page does
 * not depend on the manifest at all (a manifest with every value changed gives the same text
 * outside those elements). Nothing on it can be fetched.
 */
import { describe, expect, it } from 'vitest';
import { splitReport } from '../../../../test/support/public-report.ts';
import { at, type Manifest, renderPublicReport, shown } from './public-html.ts';

/** A manifest as `synth` writes it with discovery, plus the optional parts other issues add. */
const MANIFEST: Manifest = {
  format: 'rap-studio-release-manifest',
  version: 2,
  releaseId: '00c1cb56-efe8-485f-99dc-fb23e1c96742',
  appVersion: '0.1.0',
  mechanism: 'domain-discovery+rap-table',
  privacy: {
    epsilon: 1,
    delta: 2.777777777777778e-6,
    rho: 0.026781211126959727,
    usedRho: 0.0250885423954299,
    accounting: 'approximate zCDP: then (ε, δ − δ_discovery)-DP by the zCDP conversion',
    discovery: { rho: 0.00501770847908598, delta: 1.388888888888889e-6, share: 0.2 },
    synthesis: { rho: 0.02007083391634392 },
    unit: 'one person (all rows with the same id)',
  },
  parameters: {
    rounds: 8,
    perRound: 1,
    rows: 200,
    oversample: 50,
    numQueries: 'set by discovery',
    discovery: { share: 0.2 },
    columns: [{ name: 'age', domain: 'discovered privately' }],
    mode: 'table',
  },
  plan: { mode: 'table', strategy: 'mixed', upfrontShare: 0.5 },
  seedMode: 'secure',
  backend: 'cpu',
  dataset: { name: 'adult.data', rows: 32561 },
  schema: {
    sha256: 'dd5c228e0bfe4a6ea5d965570eaeafb03701281c8672a53a904700b287567323',
    origin: 'discovered',
    note: 'discovered with differential privacy',
    columns: [
      { name: 'age', domain: 'discovered privately', rho: 0.0012544, delta: 3.47e-7 },
      { name: 'sex', domain: 'declared' },
    ],
  },
  workload: {
    sha256: '2bca67026d9a730cc17f816097af363d1b64dad933b257da2d016c36f824b5f4',
    thresholds: 2,
    items: [
      { r: 2, features: ['age', 'sex'], weight: 1 },
      { r: 1, features: ['sex'], weight: 0.5 },
    ],
  },
  certificate: { alpha: 0.05, beta: 0.05, bound: 0.031 },
  ledger: { id: 'f1e2', events: 12, headHash: 'ab12cd' },
  createdAt: '2026-11-25T17:53:02.943Z',
  output: {
    file: 'out.csv',
    sha256: '23359835e8576db7ed81e89b4359257b',
    rows: 10000,
    columns: ['age', 'sex'],
  },
};
const SHA = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The same shape with every leaf changed (numbers, strings, booleans). */
function mutate(v: unknown, path = ''): unknown {
  if (typeof v === 'number') return v * 7 + 0.123;
  if (typeof v === 'string') return `changed<${path}>`;
  if (typeof v === 'boolean') return !v;
  if (Array.isArray(v)) return v.map((x, i) => mutate(x, `${path}.${i}`));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mutate(x, `${path}.${k}`)]));
  return v;
}

describe('the public report', () => {
  const html = renderPublicReport(MANIFEST, SHA);

  it('shows every value in an element naming its manifest path, equal to the manifest value there', () => {
    const { marked } = splitReport(html);
    expect(marked.length).toBeGreaterThan(30);
    for (const { path, text } of marked) {
      const v = at(MANIFEST, path);
      expect(v, path).not.toBeUndefined();
      expect(text, path).toBe(shown(v));
    }
    // The headline facts are among them.
    const paths = new Set(marked.map((m) => m.path));
    for (const p of [
      'dataset.name',
      'output.rows',
      'privacy.epsilon',
      'privacy.delta',
      'privacy.rho',
      'privacy.unit',
      'privacy.discovery.rho',
      'schema.columns.0.domain',
      'plan.strategy',
      'workload.items.0.features.1',
      'certificate.bound',
      'appVersion',
      'output.sha256',
    ]) {
      expect(paths.has(p), p).toBe(true);
    }
    expect(html).toContain(SHA);
  });

  it('holds nothing else: the text outside those elements does not depend on the manifest', () => {
    const other = renderPublicReport(mutate(MANIFEST) as Manifest, 'f'.repeat(64));
    expect(splitReport(other).rest).toBe(splitReport(html).rest);
    expect(splitReport(html).rest).not.toContain('adult');
  });

  it('references nothing outside the page', () => {
    for (const page of [html, renderPublicReport(mutate(MANIFEST) as Manifest, SHA)]) {
      expect(page).not.toMatch(/https?:|\bsrc=|\bhref=|url\((?!#)|@import|<script|<link/i);
      expect(page).toContain("default-src 'none'");
    }
  });

  it('finds the unit of privacy and the certificate under the other names a manifest may use', () => {
    const { privacy, certificate, ...rest } = MANIFEST as Record<string, Manifest>;
    const { unit, ...privacyRest } = privacy;
    const other: Manifest = {
      ...rest,
      privacy: privacyRest,
      unit: { kind: 'person', idColumn: 'pid' },
      accuracyCertificate: certificate,
    };
    const page = renderPublicReport(other, SHA);
    const { marked, rest: text } = splitReport(page);
    const paths = marked.map((x) => x.path);
    expect(paths).toContain('unit.idColumn');
    expect(paths).toContain('accuracyCertificate.bound');
    for (const { path, text: t } of marked) expect(t, path).toBe(shown(at(other, path)));
    expect(text).toBe(splitReport(renderPublicReport(mutate(other) as Manifest, SHA)).rest);
    expect(unit).toBeDefined();
  });

  it('escapes manifest text (a dataset named like markup stays text)', () => {
    const page = renderPublicReport({ ...MANIFEST, dataset: { name: '<img src=x>', rows: 1 } }, SHA);
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;img src=x&gt;');
  });
});
