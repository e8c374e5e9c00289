import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../data/testing.ts';
import { seededNoise } from '../privacy/noise.ts';
import { checkRawSource, discoverAndLoad, planRawSource } from './raw-source.ts';

const dir = tempDir('rap-raw-source-');
afterAll(() => dir.remove());

/** 600 records with malformed values: text in a numeric column, a rare category, a ragged row. */
function malformed(): string {
  const lines = ['age,city,hours'];
  for (let i = 0; i < 600; i++) {
    const age = i === 5 ? 'forty' : String(20 + (i % 50));
    const city = i === 7 ? 'Atlantis' : i % 2 ? 'Paris' : 'Oslo';
    lines.push(`${age},${city},${i % 3 ? 40 : 20}`);
  }
  lines.splice(100, 0, '33,Oslo'); // ragged
  return `${lines.join('\n')}\n`;
}

describe('a raw CSV as a release source', () => {
  const file = dir.file('malformed.csv', malformed());

  it('plans from the header alone: declared columns as declared, placeholders for the rest', async () => {
    const declared = [
      { name: 'hours', kind: 'categorical', categories: ['20', '40'], missing: false } as const,
    ];
    const plan = await planRawSource(file, declared, { epsilon: 1, delta: 1e-6, share: 0.2 });
    expect(plan.header).toEqual(['age', 'city', 'hours']);
    expect(plan.undeclared).toEqual(['age', 'city']);
    expect(plan.provisional.columns[2]).toEqual(declared[0]);
    expect(plan.budget.rhoDiscovery / plan.budget.rho).toBeCloseTo(0.2, 12);
  });

  it("keeps every record: the engine's n is the record count on a file with malformed values", async () => {
    const plan = await planRawSource(file, [], { epsilon: 50, delta: 1e-6, share: 0.5 });
    const { records: n } = await checkRawSource(plan);
    expect(n).toBe(601);
    const { loaded, discovery } = await discoverAndLoad(plan, n, seededNoise('malformed'));
    expect(loaded.dataset.n).toBe(601);
    expect(discovery.records).toBe(601);
    expect(discovery.columns.every((c) => c.provenance.source === 'discovered')).toBe(true);
  });

  it('a declared column is used exactly: a misfit is found before the reservation; no "(other)" is added', async () => {
    const city = {
      name: 'city',
      kind: 'categorical',
      categories: ['Oslo', 'Paris'],
      missing: false,
    } as const;
    const refused = await checkRawSource(
      await planRawSource(file, [city], { epsilon: 50, delta: 1e-6, share: 0.5 }),
    );
    expect(refused).toMatchObject({ records: 601, misfits: 2 }); // Atlantis, and the ragged row
    expect(refused.first).toMatchObject({ line: 9, value: 'Atlantis', problem: 'category', ragged: false });
    const fits = { ...city, categories: ['Atlantis', 'Oslo', 'Paris'], missing: true };
    const plan = await planRawSource(file, [fits], { epsilon: 50, delta: 1e-6, share: 0.5 });
    expect((await checkRawSource(plan)).first).toBeNull();
    const { loaded } = await discoverAndLoad(plan, 601, seededNoise('declared'));
    const schema = loaded.dataset.schema;
    expect(schema.columns.find((c) => c.name === 'city')).toMatchObject({
      categories: ['Atlantis', 'Oslo', 'Paris'],
      provenance: { source: 'declared' },
    });
    expect(loaded.dataset.n).toBe(601);
  });

  it('an unclosed quote fails the readability check (before any reservation), naming the line', async () => {
    const bad = dir.file('quote.csv', 'a,b\n1,2\n3,"x\n4,5\n');
    const plan = await planRawSource(bad, [], { epsilon: 1, delta: 1e-6, share: 0.2 }).catch((e) => e);
    const err = plan instanceof Error ? plan : await checkRawSource(plan).catch((e) => e);
    expect(String(err)).toContain('line 3: a quote (") opened on this line is never closed');
  });
});
