/**
 * A counted input (exact tables, no rows) crosses the process boundary: the Map of Float64Arrays
 * survives Node's advanced serialization, the child checks it, and the real engine in its own
 * process gives the same seeded result from the tables as from the rows.
 */
import { describe, expect, it } from 'vitest';
import { randomDataset } from '../../workload/test-data.ts';
import { defaultOptions } from '../defaults.ts';
import { requiredFeatureSets } from '../required-tables.ts';
import { bruteCounted } from '../testing.ts';
import { startEngine } from './client.ts';
import type { EngineRequest } from './protocol.ts';

const data = randomDataset([3, 2, 4], 120, 2);
const workload = {
  thresholds: [
    { features: [2, 0], r: 1, weight: 1 },
    { features: [1, 2], r: 2, weight: 1 },
  ],
};
const request = (d: EngineRequest['data']): EngineRequest => ({
  data: d,
  workload,
  options: defaultOptions({ epsilon: 2, delta: 1e-6, mode: 'table', rows: 12, maxSteps: 20 }),
  noise: { mode: 'insecure-seed', seed: 9 },
});

describe('the engine process with a counted input', () => {
  it('gives the same seeded result from the tables as from the rows (real engine child)', async () => {
    const counted = bruteCounted(data, requiredFeatureSets({ schema: data.schema, workload }));
    const [fromRows, fromTables] = await Promise.all([
      startEngine(request(data)).result,
      startEngine(request(counted)).result,
    ]);
    expect(fromTables.synthetic.codes).toEqual(fromRows.synthetic.codes);
    expect(fromTables.report.presentError).toBe(fromRows.report.presentError);
    expect(fromTables.report.roundedPresentError).toBe(fromRows.report.roundedPresentError);
  }, 120_000);

  it('refuses a counted input missing a required table before the run, naming the features', async () => {
    const counted = bruteCounted(data, [[0], [1], [2], [0, 2]]);
    await expect(startEngine(request(counted)).result).rejects.toThrow(/features \[1, 2\]/);
  }, 120_000);
});
