/** The `future` suite: its grid, its drifted future workloads and its sections on a tiny run. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedList } from '../../../bench/lib/cases.ts';
import { sampleBayesNet } from '../../../bench/lib/loans-generator.ts';
import { runCase } from '../../../bench/lib/run-case.ts';
import { buildFutureWorkloads } from '../../../bench/lib/workload.ts';
import { future } from '../../../bench/suites/future.ts';
import { schemaFromDomain } from '../../../src/core/data/benchmark.ts';
import { domainSizes } from '../../../src/core/data/schema.ts';
import { fakeCase } from './fixtures.ts';

const schema = schemaFromDomain({ a: 3, b: 4, c: 5, d: 3, e: 40, f: 2 });
const data = sampleBayesNet(schema, { rows: 300, seed: 5 });

describe('future suite', () => {
  it('covers sizes, distributions, AS, softmax, history weights and LOANS, 3 seeds', () => {
    const cases = future.cases(seedList(3));
    expect(new Set(cases.map((c) => c.group)).size).toBe(9 + 3 + 3 + 3 + 2);
    expect(cases.every((c) => c.mode === 'query' && c.future?.drifts.length === 5)).toBe(true);
    expect(cases.filter((c) => c.selection === 'iterative')).toHaveLength(9);
    expect(cases.filter((c) => c.relaxation === 'softmax')).toHaveLength(9);
    expect(new Set(cases.map((c) => c.workload.dist))).toEqual(new Set(['uniform', 'zipf', 'geometric']));
  });

  it('draws future workloads only over the drawable features, γ by γ', () => {
    const spec = { k: 2, r: 2, size: 3, maxDomain: 5, dist: 'geometric' as const };
    const list = buildFutureWorkloads(spec, { drifts: [0, 1], perDrift: 2, size: 4 }, schema, 0);
    expect(list.map((x) => x.drift)).toEqual([0, 0, 1, 1]);
    const sizes = domainSizes(schema);
    for (const { workload } of list) {
      expect(workload.thresholds).toHaveLength(4);
      for (const t of workload.thresholds)
        for (const f of t.features) expect(sizes[f]).toBeLessThanOrEqual(5);
    }
    expect(list[0].workload).not.toEqual(list[1].workload);
  });

  it('a partial-knowledge case reports one future table per workload, and the suite’s sections', async () => {
    const c = fakeCase({
      workload: { k: 2, r: 2, size: 3, dist: 'zipf' },
      epsilon: 1,
      rows: 40,
      rounds: 2,
      perRound: 2,
      future: { drifts: [0, 0.25, 0.5, 0.75, 1], perDrift: 1, size: 2 },
    });
    const r = await runCase(c, data, {
      log: () => {},
      workDir: mkdtempSync(path.join(tmpdir(), 'rap-future-')),
    });
    expect(r.report.errorTables?.future).toHaveLength(5);
    const text = future.sections!([r]).join('\n');
    expect(text).toContain('future γ=1 relaxed / released');
    expect(text).toContain('Future error grows with drift');
  });
});
