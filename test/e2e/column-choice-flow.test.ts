/**
 * Column choice in the app (issue 28, item 1), in Chromium on web mode: a hospital-visits-shaped
 * file whose identifier and a free-text code have more distinct values than the screens' category
 * limit. Opening it refuses nothing: the Schema step shows each such column with a notice and a
 * one-click choice; the curator marks patient_id the identifier, leaves visit_code out (one
 * click each) and leaves age out with the column's role, marks diagnosis as an ICD-10 code in the
 * column editor (issue 28, hierarchical codes, here at the person level), then releases. The
 * released CSV and the manifest hold none of the three left out; diagnosis comes out at its
 * released levels (letters and 3-character categories) and the ledger names its hierarchy.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MISSING_MARKERS } from '../../src/core/data/values.ts';
import { chromiumAvailable } from './harness.ts';
import { downloadText, openFile, prepareRun, shot, startRun, textNow } from './ui.ts';
import { useApp } from './use-app.ts';

/** A hospital-visits-shaped file: 1,200 patients (some with two visits), a distinct visit code per row. */
function writeVisits(dir: string): void {
  const lines = ['patient_id,visit_code,ward,diagnosis,age'];
  for (let i = 0; i < 1500; i++) {
    lines.push(
      `P${(i % 1200) * 7 + 100000},V${i * 13 + 5000},${['Oncology', 'Emergency', 'Cardiology'][i % 3]},` +
        `${['I10', 'C34', 'J45', 'E11'][(i * 7) % 4]},${20 + ((i * 11) % 60)}`,
    );
  }
  writeFileSync(join(dir, 'visits.csv'), `${lines.join('\n')}\n`);
}

describe.skipIf(!chromiumAvailable())('column choice in the app', () => {
  const app = useApp({ name: 'columns', prepare: writeVisits });

  it('opens a file with high-cardinality columns; identifier / leave out in one click; releases without them', async () => {
    const { page } = app;
    await openFile(page, join(app.dir, 'visits.csv'));
    expect(await page.getByTestId('error-banner').count()).toBe(0);
    await expect(page.getByTestId('data-over-limit').textContent()).resolves.toContain(
      'patient_id, visit_code',
    );

    await page.getByTestId('nav-Schema').click();
    const notice = page.getByTestId('schema-over-limit-patient_id');
    await expect(notice.textContent()).resolves.toContain('more than 1,000 distinct values');
    await expect(notice.textContent()).resolves.toContain('Say what it is before the run');
    await page.getByTestId('schema-over-limit-identifier-patient_id').click();
    await expect(notice.textContent()).resolves.toContain('It identifies a person');
    await page.getByTestId('schema-over-limit-leave-out-visit_code').click();
    await expect(page.getByTestId('schema-over-limit-visit_code').textContent()).resolves.toContain(
      'left out of the release',
    );
    // A column on the screens: left out with its role.
    await page.getByTestId('schema-role-age').selectOption('leave-out');
    await expect(page.getByTestId('schema-release-age').getAttribute('data-domain')).resolves.toBe(
      'leave-out',
    );
    // diagnosis as a hierarchical code (the column editor): the plan costs it one share per level.
    const costBefore = await page.getByTestId('schema-cost-diagnosis').textContent();
    await page.getByTestId('schema-edit-diagnosis').click();
    await page.getByTestId('schema-edit-hierarchy').selectOption('icd10');
    await page.getByTestId('schema-edit-save').click();
    await expect(page.getByTestId('schema-hierarchy-diagnosis').textContent()).resolves.toContain('icd10');
    for (let tries = 0; (await textNow(page, 'schema-cost-diagnosis')) === costBefore; tries++) {
      if (tries > 200) throw new Error('the plan did not re-cost diagnosis as a hierarchical code');
      await page.waitForTimeout(50);
    }
    await shot(page, 'columns-1-schema');

    await prepareRun(page, {
      features: ['ward', 'diagnosis'],
      k: 2,
      r: 2,
      epsilon: '1',
      rows: '50',
      rounds: '',
      cap: '5',
    });
    await startRun(page, ['finished']);
    await page.getByTestId('nav-Export').click();
    const csv = await downloadText(page, 'export-button');
    expect(csv.split(/\r?\n/, 1)[0]).toBe('ward,diagnosis');
    expect(csv).not.toMatch(/P1\d{5}|V\d{4,}/);
    // Every released diagnosis is a released key of the file's codes: a letter or a category —
    // or a key of a public level (a letter, a missing marker, a category under a released letter),
    // which may pass its bar with a count of 0 (discovery/hierarchical.ts: SPURIOUS_TOP, about 0.3
    // such keys per release at the top; SPURIOUS, 0.05, below).
    const levels = new Set([
      'I',
      'I10',
      'C',
      'C34',
      'J',
      'J45',
      'E',
      'E11',
      '(other)',
      ...DEFAULT_MISSING_MARKERS,
    ]);
    for (const line of csv.trim().split(/\r?\n/).slice(1)) {
      const code = line.split(',')[1];
      expect(levels.has(code) || /^[A-Z](\d\d)?$/.test(code), code).toBe(true);
    }
    const text = await downloadText(page, 'export-manifest-download');
    const manifest = JSON.parse(text);
    expect(manifest.schema.columns.map((c: { name: string }) => c.name)).toEqual(['ward', 'diagnosis']);
    expect(manifest.unit).toMatchObject({ kind: 'person', column: 'patient_id', identifierReleased: false });
    expect(text).toMatch(/"diagnosis": *"icd10"/);
    expect(text).not.toContain('visit_code');
    expect(text).not.toContain('"age"');
  });
});
