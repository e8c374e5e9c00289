import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatNumberText,
  formatTemporal,
  NUMBER_FORMATS,
  type NumberFormat,
  numberFormatForLocale,
  parseFormattedNumber,
  parseTemporal,
  TEMPORAL_FORMATS,
  type TemporalFormat,
  temporalPatternProblem,
  weekdayOf,
} from './formats.ts';

const date = (format: string): TemporalFormat => ({ kind: 'date', format });
const time = (format: string): TemporalFormat => ({ kind: 'time', format });
const datetime = (format: string): TemporalFormat => ({ kind: 'datetime', format });

describe('temporal formats', () => {
  const day = parseTemporal(date('%Y-%m-%d'), '2023-03-14')!;

  it('reads each public date format to the same day', () => {
    expect(day).toBe(19_430);
    expect(parseTemporal(date('%m/%d/%Y'), '03/14/2023')).toBe(day);
    expect(parseTemporal(date('%m/%d/%Y'), '3/14/2023')).toBe(day);
    expect(parseTemporal(date('%d/%m/%Y'), '14/03/2023')).toBe(day);
    expect(parseTemporal(date('%Y%m%d'), '20230314')).toBe(day);
    expect(parseTemporal(date('%Y-%m-%d'), '1969-12-31')).toBe(-1);
    expect(weekdayOf('date', day)).toBe(1); // a Tuesday
  });

  it('reads times and datetimes, with or without a zone (folded into UTC)', () => {
    expect(parseTemporal(time('%H:%M'), '13:20')).toBe(13 * 3600 + 20 * 60);
    expect(parseTemporal(time('%H:%M:%S'), '00:00:59')).toBe(59);
    expect(parseTemporal(time('%H:%M%z'), '01:00+02:00')).toBe(23 * 3600);
    const utc = parseTemporal(datetime('%Y-%m-%dT%H:%M:%S%z'), '2023-03-14T08:00:00Z')!;
    expect(utc).toBe(day * 86_400 + 8 * 3600);
    expect(parseTemporal(datetime('%Y-%m-%dT%H:%M:%S%z'), '2023-03-14T10:00:00+02:00')).toBe(utc);
    expect(parseTemporal(datetime('%Y-%m-%dT%H:%M:%S%z'), '2023-03-14T03:30:00-0430')).toBe(utc);
    expect(parseTemporal(datetime('%Y-%m-%d %H:%M'), '2023-03-14 08:00')).toBe(utc);
    expect(formatTemporal(datetime('%Y-%m-%dT%H:%M:%S%z'), utc)).toBe('2023-03-14T08:00:00Z');
  });

  it('refuses dates that do not exist and values of another shape', () => {
    const iso = date('%Y-%m-%d');
    for (const bad of ['2023-02-30', '2023-02-29', '2023-13-01', '2023-00-10', '2023-1-1x', '23-01-01', ''])
      expect(parseTemporal(iso, bad), bad).toBeUndefined();
    expect(parseTemporal(iso, '2024-02-29')).toBeDefined(); // a leap year
    expect(parseTemporal(date('%m/%d/%Y'), '14/03/2023')).toBeUndefined(); // month 14
    expect(parseTemporal(time('%H:%M'), '24:00')).toBeUndefined();
    expect(parseTemporal(time('%H:%M'), '12:60')).toBeUndefined();
    expect(parseTemporal(time('%H:%M'), '12:00:00')).toBeUndefined();
  });

  it('writes back what it reads, in every public format (property)', () => {
    for (const f of TEMPORAL_FORMATS) {
      const seconds = f.format.includes('%S');
      const range =
        f.kind === 'date'
          ? { min: -25_000, max: 80_000 }
          : f.kind === 'time'
            ? { min: 0, max: 86_399 }
            : { min: -2e9, max: 6e9 };
      fc.assert(
        fc.property(fc.integer(range), (raw) => {
          // Formats without seconds hold whole minutes.
          const x = f.kind !== 'date' && !seconds ? raw - (((raw % 60) + 60) % 60) : raw;
          const text = formatTemporal(f, x);
          expect(parseTemporal(f, text), `${f.format}: ${text}`).toBe(x);
        }),
        { numRuns: 200 },
      );
    }
  });

  it('reads the token notation too (MM/DD/YYYY, HH:MM)', () => {
    expect(parseTemporal(date('MM/DD/YYYY'), '03/14/2023')).toBe(day);
    expect(parseTemporal(date('DD/MM/YYYY'), '14/03/2023')).toBe(day);
    expect(parseTemporal(date('YYYY-MM-DD'), '2023-03-14')).toBe(day);
    expect(parseTemporal(time('HH:MM'), '13:20')).toBe(13 * 3600 + 20 * 60);
    expect(parseTemporal(datetime('YYYY-MM-DDTHH:MM:SSZ'), '2023-03-14T08:00:00Z')).toBe(
      day * 86_400 + 8 * 3600,
    );
    expect(formatTemporal(datetime('YYYY-MM-DDTHH:MM:SSZ'), day * 86_400 + 8 * 3600)).toBe(
      '2023-03-14T08:00:00Z',
    );
    expect(temporalPatternProblem(date('MM/DD/YY'))).toMatch(/two-digit years/);
    expect(temporalPatternProblem(time('HH:MM:SS'))).toBeUndefined();
  });

  it('names what is wrong with a declared pattern', () => {
    expect(temporalPatternProblem(date('%Y-%m-%d'))).toBeUndefined();
    expect(temporalPatternProblem(date('%Y-%m'))).toMatch(/needs %Y, %m and %d/);
    expect(temporalPatternProblem(date('%Y-%q-%d'))).toMatch(/unknown directive %q/);
    expect(temporalPatternProblem(time('%H:%M:%S'))).toBeUndefined();
    expect(temporalPatternProblem(time('%Y %H:%M'))).toMatch(/no date/);
    expect(temporalPatternProblem(datetime('%Y-%m-%d'))).toMatch(/datetime needs/);
  });
});

