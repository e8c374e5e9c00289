/**
 * A release from a PostgreSQL table in the app (Chromium, web mode; RAP_TEST_POSTGRES, started
 * by .ci/run): the Data step's "Database table or query" shows the table's columns from the
 * catalogue, sets the database dataset's cap, releases (every column discovered privately, counted
 * in the database), and the Export step downloads the released CSV. The typed password is in no
 * page text. Then a query as the source, one column left out and one declared by the curator: the
 * released CSV's header, the declared domain used exactly, and the ledger's entry (the database's
 * keyed identity, as the CLI's --sql; no query text, no password); a query the database refuses
 * is named in the banner. Then a column as the identifier of a person: a per-person cap and
 * release, the identifier not released. Each discovered column's cost is shown before Run (its
 * share of ρ, as the release spends it), at the typed δ (blank: the default its placeholder
 * names; a bad one named beside the field; the ledger records the typed one); a text column holding dates stated a format and a code
 * column marked ICD-10 (as on the Schema step) are released as dates in that format and as codes;
 * a `date` column is shown (from its type) as read as dates with no format to state, and is.
 */
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../src/core/counting/postgres.ts';
import { chromiumAvailable } from './harness.ts';
import { banner, downloadText, textNow, waitForRunStatus } from './ui.ts';
import { useApp } from './use-app.ts';

const PG = process.env.RAP_TEST_POSTGRES;

/** The Data step's database panel, opened, on table `name` of the test server, its columns shown. */
async function describeTable(page: Page, name: string): Promise<void> {
  await page.getByTestId('nav-Data').click();
  const panel = page.getByTestId('db-source');
  if (!(await panel.evaluate((e) => (e as { open?: boolean }).open === true)))
    await panel.locator('summary').click();
  await page.getByTestId('db-url').fill(PG!);
  await page.getByTestId('db-kind-table').check();
  await page.getByTestId('db-table').fill(name);
  await page.getByTestId('db-describe').click();
}

/** Sets the dataset's cap (ε = 5), then runs at `epsilon` for `rows` synthetic rows until it finishes. */
async function capAndRun(page: Page, epsilon: string, rows: string): Promise<void> {
  await page.getByTestId('db-cap-epsilon').fill('5');
  await page.getByTestId('db-set-cap').click();
  await expect(page.getByTestId('db-cap').textContent()).resolves.toContain('5');
  await page.getByTestId('db-epsilon').fill(epsilon);
  await page.getByTestId('db-rows').fill(rows);
  await page.getByTestId('db-run').click();
  expect(await waitForRunStatus(page, ['finished'])).toBe('finished');
}

