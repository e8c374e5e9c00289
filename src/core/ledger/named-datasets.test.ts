/**
 * Named datasets (issue 26, item 10; the audit's "a re-saved file gets a fresh budget"): the
 * ledger knows a dataset by name as well as by bytes. A new file the curator names after a known
 * dataset spends that dataset's budget; a new file that looks like a known one (same column
 * names, a similar record count) is refused until the curator chooses; nothing is decided silently.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetRefusedError, InputError } from '../errors.ts';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { Ledger, SimilarDatasetError } from './ledger.ts';
import { fingerprintOf, requestFor } from './testing/fixtures.ts';

const ADULT = fingerprintOf('adult.data');
const RESAVED = fingerprintOf('adult.data with one blank line');
const COLUMNS = ['age', 'workclass', 'education', 'sex', 'income'];
const RUN = rhoFromEpsilon(1, 1e-6);

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

/** adult.data registered with its columns and a cap that pays for one ε = 1 run, which it spent. */
function spentAdult(): Ledger {
  const l = Ledger.open(':memory:');
  open.push(l);
  const d = l.ensureDataset({ fingerprint: ADULT, name: 'adult.data', rows: 32561, columns: COLUMNS });
  l.setCap(d.fingerprint, 1.2, 1e-6);
  l.reserve(requestFor(ADULT, RUN));
  return l;
}

const eventCount = (l: Ledger) => l.head().events;

describe('a new file that looks like a known dataset', () => {
  it('is refused until the curator chooses (same columns, one more record): nothing recorded', () => {
    const l = spentAdult();
    const before = eventCount(l);
    let err: unknown;
    try {
      l.ensureDataset({ fingerprint: RESAVED, name: 'adult.data', rows: 32562, columns: COLUMNS });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SimilarDatasetError);
    expect(err).toBeInstanceOf(InputError); // exit 2, before any reservation
    expect((err as Error).message).toMatch(
      /same column names and a similar number of records as "adult\.data".*--name "adult\.data".*--name NEW/,
    );
    expect(eventCount(l)).toBe(before);
    expect(l.datasetFor(RESAVED)).toBeUndefined();
  });

  it('named after the known dataset, it spends that budget (no fresh budget for a copy)', () => {
    const l = spentAdult();
    const d = l.ensureDataset({
      fingerprint: RESAVED,
      name: 'adult.data',
      rows: 32562,
      columns: COLUMNS,
      chosen: true,
    });
    expect(d.fingerprint).toBe(ADULT);
    expect(l.datasetFor(RESAVED)?.fingerprint).toBe(ADULT);
    // The cap paid for one run, which adult.data spent: the copy is refused too.
    expect(() => l.reserve({ ...requestFor(ADULT, RUN), fileFingerprint: RESAVED })).toThrow(
      BudgetRefusedError,
    );
    const small = l.reserve({ ...requestFor(ADULT, RUN / 10), fileFingerprint: RESAVED });
    expect(small.datasetFingerprint).toBe(ADULT);
    expect(l.totals(ADULT).releases).toBe(2);
    // Known from now on: no question the second time, same budget.
    expect(
      l.ensureDataset({ fingerprint: RESAVED, name: 'adult.data', rows: 32562, columns: COLUMNS })
        .fingerprint,
    ).toBe(ADULT);
    expect(l.verify().ok).toBe(true);
  });

  it('named anew, it becomes a dataset of its own (the curator chose), with no cap yet', () => {
    const l = spentAdult();
    const d = l.ensureDataset({
      fingerprint: RESAVED,
      name: 'adult-2025',
      rows: 32562,
      columns: COLUMNS,
      chosen: true,
    });
    expect(d.fingerprint).toBe(RESAVED);
    expect(d.cap).toBeNull();
    expect(l.datasets().map((x) => x.name)).toEqual(['adult.data', 'adult-2025']);
  });

  it('other columns, or a record count 10% off, is another dataset: registered without a question', () => {
    const l = spentAdult();
    expect(
      l.ensureDataset({
        fingerprint: fingerprintOf('b'),
        name: 'b.csv',
        rows: 32561,
        columns: ['age', 'sex'],
      }).fingerprint,
    ).toBe(fingerprintOf('b'));
    expect(
      l.ensureDataset({ fingerprint: fingerprintOf('c'), name: 'c.csv', rows: 29000, columns: COLUMNS })
        .fingerprint,
    ).toBe(fingerprintOf('c'));
  });

  it('a known file named after another dataset is refused: its budget never changes', () => {
    const l = spentAdult();
    l.ensureDataset({ fingerprint: fingerprintOf('loans'), name: 'loans.csv', rows: 10, columns: ['x'] });
    expect(() =>
      l.ensureDataset({ fingerprint: fingerprintOf('loans'), name: 'adult.data', rows: 10, chosen: true }),
    ).toThrow(/already released against dataset "loans\.csv".*a file's budget never changes/);
  });
});
