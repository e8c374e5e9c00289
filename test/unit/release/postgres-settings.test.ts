/**
 * The server's settings do not change what a release from PostgreSQL counts or writes: a role
 * whose DateStyle, TimeZone, IntervalStyle and extra_float_digits are set otherwise (`ALTER ROLE …
 * SET`, as a DBA may) reads the same texts and releases the same seeded CSV as the default role,
 * because every connection pins them (counting/postgres.ts connect: PINNED_SETTINGS, and DateStyle
 * ISO). Against a real server only (RAP_TEST_POSTGRES; the role is made by its superuser,
 * `postgres`, trusted on loopback in the test cluster).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnHistograms, parsePostgresSource, withPostgres } from '../../../src/core/counting/postgres.ts';
import { CLI_TIMEOUT } from '../../support/cli.ts';
import { runCliInProcess } from '../../support/cli-in-process.ts';
import { synth } from '../../support/people.ts';

const PG = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!PG)(
  'server settings and a PostgreSQL release (RAP_TEST_POSTGRES)',
  { timeout: CLI_TIMEOUT },
  () => {
    const tag = `${process.pid}_${Date.now()}`;
    const table = `rap_settings_${tag}`;
    const role = `rap_odd_${tag}`;
    let dir: string;
    /** The test database as its superuser, and as the role whose settings are odd. */
    const as = (user: string) => PG!.replace(/\/\/[^@/]*@/, `//${user}@`);

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'rap-pg-settings-'));
      writeFileSync(
        path.join(dir, 'w.json'),
        JSON.stringify({
          thresholds: [
            { features: ['day', 'city'], r: 2, weight: 1 },
            { features: ['at', 'score'], r: 2, weight: 1 },
          ],
        }),
      );
      const admin = parsePostgresSource(`${as('postgres')}?table=${table}`);
      await withPostgres(admin, async (c) => {
        await c.query(`CREATE TABLE ${table} (day date, at timestamptz, score double precision, city text)`);
        for (let i = 0; i < 120; i++) {
          await c.query(
            `INSERT INTO ${table} VALUES (DATE '2024-01-01' + $1::int, TIMESTAMPTZ '2024-03-01 23:30:00+00' + $2::int * INTERVAL '1 hour', $3, $4)`,
            [i % 5, i % 4, [0.30000000000000004, 1.5, 2.25][i % 3], ['Oslo', 'Lima'][i % 2]],
          );
        }
        await c.query(`ALTER TABLE ${table} OWNER TO ${new URL(PG!).username || 'rap'}`);
        await c.query(`CREATE ROLE ${role} LOGIN`);
        await c.query(`GRANT SELECT ON ${table} TO ${role}`);
        await c.query(`ALTER ROLE ${role} SET DateStyle = 'SQL, DMY'`);
        await c.query(`ALTER ROLE ${role} SET TimeZone = 'Pacific/Chatham'`);
        await c.query(`ALTER ROLE ${role} SET IntervalStyle = 'sql_standard'`);
        await c.query(`ALTER ROLE ${role} SET extra_float_digits = 0`);
      });
    });
    afterAll(async () => {
      const admin = parsePostgresSource(`${as('postgres')}?table=${table}`);
      await withPostgres(admin, async (c) => {
        await c.query(`DROP TABLE IF EXISTS ${table}`);
        await c.query(`DROP ROLE IF EXISTS ${role}`);
      });
      rmSync(dir, { recursive: true, force: true });
    });

    it("the odd role's own settings are in force on a plain connection (the test means something)", async () => {
      const { default: pg } = await import('pg');
      const url = new URL(as(role));
      const client = new pg.Client({
        host: url.hostname,
        port: Number(url.port),
        user: role,
        database: 'rap',
      });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT day::text, at::text, score::text FROM ${table} LIMIT 1`);
        expect(rows[0]).toEqual({ day: '01/01/2024', at: '02/03/2024 13:15:00 +1345', score: '0.3' });
      } finally {
        await client.end();
      }
    });

    it('the texts counted are ISO dates, UTC timestamps and exact floats whatever the role sets', async () => {
      for (const user of ['rap', role]) {
        const src = parsePostgresSource(`${as(user)}?table=${table}`);
        const h = await withPostgres(src, (c) => columnHistograms(c, src, ['day', 'at', 'score']));
        expect([...h.columns.get('day')!.keys()].sort(), user).toEqual([
          '2024-01-01',
          '2024-01-02',
          '2024-01-03',
          '2024-01-04',
          '2024-01-05',
        ]);
        expect([...h.columns.get('at')!.keys()].sort()[0], user).toBe('2024-03-01 23:30:00+00');
        expect([...h.columns.get('score')!.keys()].sort(), user).toEqual([
          '0.30000000000000004',
          '1.5',
          '2.25',
        ]);
      }
    });

    it('the same seeded CSV from the default role and from the odd role (and with PGOPTIONS set otherwise)', async () => {
      const release = async (user: string, name: string) => {
        const r = await runCliInProcess(
          dir,
          synth(`${as(user)}?table=${table}`, path.join(dir, `${name}.sqlite`), `${name}.csv`),
        );
        expect(r.stderr).not.toContain('rap-studio:');
        expect(r.code).toBe(0);
        return readFileSync(path.join(dir, `${name}.csv`), 'utf8');
      };
      const plain = await release('rap', 'plain');
      expect(await release(role, 'odd')).toBe(plain);
      process.env.PGOPTIONS = '-c DateStyle=German -c TimeZone=Asia/Kolkata -c extra_float_digits=-3';
      try {
        expect(await release('rap', 'pgoptions')).toBe(plain);
      } finally {
        delete process.env.PGOPTIONS;
      }
    });
  },
);