describe.skipIf(!chromiumAvailable() || !PG)('a PostgreSQL table released from the app', () => {
  const app = useApp({ name: 'database' });
  const table = `rap_e2e_db_${process.pid}_${Date.now()}`;
  const src = () => parsePostgresSource(`${PG}?table=${table}`);

  it('columns, cap, release, export', async () => {
    await withPostgres(src(), async (c) => {
      await c.query(`CREATE TABLE ${table} (ward text, smoker text, age integer)`);
      await c.query(
        `INSERT INTO ${table} SELECT (ARRAY['Oncology','Emergency','Cardiology'])[1 + i % 3], ` +
          `(ARRAY['daily','never'])[1 + i % 2], 20 + i % 50 FROM generate_series(0, 799) AS i`,
      );
    });
    try {
      const { page } = app;
      await page.getByTestId('db-source').locator('summary').click();
      await page.getByTestId('db-url').fill(PG!);
      await page.getByTestId('db-table').fill(table);
      await page.getByTestId('db-password').fill('typed-pw-e2e');
      await page.getByTestId('db-describe').click();
      await expect(page.getByTestId('db-columns').textContent()).resolves.toMatch(
        /ward.*text.*smoker.*age.*integer/s,
      );
      // Before Run: each discovered column's cost, discovery's 20% of ρ split over the three.
      await expect
        .poll(() => page.getByTestId('db-cost-ward').textContent(), { timeout: 30_000 })
        .toContain('(6.7% of ρ)');
      await expect(page.getByTestId('db-merge-ward').textContent()).resolves.toContain('"(other)"');
      await expect(page.getByTestId('db-discovery').textContent()).resolves.toContain('20.0% of ρ');
      // δ blank is the default the placeholder names (1/n², n = 800 rows); a typed δ is the plan's.
      await expect
        .poll(() => page.getByTestId('db-delta').getAttribute('placeholder'), { timeout: 30_000 })
        .toBe('1/n² = 1.56e−6');
      await expect(page.getByTestId('db-discovery').textContent()).resolves.toContain('δ = 1.56e−6');
      await page.getByTestId('db-delta').fill('1e-7');
      await expect.poll(() => textNow(page, 'db-discovery'), { timeout: 30_000 }).toContain('δ = 1.00e−7');
      // A δ that does not parse: named beside the field and beside the columns, no cost shown.
      await page.getByTestId('db-delta').fill('2');
      await expect.poll(() => textNow(page, 'db-field-error-delta'), { timeout: 30_000 }).toMatch(/δ/);
      await expect(page.getByTestId('db-plan-problem').textContent()).resolves.toMatch(/δ/);
      expect(await page.getByTestId('db-cost-ward').count()).toBe(0);
      await page.getByTestId('db-delta').fill('');
      await expect.poll(() => textNow(page, 'db-discovery'), { timeout: 30_000 }).toContain('δ = 1.56e−6');
      // An ε that does not parse: named beside the columns, no cost shown until it is fixed.
      await page.getByTestId('db-epsilon').fill('x');
      await expect.poll(() => textNow(page, 'db-plan-problem'), { timeout: 30_000 }).toMatch(/ε|epsilon/i);
      expect(await page.getByTestId('db-cost-ward').count()).toBe(0);
      // Two of the three columns: one two-way marginal.
      await page.getByTestId('db-col-age').uncheck();
      await expect(page.getByTestId('db-workload').textContent()).resolves.toContain('1 two-way marginal');
      await capAndRun(page, '1', '50');
      expect(await banner(page)).toBeNull();

      // The Results step: the report's figures, and no error (no real rows are needed for them).
      await page.getByTestId('nav-Results').click();
      await page.getByTestId('res-present-rounded').waitFor();
      await page.waitForTimeout(500);
      expect(await banner(page)).toBeNull();

      await page.getByTestId('nav-Export').click();
      const csv = await downloadText(page, 'export-button');
      const lines = csv.trim().split(/\r?\n/);
      expect(lines[0]).toBe('ward,smoker,age');
      expect(lines.length - 1).toBeGreaterThanOrEqual(50);
      // ward is discovered: its released domain is the wards found plus "(other)", which the
      // synthetic rows may hold at this ε (about one run in ten did).
      for (const line of lines.slice(1))
        expect(['Oncology', 'Emergency', 'Cardiology', '(other)']).toContain(line.split(',')[0]);
      expect(await page.content()).not.toContain('typed-pw-e2e');
    } finally {
      await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
    }
  });

  it('a query: one column left out, one declared; the CSV header and the ledger entry', async () => {
    const qtable = `${table}_q`;
    const qsrc = () => parsePostgresSource(`${PG}?table=${qtable}`);
    await withPostgres(qsrc(), async (c) => {
      await c.query(`CREATE TABLE ${qtable} (id integer, ward text, smoker text, age integer)`);
      await c.query(
        `INSERT INTO ${qtable} SELECT i, (ARRAY['Oncology','Emergency','Cardiology'])[1 + i % 3], ` +
          `(ARRAY['daily','never'])[1 + i % 2], 20 + i % 50 FROM generate_series(0, 699) AS i`,
      );
    });
    try {
      const { page } = app;
      await page.getByTestId('nav-Data').click();
      const panel = page.getByTestId('db-source');
      if (!(await panel.evaluate((e) => (e as { open?: boolean }).open === true)))
        await panel.locator('summary').click();
      await page.getByTestId('db-url').fill(PG!);
      await page.getByTestId('db-kind-query').check();
      await page.getByTestId('db-password').fill('typed-pw-e2e-q');
      // A query the database refuses: the banner names the source and the database's reason.
      await page.getByTestId('db-sql').fill(`SELECT nosuch FROM ${qtable}`);
      await page.getByTestId('db-describe').click();
      await expect
        .poll(async () => (await banner(page))?.message ?? '')
        .toContain('the database refused the query');
      expect((await banner(page))?.message).toContain('nosuch');

      await page
        .getByTestId('db-sql')
        .fill(`SELECT id, ward, smoker, age FROM ${qtable} WHERE ward <> 'private-literal-e2e'`);
      await page.getByTestId('db-describe').click();
      await expect(page.getByTestId('db-columns').textContent()).resolves.toMatch(/id.*integer.*ward.*text/s);
      expect(await banner(page)).toBeNull();
      expect(await page.getByTestId('db-location').textContent()).toMatch(/ \(SQL query\)$/);
      // The identifier is left out: never read, out of the workload.
      await expect
        .poll(() => page.getByTestId('db-cost-smoker').textContent(), { timeout: 30_000 })
        .toContain('(5.0% of ρ)');
      await page.getByTestId('db-role-id').selectOption('leave-out');
      await expect(page.getByTestId('db-release-id').textContent()).resolves.toContain('left out');
      // ward declared whole (a category no row holds kept: used exactly, not discovered).
      await page.getByTestId('db-declare-ward').click();
      await page.getByTestId('schema-edit-categories').fill('Cardiology\nEmergency\nOncology\nPaediatrics');
      await page.getByTestId('schema-edit-save').click();
      await expect(page.getByTestId('db-release-ward').textContent()).resolves.toContain('declared');
      // Left out and declared cost nothing: discovery's share now goes to smoker and age.
      await expect
        .poll(() => page.getByTestId('db-cost-smoker').textContent(), { timeout: 30_000 })
        .toContain('(10.0% of ρ)');
      expect(await page.getByTestId('db-cost-ward').count()).toBe(0);
      // ward, smoker, age: three two-way marginals.
      await expect(page.getByTestId('db-workload').textContent()).resolves.toContain('3 two-way marginals');
      // A typed δ: the plan's, and (below) the ledger's.
      await page.getByTestId('db-delta').fill('1e-6');
      await expect.poll(() => textNow(page, 'db-discovery'), { timeout: 30_000 }).toContain('δ = 1.00e−6');
      await capAndRun(page, '1', '60');
      expect(await banner(page)).toBeNull();

      await page.getByTestId('nav-Export').click();
      const csv = await downloadText(page, 'export-button');
      const lines = csv.trim().split(/\r?\n/);
      expect(lines[0]).toBe('ward,smoker,age');
      for (const line of lines.slice(1))
        expect(['Cardiology', 'Emergency', 'Oncology', 'Paediatrics']).toContain(line.split(',')[0]);
      expect(await page.content()).not.toContain('typed-pw-e2e-q');
      // Nor in the page's persisted state (the step and the settings form live in sessionStorage).
      expect(
        await page.evaluate(() =>
          JSON.stringify((globalThis as unknown as { sessionStorage: object }).sessionStorage),
        ),
      ).not.toContain('typed-pw-e2e');

      // The ledger: the query source's dataset (the database's, named as the CLI names it), one
      // committed release over the kept columns; no query text and no password anywhere in it.
      const db = new Database(app.host.ledgerPath, { readonly: true, fileMustExist: true });
      try {
        const ds = db
          .prepare('SELECT fingerprint, rows FROM datasets WHERE name = ?')
          .get('rap (SQL queries)') as { fingerprint: string; rows: number } | undefined;
        expect(ds?.rows).toBe(700);
        const released = db
          .prepare(
            "SELECT workload_json, delta FROM releases WHERE dataset_fingerprint = ? AND status = 'committed'",
          )
          .all(ds?.fingerprint) as { workload_json: string; delta: number }[];
        expect(released).toHaveLength(1);
        expect(released[0].delta).toBe(1e-6);
        const dump = JSON.stringify(
          ['events', 'datasets', 'releases'].map((t) => db.prepare(`SELECT * FROM ${t}`).all()),
        );
        expect(dump).not.toContain('private-literal-e2e');
        expect(dump).not.toContain('typed-pw-e2e');
      } finally {
        db.close();
      }
    } finally {
      await withPostgres(qsrc(), (c) => c.query(`DROP TABLE IF EXISTS ${qtable}`));
    }
  });

  it('a column as the identifier of a person: per-person cap and release, the identifier not released', async () => {
    const ptable = `${table}_p`;
    const psrc = () => parsePostgresSource(`${PG}?table=${ptable}`);
    await withPostgres(psrc(), async (c) => {
      await c.query(`CREATE TABLE ${ptable} (person integer, ward text, smoker text)`);
      await c.query(
        `INSERT INTO ${ptable} SELECT i % 200, (ARRAY['Oncology','Emergency','Cardiology'])[1 + i % 3], ` +
          `(ARRAY['daily','never'])[1 + i % 2] FROM generate_series(0, 599) AS i`,
      );
    });
    try {
      const { page } = app;
      await describeTable(page, ptable);
      await expect(page.getByTestId('db-columns').textContent()).resolves.toMatch(/person.*ward.*smoker/s);
      await page.getByTestId('db-role-person').selectOption('identifier');
      await expect(page.getByTestId('db-release-person').textContent()).resolves.toContain('identifier');
      await expect(page.getByTestId('db-workload').textContent()).resolves.toContain('1 two-way marginal');
      await page.getByTestId('db-rows-per-person').fill('3');
      await capAndRun(page, '1', '40');
      await page.getByTestId('nav-Export').click();
      const csv = await downloadText(page, 'export-button');
      expect(csv.trim().split(/\r?\n/)[0]).toBe('ward,smoker');
    } finally {
      await withPostgres(psrc(), (c) => c.query(`DROP TABLE IF EXISTS ${ptable}`));
    }
  });
  it('a date format and an ICD-10 hierarchy stated on database columns: costs, release, export', async () => {
    const htable = `${table}_h`;
    const hsrc = () => parsePostgresSource(`${PG}?table=${htable}`);
    await withPostgres(hsrc(), async (c) => {
      await c.query(`CREATE TABLE ${htable} (visit text, dx text, ward text)`);
      // Dates written day.month.year (no public candidate format reads them), ICD-10 codes.
      await c.query(
        `INSERT INTO ${htable} SELECT to_char(date '2023-01-01' + (i % 365), 'DD.MM.YYYY'), ` +
          `(ARRAY['C34.10','C34.10','C34.90','I10','I10','J18.9'])[1 + i % 6], ` +
          `(ARRAY['A','B','C'])[1 + i % 3] FROM generate_series(0, 1199) AS i`,
      );
    });
    try {
      const { page } = app;
      await describeTable(page, htable);
      await expect(page.getByTestId('db-columns').textContent()).resolves.toMatch(/visit.*dx.*ward/s);
      // The visits' format, stated (public): read as dates at release.
      await page.getByTestId('db-codes-visit').click();
      await page.getByTestId('schema-edit-temporal-kind').selectOption('date');
      await page.getByTestId('schema-edit-temporal-format').fill('DD.MM.YYYY');
      await page.getByTestId('schema-edit-save').click();
      await expect(page.getByTestId('db-temporal-visit').textContent()).resolves.toContain('date DD.MM.YYYY');
      // dx as ICD-10 codes: three levels, three shares of discovery's five.
      await page.getByTestId('db-codes-dx').click();
      await page.getByTestId('schema-edit-hierarchy').selectOption('icd10');
      await page.getByTestId('schema-edit-save').click();
      await expect(page.getByTestId('db-hierarchy-dx').textContent()).resolves.toContain('codes icd10');
      await expect
        .poll(() => page.getByTestId('db-cost-dx').textContent(), { timeout: 30_000 })
        .toContain('(12.0% of ρ)');
      await expect(page.getByTestId('db-cost-ward').textContent()).resolves.toContain('(4.0% of ρ)');
      // A date column states no "(other)" bar (it is binned on the calendar, not merged).
      expect(await page.getByTestId('db-merge-visit').count()).toBe(0);
      await capAndRun(page, '4', '60');
      expect(await banner(page)).toBeNull();
      await page.getByTestId('nav-Export').click();
      const csv = await downloadText(page, 'export-button');
      const lines = csv.trim().split(/\r?\n/);
      expect(lines[0]).toBe('visit,dx,ward');
      const rows = lines.slice(1).map((l) => l.split(','));
      for (const [visit, dx] of rows) {
        expect(visit).toMatch(/^(\d\d\.\d\d\.\d{4}|\?)$/);
        // A released key of a level: a letter, a three-character category or a full code (level 1's
        // public histogram may release a letter no record holds: noise, as the release states it).
        expect(dx).toMatch(/^([A-Z]|[A-Z]\d\d|[A-Z]\d\d\.\d+|\(other\)|\?)$/);
      }
      // Some row holds a date (the privately discovered range may reach a neighbouring year).
      expect(rows.some(([visit]) => /^\d\d\.\d\d\.\d{4}$/.test(visit))).toBe(true);
      expect(rows.some(([, dx]) => dx === 'C34.10')).toBe(true);
    } finally {
      await withPostgres(hsrc(), (c) => c.query(`DROP TABLE IF EXISTS ${htable}`));
    }
  });

  it('a date column: the panel says it is read as dates (no format to state), released as dates', async () => {
    const dtable = `${table}_d`;
    const dsrc = () => parsePostgresSource(`${PG}?table=${dtable}`);
    await withPostgres(dsrc(), async (c) => {
      await c.query(`CREATE TABLE ${dtable} (seen date, at timestamptz(0), ward text)`);
      await c.query(
        `INSERT INTO ${dtable} SELECT date '2023-01-01' + (i % 365), ` +
          `timestamptz '2023-01-01 08:00+00' + i * interval '1 hour', ` +
          `(ARRAY['A','B','C'])[1 + i % 3] FROM generate_series(0, 999) AS i`,
      );
    });
    try {
      const { page } = app;
      await describeTable(page, dtable);
      await expect(page.getByTestId('db-columns').textContent()).resolves.toMatch(/seen.*date.*at.*ward/s);
      // From the catalogue type (public): a date is read as dates; a timestamptz's offset is not.
      await expect(page.getByTestId('db-reads-seen').textContent()).resolves.toMatch(
        /date.*read as dates \(YYYY-MM-DD\): no format to state/s,
      );
      await expect(page.getByTestId('db-reads-at').textContent()).resolves.toMatch(
        /not a date or time.*not read as datetimes.*AT TIME ZONE 'UTC'/s,
      );
      expect(await page.getByTestId('db-reads-ward').count()).toBe(0);
      // Binned on the calendar at release: no "(other)" bar stated for it.
      await expect.poll(() => page.getByTestId('db-cost-seen').count(), { timeout: 30_000 }).toBe(1);
      expect(await page.getByTestId('db-merge-seen').count()).toBe(0);
      await page.getByTestId('db-col-at').uncheck();
      await capAndRun(page, '4', '40');
      expect(await banner(page)).toBeNull();
      await page.getByTestId('nav-Export').click();
      const csv = await downloadText(page, 'export-button');
      const lines = csv.trim().split(/\r?\n/);
      expect(lines[0]).toBe('seen,at,ward');
      // ISO dates (the discovered range is noisy: it may start in 2022 or end in 2024).
      for (const line of lines.slice(1)) expect(line.split(',')[0]).toMatch(/^\d{4}-\d\d-\d\d$/);
    } finally {
      await withPostgres(dsrc(), (c) => c.query(`DROP TABLE IF EXISTS ${dtable}`));
    }
  });
});
