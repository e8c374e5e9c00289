import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeRows, decodeValue } from '../data/decode.ts';
import {
  formatTemporal,
  parseTemporal,
  TEMPORAL_FORMATS,
  type TemporalFormat,
  weekdayOf,
} from '../data/formats.ts';
import { loadCsv } from '../data/load.ts';
import type { NumericColumn } from '../data/schema.ts';
import { parseSchemaJson } from '../data/schema-file.ts';
import { tempDir } from '../data/testing.ts';
import { seededNoise } from '../privacy/noise.ts';
import { discoverSchema, FORMAT_SHARE } from './discover.ts';
import {
  chooseFormat,
  FORMAT_CLASSES,
  formatClass,
  MISSING_CLASS,
  PLAIN_CLASS,
  TEXT_CLASS,
} from './formats.ts';
import { ColumnCounts } from './profile.ts';
import { discoverTemporal, TemporalCounts } from './temporal.ts';

const dir = tempDir('rap-temporal-');
afterAll(() => dir.remove());

const DAY0 = parseTemporal({ kind: 'date', format: '%Y-%m-%d' }, '2022-01-01')!;
const fmt = (format: string, x: number, kind: TemporalFormat['kind'] = 'date') =>
  formatTemporal({ kind, format }, x);

/**
 * Public test data: a visit a row, every temporal and locale number form, a plain number, text,
 * and a messy column (ISO dates, some written US-style, some impossible).
 */
