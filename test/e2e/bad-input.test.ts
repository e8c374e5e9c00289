/**
 * Bad input through the UI, as a curator would give it: each case asserts the exact message the
 * screen shows, and that the ledger holds nothing it did not hold before (read from the ledger
 * file itself, read-only). Files are generated into a temp folder (the 50 MB one is never
 * committed). Export failures (read-only folder, full disk) are in export-faults.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/processes.ts';
import { garbage, peopleCsv } from './fixtures.ts';
import { callApi, chromiumAvailable, ledgerCounts } from './harness.ts';
import { banner, expectBanner, openFile, shot, startRun, stat } from './ui.ts';
import { useApp } from './use-app.ts';

/** The files a curator might give by mistake (and one good one), written into `dir`. */
function writeInputs(dir: string): void {
  const file = (name: string) => join(dir, name);
  writeFileSync(file('empty.csv'), '');
  writeFileSync(file('people.xlsx'), garbage(64 * 1024));
  writeFileSync(file('people.txt'), garbage(64 * 1024));
  // 50 MB on one line: no record separator anywhere.
  writeFileSync(file('one-line.csv'), 'x'.repeat(50 * 1024 * 1024));
  writeFileSync(file('ragged.csv'), 'a,b,c\n1,2,3\n4,5\n6,7,8,9\n1,2,3\n2,3,4\n3,4,5\n');
  writeFileSync(file('all-ragged.csv'), 'a,b,c\n1,2\n4,5\n');
  writeFileSync(file('people.csv'), peopleCsv());
  writeFileSync(
    file('missing-feature.json'),
    JSON.stringify({ thresholds: [{ features: ['color', 'zip'], r: 1 }] }),
  );
}

