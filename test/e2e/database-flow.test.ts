/**
 * A release from a PostgreSQL table in the app (Chromium, web mode; RAP_TEST_POSTGRES, started
 * by .ci/run): the Data step's "Database table" shows the table's columns from the catalogue,
 * sets the database dataset's cap, releases (every column discovered privately, counted in the
 * database), and the Export step downloads the released CSV. The typed password is in no page text.
 */
import { describe, expect, it } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../src/core/counting/postgres.ts';
import { chromiumAvailable } from './harness.ts';
import { banner, downloadText, waitForRunStatus } from './ui.ts';
import { useApp } from './use-app.ts';

const PG = process.env.RAP_TEST_POSTGRES;

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
      // Two of the three columns: one two-way marginal.
      await page.getByTestId('db-col-age').uncheck();
      await expect(page.getByTestId('db-workload').textContent()).resolves.toContain('1 two-way marginal');
      await page.getByTestId('db-cap-epsilon').fill('5');
      await page.getByTestId('db-set-cap').click();
      await expect(page.getByTestId('db-cap').textContent()).resolves.toContain('5');
      await page.getByTestId('db-epsilon').fill('1');
      await page.getByTestId('db-rows').fill('50');
      await page.getByTestId('db-run').click();
      expect(await waitForRunStatus(page, ['finished'])).toBe('finished');
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
      for (const line of lines.slice(1))
        expect(['Oncology', 'Emergency', 'Cardiology']).toContain(line.split(',')[0]);
      expect(await page.content()).not.toContain('typed-pw-e2e');
    } finally {
      await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
    }
  });
});
