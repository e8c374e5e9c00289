/**
 * A PostgreSQL table as a release's source, counted in the database after the reservation:
 * discovery from per-column histograms and the engine's exact tables equal the streaming path's
 * over the CSV holding the same rows, under the same seeded noise (RAP_TEST_POSTGRES, started by
 * .ci/run from Debian's package).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresSource, withPostgres } from '../counting/postgres.ts';
import { SCHEMA_VERSION } from '../data/schema.ts';
import { tempDir } from '../data/testing.ts';
import { MAX_DISTINCT_TEXTS } from '../discovery/profile.ts';
import { discoverAndLoad, planRawSource } from '../discovery/raw-source.ts';
import { seededNoise } from '../privacy/noise.ts';
import { contingencyTable } from '../workload/exact.ts';
import { checkDatabaseValues, discoverAndCountDatabase } from './database.ts';

const PG = process.env.RAP_TEST_POSTGRES;

describe("a database source's values, checked for the curator before the reservation", () => {
  const src = parsePostgresSource('postgres://db/hospital?table=visits');
  const many = (text: (i: number) => string) =>
    new Map(Array.from({ length: MAX_DISTINCT_TEXTS + 1 }, (_, i) => [text(i), 1]));
  const n = MAX_DISTINCT_TEXTS + 1;

  it('a column with more distinct texts than discovery counts is refused, naming it', () => {
    const histograms = { n, columns: new Map([['id', many((i) => `p${i}`)]]) };
    expect(() => checkDatabaseValues(src, histograms, [], ['id'], n, 1)).toThrow(
      'postgres://db/hospital?table=visits, column "id": more than 100,000 distinct values, not all numbers',
    );
  });

  it('as many distinct numbers pass when level 1 surely calls them numeric, and are refused when it may not', () => {
    const histograms = { n, columns: new Map([['amount', many((i) => String(i / 7))]]) };
    expect(() => checkDatabaseValues(src, histograms, [], ['amount'], n, 1)).not.toThrow();
    expect(() => checkDatabaseValues(src, histograms, [], ['amount'], n, n)).toThrow('too few of them');
  });

  it('a value a declared column cannot hold is refused with its count; a changed row count too', () => {
    const declared = [{ name: 'sex', kind: 'categorical' as const, categories: ['F', 'M'], missing: false }];
    const histograms = {
      n: 10,
      columns: new Map([
        [
          'sex',
          new Map([
            ['F', 4],
            ['M', 3],
            ['X', 3],
          ]),
        ],
      ]),
    };
    expect(() => checkDatabaseValues(src, histograms, declared, [], 10, 0)).toThrow(
      'column "sex": the value "X" is not among its declared categories. 3 of the 10 rows',
    );
    expect(() => checkDatabaseValues(src, histograms, declared, [], 11, 0)).toThrow(
      'the table had 11 rows and now has 10',
    );
  });
});

const day = (d: number) => new Date(Date.UTC(2019, 5, 1) + d * 86_400_000).toISOString().slice(0, 10);

/** Texts as a curator's table holds them: numbers, dates, locale numbers, missing markers, NULLs. */
function records(n: number): (string | null)[][] {
  const out: (string | null)[][] = [];
  for (let i = 0; i < n; i++) {
    out.push([
      i % 17 === 0 ? '?' : i % 23 === 0 ? 'NA' : String(18 + ((i * 37) % 70)),
      i % 31 === 0 ? null : day((i * 7919) % 700),
      (((i * 7907) % 2_000_000) / 100).toLocaleString('de-DE'),
      i === 0 ? 'Rare' : i % 8 < 4 ? 'Oslo' : i % 8 < 7 ? 'Bergen' : 'Trondheim, N',
      i % 5 === 0 ? 'maybe' : i % 2 === 0 ? 'yes' : 'no',
    ]);
  }
  return out;
}
const HEADER = ['age', 'joined', 'amount', 'city', 'note'];

function csv(rows: (string | null)[][]): string {
  const field = (v: string | null) => (v === null ? '' : /[",]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  return `${[HEADER.join(','), ...rows.map((r) => r.map(field).join(','))].join('\n')}\n`;
}

/** Every one-way, a few 2- and 3-way sets (unsorted on purpose). */
const sets = (k: number) => [
  ...Array.from({ length: k }, (_, i) => [i]),
  [1, 0],
  [2, 3],
  [0, 3, 4],
  [4, 2, 1],
];

describe.skipIf(!PG)('a PostgreSQL table counted in the database = the streaming path over its CSV', () => {
  const dir = tempDir('rap-db-source-');
  const table = `rap_source_${process.pid}_${Date.now()}`;
  const N = 2000;
  const rows = records(N);
  // Parsed lazily: a skipped describe still runs its body.
  const src = () => parsePostgresSource(`${PG}?table=${table}`);

  beforeAll(async () => {
    await withPostgres(src(), async (c) => {
      await c.query(`CREATE TABLE ${table} (${HEADER.map((h) => `${h} text`).join(', ')})`);
      const values = rows.map((_, i) => `(${HEADER.map((__, j) => `$${i * 5 + j + 1}`).join(', ')})`);
      await c.query(`INSERT INTO ${table} VALUES ${values.join(', ')}`, rows.flat());
    });
  });
  afterAll(async () => {
    await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
    dir.remove();
  });

  it('discovery (dates, locale numbers, missing forms, categories) and every exact table, two seeds', async () => {
    const file = dir.file('t.csv', csv(rows));
    const budget = { epsilon: 1, delta: 1e-6, share: 0.2 };
    const filePlan = await planRawSource(file, [], budget, { header: true });
    const dbPlan = await planRawSource(src().location, [], budget, { knownHeader: HEADER });
    for (const seed of [1, 2]) {
      const streamed = await discoverAndLoad(filePlan, N, seededNoise(seed), { header: true });
      const counted = await discoverAndCountDatabase(
        src(),
        dbPlan,
        { version: SCHEMA_VERSION, origin: 'declared', columns: [] },
        N,
        seededNoise(seed),
        (s) => sets(s.columns.length),
      );
      expect(counted.discovery).toEqual(streamed.discovery);
      // Discovery found what the columns hold (not merely nothing, alike).
      expect(counted.data.schema.columns.map((c) => c.kind)).toContain('numeric');
      expect(counted.data.schema).toEqual(streamed.loaded.dataset.schema);
      expect(counted.data.n).toBe(N);
      for (const fs of sets(HEADER.length)) {
        const sorted = [...fs].sort((a, b) => a - b);
        const t = counted.data.tables.get(sorted.join(','));
        expect(t && Array.from(t)).toEqual(Array.from(contingencyTable(streamed.loaded.dataset, sorted)));
      }
    }
  });

  it('a table whose row count changed since the reservation is refused, naming it', async () => {
    const plan = await planRawSource(
      src().location,
      [],
      { epsilon: 1, delta: 1e-6, share: 0.2 },
      {
        knownHeader: HEADER,
      },
    );
    await expect(
      discoverAndCountDatabase(
        src(),
        plan,
        { version: SCHEMA_VERSION, origin: 'declared', columns: [] },
        N + 1,
        seededNoise(1),
        (s) => sets(s.columns.length),
      ),
    ).rejects.toThrow(`${src().location}: the table had ${N + 1} rows and now has ${N}`);
  });
});