describe.skipIf(!chromiumAvailable())(
  'bad input through the UI: the exact message, nothing in the ledger',
  () => {
    const app = useApp({ name: 'bad', prepare: writeInputs });
    const file = (name: string) => join(app.dir, name);
    const counts = () => ledgerCounts(app.host.ledgerPath);

    /** A file that must not open: this banner, still no dataset, an untouched ledger. */
    async function refused(name: string, message: string): Promise<void> {
      const { page } = app;
      const before = counts();
      await openFile(page, file(name));
      await expectBanner(page, 'input', message);
      expect(await page.getByTestId('data-empty').isVisible()).toBe(true);
      expect(await page.getByTestId('data-summary').count()).toBe(0);
      expect(counts()).toEqual(before);
      expect(counts().releases).toBe(0);
    }

    it('an empty file', async () => {
      const { page } = app;
      await refused('empty.csv', 'empty.csv: the file is empty; expected a header row and data rows.');
      await shot(page, 'bad-1-empty');
    });

    it('binary garbage', async () => {
      // Bytes 8 and 9 of the noise are 0x47 0xF7; 0xF7 can start no UTF-8 character.
      await refused(
        'people.txt',
        'people.txt, line 1, column 1: invalid UTF-8 byte 0xF7 at byte offset 9; the file is not UTF-8 text. ' +
          'Re-save it as UTF-8 (in a spreadsheet: "CSV UTF-8").',
      );
      // Named as a workbook, the same bytes go to the Excel reader (data/formats/xlsx.ts).
      await refused(
        'people.xlsx',
        'people.xlsx: not a readable Excel workbook (.xlsx); the file is damaged or of another kind. ' +
          'Open and save it again in Excel, or export the sheet as CSV.',
      );
    });

    it('a 50 MB single-line file', async () => {
      const { page } = app;
      await refused(
        'one-line.csv',
        'one-line.csv, line 1: a record is longer than 1048576 characters; this is not a CSV table, ' +
          'or a quote (") opened on this line is never closed.',
      );
      await shot(page, 'bad-3-one-line');
    });

    /** The Data step's table of rows kept as all-missing (one rule with `synth`). */
    async function keptTable() {
      const { page } = app;
      const rows = await page.getByTestId('data-kept-missing').locator('tbody tr').all();
      return Promise.all(
        rows.map(async (r) => (await r.locator('td').allTextContents()).map((t) => t.trim())),
      );
    }

    it('a file whose every row is ragged: every row kept, every value missing (as synth keeps them)', async () => {
      const { page } = app;
      await openFile(page, file('all-ragged.csv'));
      expect(await banner(page)).toBeNull();
      expect(await stat(page, 'data-rows-read')).toBe('2');
      expect(await stat(page, 'data-rows-rejected')).toBe('0');
      expect(await keptTable()).toEqual([
        ['row has 2 fields, expected 3 (kept, every value missing)', '2', '2'],
      ]);
    });

    it('ragged rows: kept as records with every value missing and counted by reason, as synth does', async () => {
      const { page } = app;
      const before = counts();
      await openFile(page, file('ragged.csv'));
      expect(await banner(page)).toBeNull();
      expect(await stat(page, 'data-rows-read')).toBe('6');
      expect(await stat(page, 'data-rows-accepted')).toBe('6');
      expect(await stat(page, 'data-rows-rejected')).toBe('0');
      expect(await keptTable()).toEqual([
        ['row has 2 fields, expected 3 (kept, every value missing)', '1', '3'],
        ['row has 4 fields, expected 3 (kept, every value missing)', '1', '4'],
      ]);
      expect(counts()).toEqual(before);
      await shot(page, 'bad-4-ragged');
    });

    it('a workload file naming a feature the data does not have', async () => {
      const { page } = app;
      await openFile(page, file('people.csv'));
      expect(await stat(page, 'data-rows-accepted')).toBe('60');
      const before = counts();
      await page.getByTestId('nav-Workload').click();
      await page.getByTestId('wl-import-input').setInputFiles(file('missing-feature.json'));
      await expectBanner(
        page,
        'input',
        'missing-feature.json: thresholds[0].features[1]: unknown feature "zip"; valid features include "color", "size", "age"',
      );
      expect(await stat(page, 'wl-count')).toBe('0');
      expect(counts()).toEqual(before);
      await shot(page, 'bad-5-missing-feature');
    });

    it('r > k: a 2-feature threshold with r = 3', async () => {
      const { page } = app;
      const before = counts();
      await page.getByTestId('wl-feature-color').check();
      await page.getByTestId('wl-feature-size').check();
      await page.getByTestId('wl-r').fill('3');
      await page.getByTestId('wl-add-one').click();
      await expectBanner(
        page,
        'input',
        'thresholds[0].r: r = 3 is outside 1..2 (k = 2 is the number of features listed)',
      );
      expect(await stat(page, 'wl-count')).toBe('0');
      expect(counts()).toEqual(before);
      // The fix works: r = 2 is accepted.
      await page.getByTestId('wl-r').fill('2');
      await page.getByTestId('wl-add-one').click();
      await expect.poll(() => stat(page, 'wl-count')).toBe('1');
      expect(await banner(page)).toBeNull();
    });

    const SETTINGS_CASES: [string, 'epsilon' | 'delta', string, string][] = [
      ['ε = 0', 'epsilon', '0', 'ε must be a finite number > 0, got "0"'],
      ['ε = −1', 'epsilon', '-1', 'ε must be a finite number > 0, got "-1"'],
      ['ε = "abc"', 'epsilon', 'abc', 'ε must be a finite number > 0, got "abc"'],
      ['δ = 1', 'delta', '1', 'δ must be a number with 0 < δ < 1, got "1"'],
    ];

    describe('privacy settings the run refuses (with a cap set, so only the setting blocks)', () => {
      beforeAll(async () => {
        const { page } = app;
        await page.getByTestId('nav-Privacy').click();
        await page.getByTestId('privacy-epsilon').fill('0.5');
        await page.getByTestId('privacy-rows').fill('50');
        await page.getByTestId('privacy-rounds').fill('1');
        await page.getByTestId('cap-epsilon').waitFor();
        await page.getByTestId('cap-epsilon').fill('0.5');
        await page.getByTestId('cap-set').click();
        await waitFor('the cap to let the run start', async () =>
          (await page.getByTestId('run-disabled-reason').count()) === 0 ? true : undefined,
        );
      });

      it.each(SETTINGS_CASES)('%s', async (_name, field, value, message) => {
        const { page, host } = app;
        const before = counts();
        expect(before).toMatchObject({ datasets: 1, releases: 0 });
        await page.getByTestId(`privacy-${field}`).fill(value);
        await expect.poll(() => page.getByTestId(`field-error-${field}`).textContent()).toBe(message);
        const reason = page.getByTestId('run-disabled-reason');
        expect(await reason.textContent()).toBe(`Fix the settings first: ${message}.`);
        expect(await reason.getAttribute('data-blocker')).toBe('settings');
        expect(await page.getByTestId('run-button').isDisabled()).toBe(true);
        await shot(page, `bad-6-${field}-${value}`);
        // The host refuses the same settings even when the button is bypassed.
        const datasetId = (await callApi(host, 'session', {})) as {
          ok: true;
          result: { dataset: { id: string } };
        };
        const forced = await callApi(host, 'startRun', {
          datasetId: datasetId.result.dataset.id,
          settings: { epsilon: '0.5', rows: '50', rounds: '1', [field]: value },
        });
        expect(forced).toEqual({ ok: false, error: { kind: 'input', message } });
        expect(counts()).toEqual(before);
        await page.getByTestId(`privacy-${field}`).fill(field === 'epsilon' ? '0.5' : '');
        await expect.poll(() => page.getByTestId('run-disabled-reason').count()).toBe(0);
      });
    });

    it('a budget cap already spent: Run disabled with the reason, the host refuses too', async () => {
      const { page, host } = app;
      // Spend the whole cap (ε = 0.5 of 0.5) with one small run.
      await startRun(page, ['finished']);
      const spent = counts();
      expect(spent.releases).toBe(1);
      await page.getByTestId('nav-Privacy').click();
      await page.getByTestId('privacy-epsilon').fill('0.1');
      const reason = page.getByTestId('run-disabled-reason');
      await expect
        .poll(() => reason.textContent(), { timeout: 30_000 })
        .toMatch(
          /^Over budget: this run needs ε = 0\.1 \(ρ = [\d.e-]+\), but only ε = 0 \(ρ = 0\) of the cap remains\. Lower ε, or raise the cap if your oversight policy allows\.$/,
        );
      expect(await reason.getAttribute('data-blocker')).toBe('over-budget');
      expect(await page.getByTestId('run-button').isDisabled()).toBe(true);
      expect(await stat(page, 'plan-remaining')).toBe('0');
      await shot(page, 'bad-7-budget-spent');
      const session = (await callApi(host, 'session', {})) as {
        ok: true;
        result: { dataset: { id: string } };
      };
      const forced = await callApi(host, 'startRun', {
        datasetId: session.result.dataset.id,
        settings: { epsilon: '0.1', rows: '50', rounds: '1' },
      });
      expect(forced).toMatchObject({ ok: false, error: { kind: 'budget' } });
      if (!forced.ok) expect(forced.error.message).toMatch(/remaining/);
      expect(counts()).toEqual(spent);
    });
  },
);

if (!chromiumAvailable()) {
  it.skip('bad input through the UI: skipped because Chromium is not installed', () => {});
}
