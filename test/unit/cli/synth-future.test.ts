/**
 * `rap-studio synth` with an evaluation workload, adaptive selection and the softmax relaxation:
 * the report holds present and future error per threshold for the relaxed and the released data
 * with the All-0 and GM baselines, and says which selection and relaxation ran.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, cappedFixture, runCli, synthArgs, withLedger } from '../../support/cli.ts';

const { fx, ledger } = cappedFixture();
beforeAll(() => {
  writeFileSync(
    path.join(fx.dir, 'future.json'),
    JSON.stringify({
      thresholds: [
        { features: ['c', 'd'], r: 2 },
        { features: ['a', 'b'], r: 2 },
      ],
    }),
  );
});

interface Row {
  relaxed: number;
  released: number;
  all0: number;
  gm: number;
}

describe('synth --eval-workload --selection --relaxation', { timeout: CLI_TIMEOUT }, () => {
  it('reports future beside present error per threshold, with both baselines', async () => {
    const args = synthArgs(ledger, [
      '--report',
      'future-report.json',
      '--mode',
      'query',
      '--selection',
      'adaptive',
      '--relaxation',
      'softmax',
      '--importance',
      'history',
      '--eval-workload',
      'future.json',
      '--seed',
      '3',
      '--insecure-seed',
    ]);
    const r = await runCli(args, fx.dir);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(path.join(fx.dir, 'future-report.json'), 'utf8'));
    expect(report.selection).toBe('iterative');
    expect(report.relaxation).toBe('softmax');
    const { present, future } = report.errorTables as {
      present: { max: Row; perThreshold: Row[] };
      future: { max: Row; perThreshold: Row[] }[];
    };
    expect(present.perThreshold).toHaveLength(3);
    expect(future).toHaveLength(1);
    expect(future[0].perThreshold).toHaveLength(2);
    for (const row of [present.max, future[0].max, ...present.perThreshold, ...future[0].perThreshold]) {
      for (const v of [row.relaxed, row.released, row.all0, row.gm]) {
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }
      expect(row.all0).toBeGreaterThan(0);
      expect(row.gm).toBeGreaterThan(0);
    }
    expect(report.futureError).toBe(future[0].max.relaxed);
    expect(report.roundedFutureError).toBe(future[0].max.released);
    // The shared threshold a, b (2 of 2) has the same relaxed and released error in both tables.
    expect(future[0].perThreshold[1].released).toBe(present.perThreshold[0].released);
    withLedger(ledger, (l) => {
      const params = l.release(report.releaseId)?.params as Record<string, unknown>;
      expect(params).toMatchObject({ selection: 'iterative', relaxation: 'softmax' });
      expect(params.evalWorkloadHash).toMatch(/^[0-9a-f]{64}$/);
    });
    // History weights (the workload as its own history): a, b, d appear in 2 thresholds, c in 1,
    // so a,b and a,d score (3 + 3)/2 = 3 and b,c,d (3 + 2 + 3)/3 = 8/3: weights 1, 8/9, 1.
    const weights = (
      JSON.parse(withLedger(ledger, (l) => l.release(report.releaseId)?.workload.json ?? '{}') as string)
        .thresholds as { weight?: number }[]
    ).map((t) => t.weight ?? 1);
    expect(weights[0]).toBe(1);
    expect(weights[1]).toBeCloseTo(8 / 9, 12);
    expect(weights[2]).toBe(1);
  });
});
