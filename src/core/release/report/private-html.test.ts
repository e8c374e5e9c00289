/**
 * The private report draws every part of its data, with charts inline, no reference outside the
 * page, and the same bytes each time it is drawn (a kept release re-inspected after a restart
 * shows the very report of before).
 */
import { describe, expect, it } from 'vitest';
import { SCORE_DEFINITION } from './data.ts';
import { renderPrivateReport } from './private-html.ts';
import type { ReportData } from './types.ts';

const DATA: ReportData = {
  format: 'rap-studio-private-report',
  version: 1,
  releaseId: 'r-1',
  datasetName: 'people.csv',
  createdAt: '2026-11-25T18:00:00.000Z',
  manifest: {},
  privacy: {
    epsilon: 1,
    delta: 1e-6,
    rho: 0.02,
    discovery: { rho: 0.004, delta: 5e-7, share: 0.2 },
    synthesis: { rho: 0.016 },
  },
  run: {
    mode: 'table',
    strategy: 'mixed',
    rounds: 3,
    perRound: 1,
    relaxedRows: 100,
    releasedRows: 5000,
    numQueries: 42,
    backend: 'cpu',
    backendNote: 'cpu, 2 threads',
    seedMode: 'secure',
  },
  score: { overall: 0.9, columnShapes: 0.92, pairTrends: 0.88, definition: SCORE_DEFINITION },
  validity: {
    ok: false,
    checks: [
      { code: 'constant-column', ok: false, title: 'No constant columns', detail: 'when', columns: ['when'] },
    ],
  },
  columns: [
    {
      name: 'city',
      kind: 'categorical',
      domain: 'discovered privately',
      metric: 'TV',
      distance: 0.1,
      bars: { labels: ['Oslo', '(other)'], real: [0.9, 0], synthetic: [0.8, 0.2] },
      merged: { values: 3, share: 0.1 },
      otherShare: 0.2,
      missing: { real: 0, synthetic: 0 },
      syntheticDistinct: 2,
      realDistinct: 4,
      outsideDomain: 0,
    },
    {
      name: 'age',
      kind: 'numeric',
      domain: 'declared',
      metric: 'KS',
      distance: 0.05,
      cdf: { x: [1, 2, 3], real: [0.2, 0.6, 1], synthetic: [0.3, 0.6, 1] },
      merged: { values: 0, share: 0 },
      otherShare: 0,
      missing: { real: 0, synthetic: 0 },
      syntheticDistinct: 3,
      realDistinct: 3,
      outsideDomain: 0,
    },
  ],
  pairs: {
    names: ['city', 'age'],
    tv: [
      [null, 0.12],
      [0.12, null],
    ],
  },
  workload: {
    max: { relaxed: 0.02, released: 0.03, all0: 0.9, gm: 0.05 },
    meanError: 0.01,
    roundedMeanError: 0.012,
    thresholds: [
      { label: '2-of-{city, age}', weight: 1, relaxed: 0.02, released: 0.03, all0: 0.9, gm: 0.05 },
    ],
  },
  profile: [{ zeta: 0.1, alpha: 0.005, share: 0.7 }],
  merges: { columns: [{ name: 'city', values: 3, share: 0.1, otherShare: 0.2 }], grouped: [] },
  timings: [{ label: 'whole run (engine)', seconds: 1.5 }],
  preview: { header: ['city', 'age'], rows: [['Oslo', '3']] },
  note: 'for the curator only',
};

describe('the private report', () => {
  it('draws the same bytes every time', () => {
    const a = renderPrivateReport(DATA);
    expect(renderPrivateReport(DATA)).toBe(a);
    expect(a).not.toMatch(/\bzr\d+-/);
  });

  it('holds the verdict, the definition, every chart and no reference outside the page', () => {
    const html = renderPrivateReport(DATA);
    expect(html).toContain('Overall score');
    expect(html).toContain('90.0 %');
    expect(html).toContain(SCORE_DEFINITION.replace(/"/g, '&quot;').replace(/'/g, '&#39;'));
    for (const chart of ['column-city', 'column-age', 'pairs', 'thresholds', 'profile']) {
      expect(html).toContain(`data-chart="${chart}"`);
    }
    expect((html.match(/<svg/g) ?? []).length).toBe(5);
    expect(html).not.toMatch(/https?:|\bsrc=|\bhref=|url\((?!#)|@import|<script|<link/i);
  });
});
