/**
 * The ledger timeline for an oversight body: one CSV row per release with the cap, spreadsheet
 * formulas defused, and a printable page that references nothing outside itself.
 */
import { describe, expect, it } from 'vitest';
import { renderTimeline, type Timeline, timelineCsv } from './timeline.ts';

const T: Timeline = {
  dataset: '=HYPERLINK("x")',
  rows: 32561,
  cap: { epsilon: 3, delta: 1e-9 },
  spentEpsilon: 1.4,
  remainingEpsilon: 1.9,
  generatedAt: '2026-11-25T18:00:00.000Z',
  releases: [
    {
      id: 'a1',
      createdAt: '2026-11-25T17:00:00.000Z',
      status: 'committed',
      epsilon: 1,
      delta: 1e-9,
      rho: 0.015,
      unit: 'record',
      plan: 'table · mixed',
      outputSha256: 'ab'.repeat(32),
      abortReason: null,
      cumulativeEpsilon: 1,
    },
    {
      id: 'b2',
      createdAt: '2026-11-25T17:30:00.000Z',
      status: 'aborted',
      epsilon: 0.5,
      delta: 1e-9,
      rho: 0.004,
      unit: 'record',
      plan: 'table · adaptive',
      outputSha256: null,
      abortReason: 'cancelled, by the curator',
      cumulativeEpsilon: 1.4,
    },
  ],
};

describe('the ledger timeline', () => {
  it('CSV: a row per release with the cap; formulas defused, commas quoted', () => {
    const lines = timelineCsv(T).trim().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[0].split(',')).toContain('cumulative_epsilon');
    expect(
      lines[1].startsWith(`"'=HYPERLINK(""x"")",2026-11-25T17:00:00.000Z,a1,committed,1,1e-9,0.015,record`),
    ).toBe(true);
    expect(lines[2]).toContain('"cancelled, by the curator"');
    expect(lines[1]).toContain(',3,1e-9,');
  });

  it('the printable page: cap, remaining explained, every release, nothing fetched', () => {
    const html = renderTimeline(T);
    expect(html).toContain('two releases at ε = 1 cost less than one at ε = 2');
    expect((html.match(/<tr data-status=/g) ?? []).length).toBe(2);
    expect(html).toContain('<svg');
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/https?:|\bsrc=|\bhref=|url\((?!#)|@import|<script|<link/i);
  });
});