function formsCsv(n: number): string {
  const lines = ['iso,us,eu,compact,time,stamp,en,de,dollars,percent,age,ward,mixed,empty_end,fr,ch,eur'];
  for (let i = 0; i < n; i++) {
    // Mondays twice as often as other days: 2022-01-03 is a Monday.
    const day = DAY0 + ((i * 7919) % 1000) - (i % 4 === 0 ? (DAY0 + ((i * 7919) % 1000) + 3) % 7 : 0);
    const seconds = ((i * 104_729) % 86_400) - (((i * 104_729) % 86_400) % 60);
    const amount = ((i * 7907) % 2_000_000) / 100;
    const mixed = i % 10 === 0 ? fmt('%m/%d/%Y', day) : i % 50 === 1 ? '2023-02-30' : fmt('%Y-%m-%d', day);
    lines.push(
      [
        fmt('%Y-%m-%d', day),
        fmt('%m/%d/%Y', day),
        fmt('%d/%m/%Y', day),
        fmt('%Y%m%d', day),
        fmt('%H:%M', seconds, 'time'),
        fmt('%Y-%m-%dT%H:%M:%S%z', day * 86_400 + seconds + (i % 60), 'datetime'),
        `"${amount.toLocaleString('en-US')}"`,
        `"${amount.toLocaleString('de-DE')}"`,
        `"$${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}"`,
        `${i % 100}%`,
        String(i % 90),
        i % 3 ? 'Surgery' : 'Medicine',
        mixed,
        i % 25 === 0 ? '' : fmt('%Y-%m-%d', day + (i % 5)),
        `"${amount.toLocaleString('fr-FR')}"`,
        amount.toLocaleString('de-CH'),
        `"${amount.toLocaleString('de-DE', { style: 'currency', currency: 'EUR' })}"`,
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

describe('the format classes', () => {
  it('puts each cell in one class, the first candidate that reads it', () => {
    expect(formatClass('2023-03-14')).toBe(1);
    expect(formatClass('20230314')).toBeLessThan(PLAIN_CLASS); // a date before a number
    expect(formatClass('20231314')).toBe(PLAIN_CLASS); // month 13: a number
    expect(formatClass('12.5')).toBe(PLAIN_CLASS);
    expect(formatClass('Surgery')).toBe(TEXT_CLASS);
    expect(formatClass('2023-02-30')).toBe(TEXT_CLASS);
    for (const cell of ['1,234.5', '1.234,5', '$4,964.01', '12%', '1 234,5 €'])
      expect(formatClass(cell), cell).toBeGreaterThan(PLAIN_CLASS);
  });

  it('moves the class histogram by at most √2 between neighbouring datasets (property)', () => {
    const cells = [
      '2023-03-14',
      '03/14/2023',
      '14/03/2023',
      '13:20',
      '1,234.5',
      '$5',
      '7',
      'x',
      '',
      '?',
      '12%',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...cells), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc.constantFrom(...cells),
        (rows, at, replacement) => {
          const d = new ColumnCounts('c');
          const d2 = new ColumnCounts('c');
          const i = at % rows.length;
          rows.forEach((v, j) => {
            const w = j === i ? replacement : v;
            d.add(v, v === '' || v === '?');
            d2.add(w, w === '' || w === '?');
          });
          let sq = 0;
          for (let k = 0; k < FORMAT_CLASSES; k++) sq += (d.classes![k] - d2.classes![k]) ** 2;
          expect(Math.sqrt(sq)).toBeLessThanOrEqual(Math.SQRT2 + 1e-12);
          expect(d.classes![MISSING_CLASS]).toBe(d.missing);
        },
      ),
    );
  });

  it('moves the calendar counts by at most √2 per group between neighbouring datasets (property)', () => {
    for (const format of [TEMPORAL_FORMATS[0], TEMPORAL_FORMATS[5], TEMPORAL_FORMATS[11]]) {
      const groups = format.kind === 'time' ? 1 : format.kind === 'date' ? 2 : 3;
      const cell = fc.oneof(
        fc
          .integer({ min: -30_000, max: 90_000 })
          .map((x) =>
            fmt(format.format, format.kind === 'datetime' ? x * 86_400 + (x % 86_400) : x * 61, format.kind),
          ),
        fc.constantFrom('', 'junk', '1850-01-01'),
      );
      fc.assert(
        fc.property(
          fc.array(cell, { minLength: 1, maxLength: 20 }),
          fc.nat(),
          cell,
          (rows, at, replacement) => {
            const d = new TemporalCounts('c', format);
            const d2 = new TemporalCounts('c', format);
            const i = at % rows.length;
            rows.forEach((v, j) => {
              const w = j === i ? replacement : v;
              d.add(v, v === '');
              d2.add(w, w === '');
            });
            const l1 = d.level1();
            const l1b = d2.level1();
            expect(Math.hypot(...l1.map((x, k) => x - l1b[k]))).toBeLessThanOrEqual(Math.SQRT2 + 1e-12);
            let sq = 0;
            for (const k of new Set([...d.fine.keys(), ...d2.fine.keys()]))
              sq += ((d.fine.get(k) ?? 0) - (d2.fine.get(k) ?? 0)) ** 2;
            for (let k = 0; k < 7; k++) sq += (d.weekdays[k] - d2.weekdays[k]) ** 2;
            for (let k = 0; k < 24; k++) sq += (d.hours[k] - d2.hours[k]) ** 2;
            expect(Math.sqrt(sq)).toBeLessThanOrEqual(Math.sqrt(2 * groups) + 1e-12);
          },
        ),
        { numRuns: 100 },
      );
    }
  });

  it('chooses by the noisy counts: temporal, a number format, or nothing', () => {
    const counts = (entries: Record<number, number>) => {
      const v = new Float64Array(FORMAT_CLASSES);
      for (const [k, c] of Object.entries(entries)) v[Number(k)] = c;
      return v;
    };
    // A day-first file: its days ≤ 12 read as month-first (class 2), the rest only day-first (3).
    expect(chooseFormat(counts({ 2: 400, 3: 600 }), 10)?.temporal?.format).toBe('%d/%m/%Y');
    expect(chooseFormat(counts({ [PLAIN_CLASS]: 900, [TEXT_CLASS]: 100 }), 10)).toBeUndefined();
    expect(
      chooseFormat(counts({ [PLAIN_CLASS]: 600, [PLAIN_CLASS + 1]: 300 }), 10)?.numberFormat,
    ).toMatchObject({
      group: ',',
      decimal: '.',
    });
    // Below the bar: nothing.
    expect(chooseFormat(counts({ 1: 30, [TEXT_CLASS]: 10 }), 10)).toBeUndefined();
    expect(chooseFormat(counts({ 1: 300, [TEXT_CLASS]: 700 }), 10)).toBeUndefined();
  });
});

describe('the calendar grid', () => {
  /** No noise: the rules on the counts themselves (the mechanism's noise is tested above and in privacy/). */
  const silent = {
    mode: 'insecure-seed',
    uniform: () => 0.5,
    normal: () => 0,
    gumbel: () => 0,
    exponential: () => 1,
    fillNormal: (out: Float64Array) => out.fill(0),
  } as const;

  it('keeps quiet hours next to busy ones, round midnight, and no empty hour', () => {
    const counts = new TemporalCounts('t', { kind: 'time', format: '%H:%M' });
    const rho = 1 / 2; // σ₁ = √2/√(2ρ) = √2 ≈ 1.41: 4σ₁ ≈ 5.7, 1.5σ₁ ≈ 2.1
    const add = (hour: number, times: number) => {
      for (let i = 0; i < times; i++)
        counts.add(`${String(hour).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`, false);
    };
    for (const h of [0, 1, 2, 3]) add(h, 40); // busy: far above 4σ₁
    for (const h of [21, 22, 23]) add(h, 4); // quiet: between 1.5σ₁ and 4σ₁, across midnight
    add(12, 1); // alone and under 1.5σ₁
    const d = discoverTemporal(counts, rho, rho, silent, { bins: 4 });
    const hours = new Set(d.column.pieces!.map((p) => Math.floor(p.lo / 3600)));
    expect([...hours].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 21, 22, 23]);
    expect(d.column.temporal).toMatchObject({ kind: 'time', format: '%H:%M' });
  });

  it('spreads a year over its months, and keeps the weekday shares', () => {
    const counts = new TemporalCounts('d', { kind: 'date', format: '%Y-%m-%d' });
    // 2024: 30 records in March (on Mondays), 10 in July (on Fridays).
    for (let i = 0; i < 30; i++) counts.add(['2024-03-04', '2024-03-11', '2024-03-18'][i % 3], false);
    for (let i = 0; i < 10; i++) counts.add('2024-07-05', false);
    counts.add('2024-02-30', false); // not a date: unreadable
    counts.add('', true);
    const d = discoverTemporal(counts, 1, 1, silent, { bins: 2 });
    const months = d.column.pieces!.map((p) => [fmt('%Y-%m-%d', p.lo), Math.round(p.weight * 40)]);
    expect(months).toEqual([
      ['2024-03-01', 30],
      ['2024-07-01', 10],
    ]);
    expect(d.column.temporal!.weekdays!.map((w) => Math.round(w * 40))).toEqual([30, 0, 0, 0, 10, 0, 0]);
    expect(d.missing.count).toBe(2);
  });
});

describe('discoverSchema finds dates, times and locale numbers privately', () => {
  const n = 3000;
  const file = dir.file('forms.csv', formsCsv(n));
  const opts = { rho: 50, delta: 1e-6, noise: seededNoise('forms') } as const;

  it('finds each format, and decodes each column back in it', async () => {
    const { schema, columns } = await discoverSchema(file, opts);
    const by = new Map(schema.columns.map((c) => [c.name, c as NumericColumn]));
    const temporal = (name: string) => by.get(name)!.temporal;
    expect(temporal('iso')).toMatchObject({ kind: 'date', format: '%Y-%m-%d' });
    expect(temporal('us')).toMatchObject({ kind: 'date', format: '%m/%d/%Y' });
    expect(temporal('eu')).toMatchObject({ kind: 'date', format: '%d/%m/%Y' });
    expect(temporal('compact')).toMatchObject({ kind: 'date', format: '%Y%m%d' });
    expect(temporal('time')).toMatchObject({ kind: 'time', format: '%H:%M' });
    expect(temporal('stamp')).toMatchObject({ kind: 'datetime', format: '%Y-%m-%dT%H:%M:%S%z' });
    expect(temporal('mixed')).toMatchObject({ kind: 'date', format: '%Y-%m-%d' });
    expect(by.get('en')!.numberFormat).toMatchObject({ decimal: '.', group: ',' });
    expect(by.get('de')!.numberFormat).toMatchObject({ decimal: ',', group: '.' });
    expect(by.get('dollars')!.numberFormat).toMatchObject({ prefix: '$', decimals: 2 });
    expect(by.get('percent')!.numberFormat).toMatchObject({ suffix: '%' });
    expect(by.get('fr')!.numberFormat).toMatchObject({ decimal: ',', group: ' ' });
    expect(by.get('ch')!.numberFormat).toMatchObject({ decimal: '.', group: "'" });
    expect(by.get('eur')!.numberFormat).toMatchObject({
      decimal: ',',
      group: '.',
      suffix: ' €',
      decimals: 2,
    });
    // Ages stay plain numbers; words stay categories.
    expect(by.get('age')!.kind).toBe('numeric');
    expect(by.get('age')!.temporal ?? by.get('age')!.numberFormat).toBeUndefined();
    expect(schema.columns.find((c) => c.name === 'ward')!.kind).toBe('categorical');
    // Every column states its format test's noise; each costs the same ρ.
    for (const c of columns) expect(c.detail?.formatSigma).toBeGreaterThan(0);
    expect(FORMAT_SHARE).toBeGreaterThan(0);

    const loaded = await loadCsv(file, { schema, outOfDomain: 'other', raggedAsMissing: true });
    expect(loaded.dataset.n).toBe(n);
    // The messy column: 10% written US-style and 2% impossible (2023-02-30) do not read as its
    // ISO format: they are missing, and the missing category is released (12% ≫ its noise).
    const mixed = by.get('mixed')!;
    expect(mixed.missing).toBe(true);
    const codes = loaded.dataset.codes[schema.columns.indexOf(mixed)];
    let missing = 0;
    for (let i = 0; i < n; i++) if (codes[i] === mixed.edges.length - 1) missing++;
    expect(missing).toBe(n / 10 + n / 50);
    const rows = decodeRows(schema, loaded.dataset.codes, n, { random: seededUniform(1) });
    const names = schema.columns.map((c) => c.name);
    const cell = (r: string[], name: string) => r[names.indexOf(name)];
    for (const r of rows.slice(0, 200)) {
      expect(cell(r, 'iso')).toMatch(/^202[1-4]-\d\d-\d\d$/);
      expect(cell(r, 'us')).toMatch(/^\d\d\/\d\d\/202[1-4]$/);
      expect(cell(r, 'compact')).toMatch(/^202[1-4]\d{4}$/);
      expect(cell(r, 'time')).toMatch(/^\d\d:\d\d$/);
      expect(cell(r, 'stamp')).toMatch(/^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(cell(r, 'dollars')).toMatch(/^\$[\d,]+\.\d\d$/);
      expect(cell(r, 'percent')).toMatch(/^\d+(\.\d+)?%$/);
      expect(cell(r, 'de')).not.toMatch(/\.\d{1,2}$/);
      expect(cell(r, 'eur')).toMatch(/^[\d.]+,\d\d €$/);
      expect(cell(r, 'ch')).not.toMatch(/,/);
      for (const name of ['iso', 'us', 'eu', 'compact', 'time', 'stamp', 'mixed']) {
        const c = by.get(name)!;
        if (name === 'mixed' && cell(r, name) === (mixed.missingText ?? '?')) continue;
        expect(parseTemporal(c.temporal!, cell(r, name)), `${name}: ${cell(r, name)}`).toBeDefined();
      }
    }
  });

  it('keeps the days of the week: Mondays twice as often come back about twice as often', async () => {
    const { schema } = await discoverSchema(file, opts);
    const iso = schema.columns.find((c) => c.name === 'iso') as NumericColumn;
    const loaded = await loadCsv(file, { schema, outOfDomain: 'other', raggedAsMissing: true });
    const j = schema.columns.indexOf(iso);
    const random = seededUniform(2);
    const count = new Float64Array(7);
    const real = new Float64Array(7);
    const rows = (await import('node:fs')).readFileSync(file, 'utf8').trim().split('\n').slice(1);
    for (const line of rows) real[weekdayOf('date', parseTemporal(iso.temporal!, line.split(',')[0])!)]++;
    for (let i = 0; i < n; i++) {
      const text = decodeValue(iso, loaded.dataset.codes[j][i], { random });
      count[weekdayOf('date', parseTemporal(iso.temporal!, text)!)]++;
    }
    // Real Monday share ≈ 0.36 (a quarter of the rows moved to Monday). The decoded share has a
    // binomial standard error √(p(1−p)/n) ≈ 0.009 at n = 3000; the discovered shares add noise of
    // about 0.001 at ρ = 50: a tolerance of 0.05 is over 5 standard errors (a false failure
    // under 10⁻⁶), and a uniform draw (1/7) misses it by 0.2.
    expect(Math.abs(count[0] / n - real[0] / n)).toBeLessThan(0.05);
    expect(count[0] / n).toBeGreaterThan(0.3);
  });

  it('takes a stated format without testing it, and still discovers the domain', async () => {
    // Stated day-first for a month-first column: every day ≤ 12 reads (as another date), the
    // rest do not — the curator's statement is used as given.
    const formats = new Map([
      ['us', { temporal: { kind: 'date', format: '%d/%m/%Y' } as const }],
      ['en', { numberFormat: { decimal: '.', group: ',' } as const }],
    ]);
    const { schema, columns } = await discoverSchema(file, { ...opts, formats });
    const us = schema.columns.find((c) => c.name === 'us') as NumericColumn;
    expect(us.temporal).toMatchObject({ kind: 'date', format: '%d/%m/%Y' });
    expect(us.missing).toBe(true); // the days > 12 do not read
    expect(columns.find((c) => c.name === 'us')!.detail?.formatSigma).toBeUndefined();
    expect(columns.find((c) => c.name === 'en')!.detail?.formatSigma).toBeUndefined();
    expect((schema.columns.find((c) => c.name === 'en') as NumericColumn).numberFormat).toMatchObject({
      group: ',',
    });
    // Each column still costs the same ρ.
    expect(new Set(columns.map((c) => JSON.stringify(c.provenance))).size).toBe(1);
  });

  it('reads a declared date column in its format and writes it back so', async () => {
    const schema = parseSchemaJson(
      JSON.stringify({
        version: 1,
        origin: 'declared',
        columns: [
          {
            name: 'us',
            kind: 'numeric',
            temporal: { kind: 'date', format: '%m/%d/%Y' },
            lower: '01/01/2022',
            upper: '12/31/2024',
            bins: 36,
          },
          {
            name: 'dollars',
            kind: 'numeric',
            numberFormat: { decimal: '.', group: ',', prefix: '$', decimals: 2 },
            lower: 0,
            upper: 20000,
            bins: 10,
          },
        ],
      }),
      'declared.json',
    );
    const us = schema.columns[0] as NumericColumn;
    expect(us.integer).toBe(true);
    expect(us.edges[0]).toBe(DAY0);
    const small = dir.file('declared.csv', 'us,dollars\n03/14/2023,"$4,964.01"\n12/31/2024,$0.50\n');
    const loaded = await loadCsv(small, { schema });
    expect(loaded.dataset.n).toBe(2);
    const back = decodeRows(schema, loaded.dataset.codes, 2, { random: seededUniform(3) });
    for (const [date, dollars] of back) {
      expect(date).toMatch(/^\d\d\/\d\d\/202[1-4]$/);
      expect(dollars).toMatch(/^\$[\d,]+\.\d\d$/);
    }
    // A date that does not exist is refused with the column, format and line.
    const bad = dir.file('bad.csv', 'us,dollars\n02/30/2023,$1\n');
    await expect(loadCsv(bad, { schema })).rejects.toThrow(
      /not a valid date in the format %m\/%d\/%Y in column "us"/,
    );
    const late = dir.file('late.csv', 'us,dollars\n01/01/2025,$1\n');
    await expect(loadCsv(late, { schema })).rejects.toThrow(
      /range \[01\/01\/2022, 12\/31\/2024\] of column "us"/,
    );
  });

  it('names a bound that is not a date of the declared format', () => {
    const column = (lower: string) =>
      JSON.stringify({
        version: 1,
        origin: 'declared',
        columns: [
          {
            name: 'd',
            kind: 'numeric',
            temporal: { kind: 'date', format: '%Y-%m-%d' },
            lower,
            upper: '2024-01-01',
            bins: 2,
          },
          { name: 'x', kind: 'categorical', categories: ['a'] },
        ],
      });
    expect(() => parseSchemaJson(column('2023-02-30'), 's.json')).toThrow(
      /columns\[0\] \("d"\)\.lower: "2023-02-30" is not a valid date in the format %Y-%m-%d/,
    );
    expect(() => parseSchemaJson(column('2023-01-01'), 's.json')).not.toThrow();
  });
});

/** A reproducible uniform source for decoding in tests. */
function seededUniform(seed: number): () => number {
  const noise = seededNoise(`decode-${seed}`);
  return () => noise.uniform();
}
