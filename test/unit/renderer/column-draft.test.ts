/**
 * The column editor's draft (src/renderer/src/lib/column-draft.ts), shared by the Schema step and
 * the Data step's database columns: equal-width edges against brute force, a drafted domain back
 * to the column it came from, and the problems named.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  domainDraftOf,
  domainFromDraft,
  emptyDomainDraft,
  equalWidthEdges,
  hierarchyDraftOf,
  hierarchyFromDraft,
  temporalDraftOf,
  temporalFromDraft,
} from '../../../src/renderer/src/lib/column-draft.ts';

describe('equalWidthEdges', () => {
  it('bins + 1 ascending edges from lower to upper, equal steps (integers rounded)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.boolean(),
        (lo, width, bins, integer) => {
          const d = {
            ...emptyDomainDraft(integer),
            lower: String(lo),
            upper: String(lo + width),
            bins: String(bins),
          };
          const out = equalWidthEdges(d);
          if (!('edges' in out)) throw new Error(out.problem);
          const edges = out.edges.split(', ').map(Number);
          expect(edges).toHaveLength(bins + 1);
          expect(edges[0]).toBe(lo);
          expect(edges[bins]).toBe(lo + width);
          for (let i = 0; i <= bins; i++) {
            const exact = lo + (width * i) / bins;
            if (integer) expect(edges[i] === Math.round(exact)).toBe(true);
            else expect(edges[i]).toBeCloseTo(exact, 6);
          }
        },
      ),
    );
  });

  it('lower ≥ upper, or bins not a whole number ≥ 1: the problem, no edges', () => {
    for (const [lower, upper, bins] of [
      ['5', '5', '2'],
      ['6', '5', '2'],
      ['0', '5', '0'],
      ['0', '5', '1.5'],
      ['x', '5', '2'],
    ]) {
      expect(equalWidthEdges({ ...emptyDomainDraft(), lower, upper, bins })).toHaveProperty('problem');
    }
  });
});

describe('domainFromDraft / domainDraftOf', () => {
  it('a column drafted and read back is the same column', () => {
    const cat = { name: 'ward', kind: 'categorical' as const, categories: ['A', 'B c'], missing: true };
    expect(domainFromDraft('ward', 'categorical', domainDraftOf(cat))).toEqual({ column: cat });
    const num = {
      name: 'age',
      kind: 'numeric' as const,
      edges: [0, 10.5, 20],
      integer: false,
      missing: false,
    };
    expect(domainFromDraft('age', 'numeric', domainDraftOf(num))).toEqual({ column: num });
  });

  it('categories trimmed, blank lines dropped; an edge that is no number named as the problem', () => {
    const d = { ...emptyDomainDraft(), categories: ' a \n\nb\n' };
    expect(domainFromDraft('c', 'categorical', d)).toEqual({
      column: { name: 'c', kind: 'categorical', categories: ['a', 'b'], missing: false },
    });
    expect(domainFromDraft('n', 'numeric', { ...emptyDomainDraft(), edges: '0, ten, 20' })).toEqual({
      problem: 'Every bin edge must be a number (separate them with commas).',
    });
  });
});

describe('a stated date or time and a hierarchical code, drafted (Schema step and database columns)', () => {
  it('a levels text round-trips through its draft: presets, prefix lengths, full codes', () => {
    for (const text of ['icd10', 'postcode,full-codes', '1,3,full', '3,5,full-codes', 'naics']) {
      const made = hierarchyFromDraft(hierarchyDraftOf(text));
      expect(made).toEqual({ text });
    }
    expect(hierarchyDraftOf(undefined)).toEqual({ choice: '', lengths: '', fullCodes: false });
    expect(hierarchyFromDraft(hierarchyDraftOf(''))).toEqual({ text: '' });
    expect(hierarchyDraftOf('1,3,full')).toEqual({ choice: 'custom', lengths: '1,3,full', fullCodes: false });
  });

  it('prefix lengths left blank: what to give', () => {
    expect(hierarchyFromDraft({ choice: 'custom', lengths: ' ', fullCodes: false })).toEqual({
      problem: expect.stringContaining('prefix lengths'),
    });
  });

  it('a date format round-trips; neither is no temporal; a kind without a format is named', () => {
    const t = { kind: 'date' as const, format: 'DD.MM.YYYY' };
    expect(temporalFromDraft(temporalDraftOf(t))).toEqual({ temporal: t });
    expect(temporalFromDraft(temporalDraftOf(undefined))).toEqual({});
    expect(temporalFromDraft({ kind: 'time', format: ' ' })).toEqual({
      problem: expect.stringContaining('format'),
    });
  });
});
