/**
 * A release runs the plan the public rule picks: the T₀ and K the pipeline pins for the ledger
 * are never read as a curator asking for rounds (which once made every release run the adaptive
 * plan). The plan that ran is in the ledger event, the manifest and the report.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaFromOptions } from '../../../src/cli/commands/workload.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { prepare, releaseStraightThrough } from '../../../src/core/release/release.ts';
import { dataSource, parseRunSettings, releaseSpec } from '../../../src/core/release/spec.ts';
import type { Workload } from '../../../src/core/workload/types.ts';
import { makeFixture } from '../../support/cli.ts';

const fx = makeFixture(400);
afterAll(() => fx.cleanup());

/** Every 2-way marginal of the fixture's four columns, equal weights. */
const PAIRS: Workload = {
  thresholds: [
    [0, 1],
    [0, 2],
    [1, 3],
    [2, 3],
  ].map((features) => ({ features, r: 2, weight: 1 })),
};

async function spec(text: Record<string, string>) {
  const { settings, problems } = parseRunSettings({ seed: '1', rows: '50', oversample: '2', ...text });
  if (!settings) throw new Error(problems[0].message);
  const schema = await schemaFromOptions({ domain: path.join(fx.dir, 'domain.json') });
  return releaseSpec(settings, {
    source: dataSource({ path: path.join(fx.dir, 'data.csv'), schema, undeclared: 'as-read' }),
    workload: PAIRS,
    columns: schema.columns.length,
    budgetCap: { epsilon: 1e6 },
  });
}

describe('the plan rule in every release', () => {
  it.each([
    ['direct', '1000'],
    ['mixed', '0.05'],
  ])('the rule picks %s (ε = %s): the engine is told that plan, with T₀ and K pinned', async (plan, epsilon) => {
    const prepared = await prepare(await spec({ epsilon }));
    expect(prepared.plan.table?.strategy).toBe(plan);
    expect(prepared.options.tablePlan).toBe(plan);
    expect(prepared.options.rounds).toBe(prepared.plan.rounds);
    expect(prepared.request.params.tablePlan).toMatchObject({ strategy: plan });
  });

  it('a curator who sets T₀ asks for rounds: the adaptive plan', async () => {
    const prepared = await prepare(await spec({ epsilon: '1000', rounds: '3' }));
    expect(prepared.options.tablePlan).toBe('adaptive');
  });

  it('the released files say which plan ran: ledger event, manifest, report', async () => {
    const ledgerPath = fx.ledgerPath();
    const ledger = Ledger.open(ledgerPath, { anchorFile: null });
    try {
      const out = path.join(fx.dir, 'mixed.csv');
      const r = await releaseStraightThrough(ledger, await spec({ epsilon: '0.05' }), {
        outPath: out,
        reportPath: path.join(fx.dir, 'mixed.report.json'),
      });
      expect(r.report.tableMode?.strategy).toBe('mixed');
      expect(r.report.plan).toMatchObject({ mode: 'table', strategy: 'mixed' });
      const manifest = JSON.parse(readFileSync(path.join(fx.dir, 'mixed.manifest.json'), 'utf8'));
      expect(manifest.plan).toEqual(r.report.plan);
      expect(
        manifest.plan.shares.oneWay + manifest.plan.shares.upfront + manifest.plan.shares.rounds,
      ).toBeCloseTo(1, 12);
      expect(ledger.release(r.release.id)?.params.tablePlan).toMatchObject({ strategy: 'mixed' });
      // The ledger, the manifest and the report name the destination, never a temp file.
      expect(ledger.release(r.release.id)?.outputPath).toBe(out);
      expect(r.report.output.path).toBe(out);
      expect(manifest.output.file).toBe('mixed.csv');
    } finally {
      ledger.close();
    }
  });
});

describe('query mode after discovery', () => {
  it('fits T·K to the discovered query count instead of refusing after the reservation', async () => {
    const { fitQueryRounds } = await import('../../../src/core/release/release.ts');
    const schema = await schemaFromOptions({ domain: path.join(fx.dir, 'domain.json') });
    const w: Workload = { thresholds: [{ features: [0], r: 1, weight: 1 }] };
    const m = schema.columns[0].kind === 'categorical' ? schema.columns[0].categories.length : 0;
    const base = { epsilon: 1, delta: 1e-6, rows: 10, oversample: 1, mode: 'query' as const } as never;
    const fitted = fitQueryRounds({ ...(base as object), rounds: 4, perRound: 8 } as never, schema, w);
    expect(fitted.rounds! * fitted.perRound!).toBeLessThanOrEqual(m);
    expect(fitted.rounds).toBeGreaterThanOrEqual(1);
    const fits = fitQueryRounds({ ...(base as object), rounds: 1, perRound: 1 } as never, schema, w);
    expect(fits).toMatchObject({ rounds: 1, perRound: 1 });
  });
});