describe('locale number formats', () => {
  const en: NumberFormat = { decimal: '.', group: ',' };
  const de: NumberFormat = { decimal: ',', group: '.' };
  const fr: NumberFormat = { decimal: ',', group: ' ' };
  const ch: NumberFormat = { decimal: '.', group: "'" };
  const dollars: NumberFormat = { ...en, prefix: '$', decimals: 2 };
  const euros: NumberFormat = { ...de, suffix: ' €', decimals: 2 };
  const percent: NumberFormat = { ...en, suffix: '%' };

  it('reads each locale form', () => {
    expect(parseFormattedNumber(en, '1,234.50')).toBe(1234.5);
    expect(parseFormattedNumber(en, '1234.50')).toBe(1234.5);
    expect(parseFormattedNumber(de, '1.234,50')).toBe(1234.5);
    expect(parseFormattedNumber(de, '12,5')).toBe(12.5);
    expect(parseFormattedNumber(fr, '1 234,50')).toBe(1234.5);
    expect(parseFormattedNumber(fr, '1\u00a0234,50')).toBe(1234.5);
    expect(parseFormattedNumber(fr, '1\u202f234,50')).toBe(1234.5);
    expect(parseFormattedNumber(ch, "1'234.50")).toBe(1234.5);
    expect(parseFormattedNumber(ch, '1\u2019234.50')).toBe(1234.5);
    expect(parseFormattedNumber(euros, '1.234,50\u00a0€')).toBe(1234.5);
    expect(parseFormattedNumber(dollars, '$4,964.01')).toBe(4964.01);
    expect(parseFormattedNumber(dollars, '-$5.00')).toBe(-5);
    expect(parseFormattedNumber(dollars, '$-5.00')).toBe(-5);
    expect(parseFormattedNumber(dollars, '0')).toBe(0); // the affix is optional
    expect(parseFormattedNumber(euros, '1.234,50 €')).toBe(1234.5);
    expect(parseFormattedNumber(percent, '12%')).toBe(12); // percent stays in percent
    expect(parseFormattedNumber(percent, '-0.5%')).toBe(-0.5);
  });

  it('refuses separators that do not group by three, and text', () => {
    for (const bad of ['1,23,4', '12,34.5', '1.234.5', '', '$', 'abc', '1,234.5.6', '--5'])
      expect(parseFormattedNumber(en, bad), bad).toBeUndefined();
    expect(parseFormattedNumber(de, '1.23')).toBeUndefined();
    expect(parseFormattedNumber(de, '1,234.50')).toBeUndefined();
  });

  it('writes numbers back in the source form, and reads back what it writes (property)', () => {
    expect(formatNumberText(en, '1234.5')).toBe('1,234.5');
    expect(formatNumberText(de, '-1234567.25')).toBe('-1.234.567,25');
    expect(formatNumberText(fr, '1234.5')).toBe('1 234,5');
    expect(formatNumberText(dollars, '4964.006')).toBe('$4,964.01');
    expect(formatNumberText(euros, '3')).toBe('3,00 €');
    expect(formatNumberText(percent, '12')).toBe('12%');
    for (const f of NUMBER_FORMATS) {
      fc.assert(
        fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 99 }), (int, cents) => {
          const x = int + Math.sign(int || 1) * (cents / 100);
          const text = formatNumberText(f, String(x));
          const back = parseFormattedNumber(f, text);
          expect(back, `${JSON.stringify(f)}: ${text}`).toBeCloseTo(x, 6);
        }),
        { numRuns: 50 },
      );
    }
  });

  it('takes a declared locale tag', () => {
    expect(numberFormatForLocale('en-US')).toMatchObject({ decimal: '.', group: ',' });
    expect(numberFormatForLocale('de-DE', { suffix: ' €' })).toMatchObject({
      decimal: ',',
      group: '.',
      decimals: 2,
    });
    expect(numberFormatForLocale('fr')).toMatchObject({ decimal: ',', group: ' ' });
    expect(numberFormatForLocale('de-CH')).toMatchObject({ decimal: '.', group: "'" });
    expect(numberFormatForLocale('xx')).toBeUndefined();
  });
});
