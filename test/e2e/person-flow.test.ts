/**
 * The person as the unit of privacy in the app (issue 27), in Chromium on web mode: a table where
 * one person has several rows; the Data step shows how often the identifier's values repeat (the
 * curator's screen only) and asks "Can one person appear in more than one row?"; the curator
 * answers Yes with the identifier column, sets the cap (per person), runs and exports. The
 * released CSV has no identifier column and not the value only one person holds; the manifest,
 * the ledger event and the Run, Export and Ledger screens state the unit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from './harness.ts';
import { downloadText, openFile, prepareRun, shot, startRun } from './ui.ts';
import { useApp } from './use-app.ts';

const UNIQUE = 'only-one-person';

/** 200 people with one to four visits each, and one person with 300 visits and a value of their own. */
function writeVisits(dir: string): void {
  const lines = ['pid,ward,dx'];
  for (let p = 0; p < 200; p++)
    for (let j = 0; j <= p % 4; j++)
      lines.push(`P${p},${['A', 'B', 'C'][(p + j) % 3]},${['flu', 'cold'][(p * 3 + j) % 2]}`);
  for (let j = 0; j < 300; j++) lines.push(`HEAVY,${['A', 'B', 'C'][j % 3]},${UNIQUE}`);
  writeFileSync(join(dir, 'visits.csv'), `${lines.join('\n')}\n`);
}

describe.skipIf(!chromiumAvailable())('one person, many rows, in the app', () => {
  const app = useApp({ name: 'person', prepare: writeVisits });

  it('asks about the unit, hints at the repeating identifier, releases per person without it', async () => {
    const { page, host } = app;
    await openFile(page, join(app.dir, 'visits.csv'));
    // The hint (curator only) names the column whose values repeat, before any answer.
    await expect
      .poll(() => page.getByTestId('data-unit-hint').textContent(), { timeout: 30_000 })
      .toContain('column pid has 201 distinct values over 800 rows; one value fills up to 300 rows');
    expect(await page.getByTestId('data-unit-no').isChecked()).toBe(true);
    await page.getByTestId('data-unit-yes').check();
    expect(await page.getByTestId('data-unit-column').inputValue()).toBe('pid');
    await expect(page.getByTestId('data-unit-statement').textContent()).resolves.toContain(
      'The release protects a person identified by column pid, with at most k rows each (k chosen privately)',
    );
    await shot(page, 'person-1-data');

    await prepareRun(page, {
      features: ['ward', 'dx'],
      k: 2,
      r: 2,
      epsilon: '1',
      rows: '50',
      rounds: '',
      cap: '5',
    });
    await startRun(page, ['finished']);
    await expect(page.getByTestId('run-unit').textContent()).resolves.toMatch(
      /Unit of privacy: person, identified by column pid, at most \d+ rows each \(k chosen privately\)/,
    );
    await shot(page, 'person-2-run');

    await page.getByTestId('nav-Export').click();
    await expect(page.getByTestId('export-unit').textContent()).resolves.toContain('one person');
    const csv = await downloadText(page, 'export-button');
    expect(csv.split(/\r?\n/, 1)[0]).toBe('ward,dx');
    expect(csv).not.toContain(UNIQUE);
    expect(csv).not.toContain('HEAVY');
    const manifest = JSON.parse(await downloadText(page, 'export-manifest-download'));
    expect(manifest.unit).toMatchObject({ kind: 'person', column: 'pid', identifierReleased: false });
    expect(manifest.dataset.rows).toBeNull();

    const db = new Database(host.ledgerPath, { readonly: true, fileMustExist: true });
    try {
      const r = db.prepare('SELECT status, params FROM releases ORDER BY rowid DESC LIMIT 1').get() as {
        status: string;
        params: string;
      };
      expect(r.status).toBe('committed');
      expect(JSON.parse(r.params).unit).toMatchObject({ kind: 'person', column: 'pid' });
      const cap = db
        .prepare("SELECT payload FROM events WHERE kind = 'cap-set' ORDER BY id DESC LIMIT 1")
        .get() as { payload: string };
      expect(JSON.parse(cap.payload).unit).toBe('pid');
    } finally {
      db.close();
    }
    await page.getByTestId('nav-Ledger').click();
    await expect
      .poll(() => page.locator('[data-testid^="ledger-unit-"]').first().textContent())
      .toBe('person (column pid)');
    await shot(page, 'person-3-ledger');
  });
});
