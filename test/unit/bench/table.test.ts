/** Aggregation over seeds and the Markdown report. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregate, spread } from '../../../bench/lib/aggregate.ts';
import {
  COLUMNS,
  formatNumber,
  formatSpread,
  markdownReport,
  markdownTable,
} from '../../../bench/lib/table.ts';
import { fakeResult } from './fixtures.ts';

describe('spread', () => {
  it('matches the textbook mean and sample standard deviation', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 30 }),
        (xs) => {
          const s = spread(xs)!;
          const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
          let ss = 0;
          for (const x of xs) ss += (x - mean) * (x - mean);
          expect(s.count).toBe(xs.length);
          expect(s.mean).toBeCloseTo(mean, 6);
          expect(s.sd).toBeCloseTo(xs.length > 1 ? Math.sqrt(ss / (xs.length - 1)) : 0, 6);
          expect(s.min).toBe(Math.min(...xs));
          expect(s.max).toBe(Math.max(...xs));
        },
      ),
    );
  });

  it('is undefined for no values', () => {
    expect(spread([])).toBeUndefined();
  });
});

describe('aggregate', () => {
  it('groups seeds into rows in order of first appearance', () => {
    const rows = aggregate([
      fakeResult({ seed: 0, epsilon: 1 }, { presentError: 0.1 }),
      fakeResult({ seed: 0, epsilon: 0.1 }, { presentError: 0.3 }),
      fakeResult({ seed: 1, epsilon: 1 }, { presentError: 0.2 }),
    ]);
    expect(rows.map((r) => r.group)).toEqual(['adult/3of3/W16/eps1', 'adult/3of3/W16/eps0.1']);
    expect(rows[0].metrics.presentError?.mean).toBeCloseTo(0.15, 12);
    expect(rows[0].metrics.presentError?.count).toBe(2);
    expect(rows[1].metrics.presentError?.count).toBe(1);
  });

  it('takes extrapolated times and drops the errors of truncated runs', () => {
    const [row] = aggregate([
      fakeResult(
        {},
        { secondsTotal: 10 },
        {
          measuredRounds: 2,
          targetRounds: 8,
          epsilonRun: 0.05,
          roundSeconds: [3, 2],
          secondsTotal: 25,
          secondsSelection: 4,
          secondsProjection: 16,
        },
      ),
    ]);
    expect(row.metrics.presentError).toBeUndefined();
    expect(row.metrics.secondsTotal?.mean).toBe(25);
    expect(row.metrics.secondsSelection?.mean).toBe(4);
    expect(row.metrics.queriesPerSecond?.mean).toBeCloseTo(780_674 / 25, 9);
  });
});

describe('formatting', () => {
  it('keeps three significant digits and switches to exponents outside [1e-3, 1e5)', () => {
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(0.32131)).toBe('0.321');
    expect(formatNumber(41.077)).toBe('41.1');
    expect(formatNumber(3.2106e-5)).toBe('3.21e-5');
    expect(formatNumber(780_674)).toBe('7.81e5');
    expect(formatSpread(undefined)).toBe('n/a');
    expect(formatSpread(spread([1, 3]))).toBe('2 ± 1.41');
  });

  it('renders one line per row with as many cells as headers, escaping pipes', () => {
    const rows = aggregate([fakeResult({ seed: 0 }), fakeResult({ seed: 1 }), fakeResult({ epsilon: 1 })]);
    const lines = markdownTable(rows, [...COLUMNS, { header: 'a|b', cell: () => 'x|y' }]).split('\n');
    expect(lines).toHaveLength(2 + rows.length);
    const cells = (line: string) => line.split(/(?<!\\)\|/).length - 2;
    for (const line of lines) expect(cells(line)).toBe(COLUMNS.length + 1);
    expect(lines[2]).toContain('x\\|y');
  });

  it('puts the references, the RAP regression value and the seed mode into the report', () => {
    const md = markdownReport(
      {
        suite: 'quick',
        description: 'd',
        command: 'npm run bench',
        date: 'now',
        machine: 'm',
        wallSeconds: 12,
      },
      [fakeResult({ workload: { k: 3, r: 3, size: 64 }, epsilon: 1 })],
    );
    expect(md).toContain('28,226 queries/s');
    expect(md).toContain(`RAP ${formatNumber(0.0072 + 0.005 * Math.log(64))}`);
    expect(md).toContain('AIM 0.016');
    expect(md).toContain('1 × insecure-seed');
    expect(md).not.toContain('Engine counters');
  });

  it("lists the engine's timing counters of the runs that report them", () => {
    const timings = {
      sparsemax: 1.5,
      lossGradient: 0.25,
      relaxedAnswers: 4,
      exactAnswers: 0.125,
      noise: 0.5,
      evaluation: 0.75,
    };
    const header = {
      suite: 'quick',
      description: 'd',
      command: 'c',
      date: 'now',
      machine: 'm',
      wallSeconds: 9,
    };
    const md = markdownReport(header, [
      fakeResult({}, { timings, secondsTotal: 8 }),
      fakeResult({ seed: 1 }),
    ]);
    expect(md).toContain('## Engine counters (seconds)');
    const lines = md.split('\n').filter((l) => l.includes('sparsemax 1.5'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'relaxed answers 4, exact answers 0.125, noise 0.5, evaluation 0.75 (of 8 s total)',
    );
  });
});
