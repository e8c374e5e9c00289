/**
 * One snapshot for a whole release from PostgreSQL (counting/postgres-snapshot.ts): rows another
 * connection writes between the checks, the reservation and the counting change neither n nor the
 * tables, and the release succeeds (staged, and as the audit saw it, though faster: a CLI release
 * while a row is inserted every few milliseconds, which fails without the one snapshot); the
 * snapshot's connection is closed on every way out (a refusal before the reservation, a budget the
 * ledger refuses, a cancel, the end of the counting). Against a real
 * server only (RAP_TEST_POSTGRES).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SynthFlags, synthSpec } from '../../../src/cli/commands/synth.ts';
import { parsePostgresSource, tableRows, withPostgres } from '../../../src/core/counting/postgres.ts';
import { liveSnapshots } from '../../../src/core/counting/postgres-snapshot.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import {
  disposeValidated,
  prepare,
  releaseStraightThrough,
  reserve,
  run,
  validate,
} from '../../../src/core/release/release.ts';
import { CLI_TIMEOUT, withLedger } from '../../support/cli.ts';
import { runCliInProcess } from '../../support/cli-in-process.ts';
import { PEOPLE_WORKLOAD, synth } from '../../support/people.ts';
import { N, useTestTable } from '../../support/postgres-release.ts';

const PG = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!PG)(
  'one snapshot for a release from PostgreSQL (RAP_TEST_POSTGRES)',
  { timeout: CLI_TIMEOUT },
  () => {
    const table = `rap_snapshot_${process.pid}_${Date.now()}`;
    const url = () => `${PG}?table=${table}`;
    const source = () => parsePostgresSource(url());
    useTestTable(() => PG!, table);
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'rap-pg-snapshot-'));
      writeFileSync(path.join(dir, 'w.json'), JSON.stringify(PEOPLE_WORKLOAD));
      const schema = (columns: unknown[]) => JSON.stringify({ version: 1, origin: 'declared', columns });
      const smoker = { name: 'smoker', kind: 'categorical', categories: ['daily', 'never'] };
      writeFileSync(
        path.join(dir, 'misfit.json'),
        schema([{ name: 'city', kind: 'categorical', categories: ['Oslo', 'Lima'] }, smoker]),
      );
      writeFileSync(
        path.join(dir, 'lacks.json'),
        schema([{ name: 'zip', kind: 'categorical', categories: ['1', '2'] }, smoker]),
      );
      writeFileSync(
        path.join(dir, 'w-declared.json'),
        JSON.stringify({ thresholds: [{ features: ['smoker'], r: 1, weight: 1 }] }),
      );
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** Another connection adds `k` rows (committed at once). */
    const insert = (k = 1) =>
      withPostgres(source(), async (c) => {
        for (let i = 0; i < k; i++) await c.query(`INSERT INTO ${table} VALUES (40, 'Oslo', 1000, 'never')`);
      });
    const count = () => withPostgres(source(), (c) => tableRows(c, source()));
    const spec = (tag: string, extra: Partial<SynthFlags> = {}) =>
      synthSpec({
        data: url(),
        workload: path.join(dir, 'w.json'),
        out: path.join(dir, `${tag}.csv`),
        epsilon: '2',
        rows: '30',
        oversample: '2',
        maxSteps: '20',
        threads: '1',
        seed: '5',
        insecureSeed: true,
        budgetEpsilon: '10',
        budgetDelta: '1e-5',
        confirmCap: true,
        ...extra,
      } as unknown as SynthFlags);

    it('rows inserted between the checks, the reservation and the counting change neither n nor the tables', async () => {
      const before = await count();
      expect(before).toBe(N);
      const ledger = Ledger.open(path.join(dir, 'staged.sqlite'), { anchorFile: null });
      try {
        const prepared = await prepare(await spec('staged'), () => {}, { ledgerKey: ledger.sourceKey() });
        expect(prepared.facts.rows).toBe(before);
        expect(liveSnapshots()).toBe(1);
        await insert();
        const validated = await validate(prepared);
        await insert();
        const reserved = await reserve(ledger, validated);
        await insert();
        const finished = await run(ledger, reserved);
        // The table has three more rows now; the release read the snapshot of before the checks.
        expect(await count()).toBe(before + 3);
        expect(finished.loaded.dataset.n).toBe(before);
        const data = finished.loaded.dataset;
        if (!('tables' in data)) throw new Error('expected counted tables');
        for (const [key, t] of data.tables)
          expect(
            t.reduce((a, b) => a + b, 0),
            key,
          ).toBe(before);
        expect(ledger.releases()[0].status).toBe('reserved');
        // The counting is done: the snapshot's connection is closed.
        expect(liveSnapshots()).toBe(0);
      } finally {
        ledger.close();
      }
    });

    it('a CLI release while another connection inserts a row every few ms succeeds, n fixed by one snapshot', async () => {
      let inserting = true;
      let inserted = 0;
      const loop = (async () => {
        while (inserting) {
          await insert();
          inserted++;
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const before = await count();
      let r: Awaited<ReturnType<typeof runCliInProcess>>;
      try {
        r = await runCliInProcess(dir, synth(url(), path.join(dir, 'busy.sqlite'), 'busy.csv'));
      } finally {
        inserting = false;
        await loop;
      }
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      expect(inserted).toBeGreaterThan(0);
      const after = await count();
      const manifest = JSON.parse(readFileSync(path.join(dir, 'busy.manifest.json'), 'utf8'));
      const rows = manifest.dataset.rows as number;
      expect(rows).toBeGreaterThanOrEqual(before);
      expect(rows).toBeLessThan(after);
      withLedger(path.join(dir, 'busy.sqlite'), (l) => {
        expect(l.releases()[0].status).toBe('committed');
        expect(l.dataset(l.releases()[0].datasetFingerprint)?.rows).toBe(rows);
      });
      expect(liveSnapshots()).toBe(0);
    });

    it('the snapshot is closed on every way out: a refusal in prepare or validate, a budget refused, a cancel', async () => {
      const ledger = Ledger.open(path.join(dir, 'ways.sqlite'), { anchorFile: null });
      try {
        const key = { ledgerKey: ledger.sourceKey() };
        const declared = (file: string) =>
          spec(file, { schema: path.join(dir, `${file}.json`), workload: path.join(dir, 'w-declared.json') });
        // prepare: a declared column the table lacks.
        await expect(prepare(await declared('lacks'), () => {}, key)).rejects.toThrow(
          /"zip" is not in the table/,
        );
        expect(liveSnapshots()).toBe(0);
        // validate: a value the declared column cannot hold.
        const misfit = await prepare(await declared('misfit'), () => {}, key);
        expect(liveSnapshots()).toBe(1);
        await expect(validate(misfit)).rejects.toThrow(/"Pune" is not among its declared categories/);
        expect(liveSnapshots()).toBe(0);
        // The ledger refuses the budget (ε = 2 asked of a cap of 1).
        const over = await spec('over', { budgetEpsilon: '1' });
        await expect(
          releaseStraightThrough(ledger, over, {
            outPath: over.outPath,
            reportPath: path.join(dir, 'over.json'),
          }),
        ).rejects.toThrow(/budget|cap/i);
        expect(liveSnapshots()).toBe(0);
      } finally {
        ledger.close();
      }
      // A cancel after the reservation (a ledger of its own: the first holds a cap of ε = 1 now).
      const other = Ledger.open(path.join(dir, 'cancel.sqlite'), { anchorFile: null });
      try {
        const key = { ledgerKey: other.sourceKey() };
        const validated = await validate(await prepare(await spec('cancel'), () => {}, key));
        const reserved = await reserve(other, validated);
        const controller = new AbortController();
        controller.abort();
        await expect(run(other, reserved, { signal: controller.signal })).rejects.toThrow(/cancel/i);
        expect(liveSnapshots()).toBe(0);
        expect(other.releases()[0].status).toBe('aborted');
        await disposeValidated(validated);
      } finally {
        other.close();
      }
    });
  },
);
