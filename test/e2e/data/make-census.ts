/**
 * Writes census.csv, the e2e flows' vendored table: ADULT's 15 columns and category names (public:
 * the UCI adult.names codebook), every value drawn by a fixed generator from made-up marginals with
 * a few dependencies (education-num follows education, relationship follows sex, income follows
 * education and hours). It is not a sample of any real data. Regenerate (byte-identical):
 *   npx tsx test/e2e/data/make-census.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ADULT_DOMAIN } from '../../support/adult.ts';
import { mulberry32 } from '../../support/prng.ts';

export const CENSUS_ROWS = 2000;

const EDUCATION: [string, number, number][] = [
  // name, education-num, weight
  ['Preschool', 1, 1],
  ['1st-4th', 2, 2],
  ['5th-6th', 3, 3],
  ['7th-8th', 4, 5],
  ['9th', 5, 4],
  ['10th', 6, 8],
  ['11th', 7, 10],
  ['12th', 8, 4],
  ['HS-grad', 9, 90],
  ['Some-college', 10, 60],
  ['Assoc-voc', 11, 12],
  ['Assoc-acdm', 12, 10],
  ['Bachelors', 13, 45],
  ['Masters', 14, 15],
  ['Prof-school', 15, 5],
  ['Doctorate', 16, 4],
];
const WORKCLASS: [string, number][] = [
  ['Private', 70],
  ['Self-emp-not-inc', 8],
  ['Local-gov', 6],
  ['?', 5],
  ['State-gov', 4],
  ['Self-emp-inc', 3],
  ['Federal-gov', 3],
  ['Without-pay', 0.5],
  ['Never-worked', 0.5],
];
const MARITAL: [string, number][] = [
  ['Married-civ-spouse', 46],
  ['Never-married', 33],
  ['Divorced', 14],
  ['Separated', 3],
  ['Widowed', 3],
  ['Married-spouse-absent', 1],
];
const OCCUPATION: [string, number][] = [
  ['Prof-specialty', 13],
  ['Craft-repair', 13],
  ['Exec-managerial', 12],
  ['Adm-clerical', 12],
  ['Sales', 11],
  ['Other-service', 10],
  ['Machine-op-inspct', 6],
  ['?', 6],
  ['Transport-moving', 5],
  ['Handlers-cleaners', 4],
  ['Farming-fishing', 3],
  ['Tech-support', 3],
  ['Protective-serv', 2],
];
const RACE: [string, number][] = [
  ['White', 55],
  ['Black', 22],
  ['Asian-Pac-Islander', 18],
  ['Amer-Indian-Eskimo', 3],
  ['Other', 2],
];
const COUNTRY: [string, number][] = [
  ['United-States', 85],
  ['Mexico', 5],
  ['?', 3],
  ['Philippines', 2],
  ['Germany', 2],
  ['Canada', 2],
  ['India', 1],
];

function pick<T>(
  random: () => number,
  items: readonly (readonly [T, ...unknown[]])[],
  weight: (x: readonly unknown[]) => number,
): T {
  const total = items.reduce((s, x) => s + weight(x), 0);
  let u = random() * total;
  for (const x of items) {
    u -= weight(x);
    if (u < 0) return x[0];
  }
  return items[items.length - 1][0];
}

export function censusCsv(rows = CENSUS_ROWS, seed = 20_261_125): string {
  // A small seeded generator (mulberry32): the file must not change between runs.
  const random = mulberry32(seed);
  const w = (x: readonly unknown[]) => x[x.length - 1] as number;
  const lines = [
    'age, workclass, fnlwgt, education, education-num, marital-status, occupation, relationship, race, sex, capital-gain, capital-loss, hours-per-week, native-country, classification',
  ];
  for (let i = 0; i < rows; i++) {
    const age = 17 + (Math.floor(random() * random() * 74 + random() * 10) % 74);
    const education = pick(random, EDUCATION, w);
    const num = EDUCATION.find((e) => e[0] === education)![1];
    const sex = random() < 0.67 ? 'Male' : 'Female';
    const marital = pick(random, MARITAL, w);
    const married = marital === 'Married-civ-spouse';
    const relationship = married
      ? sex === 'Male'
        ? 'Husband'
        : 'Wife'
      : pick(
          random,
          [
            ['Not-in-family', 50],
            ['Own-child', 30],
            ['Unmarried', 15],
            ['Other-relative', 5],
          ] as const,
          w,
        );
    const hours = Math.max(
      1,
      Math.min(99, Math.round(40 + (random() - 0.5) * 30 + (random() < 0.1 ? 20 : 0))),
    );
    const gain = random() < 0.08 ? Math.round(1000 + random() * 20_000) : 0;
    const loss = random() < 0.05 ? Math.round(1000 + random() * 2000) : 0;
    const rich =
      random() < 0.05 + 0.04 * Math.max(0, num - 9) + (hours > 45 ? 0.1 : 0) + (married ? 0.15 : 0);
    lines.push(
      [
        age,
        pick(random, WORKCLASS, w),
        Math.round(20_000 + random() * 400_000),
        education,
        num,
        marital,
        pick(random, OCCUPATION, w),
        relationship,
        pick(random, RACE, w),
        sex,
        gain,
        loss,
        hours,
        pick(random, COUNTRY, w),
        rich ? '>50K' : '<=50K',
      ].join(', '),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The benchmark format's domain (ADULT's public column sizes): every column integer-coded 0…size−1. */
export const CENSUS_DOMAIN = ADULT_DOMAIN;

/**
 * The same table in the benchmark format (census-coded.csv with census-domain.json): categories
 * by their order of appearance, numbers clamped into their range or cut into equal-width bins.
 */
export function censusCodedCsv(raw = censusCsv()): string {
  const [head, ...rows] = raw.trim().split('\n');
  const names = head.split(', ');
  const seen = names.map(() => new Map<string, number>());
  const code = (column: string, j: number, value: string): number => {
    const x = Number(value);
    switch (column) {
      case 'age':
        return Math.min(84, Math.max(0, x - 17));
      case 'fnlwgt':
        return Math.min(99, Math.floor(x / 5000));
      case 'education-num':
      case 'hours-per-week':
        return x - 1;
      case 'capital-gain':
        return Math.min(99, Math.floor(x / 1000));
      case 'capital-loss':
        return Math.min(99, Math.floor(x / 100));
      default: {
        const m = seen[j];
        if (!m.has(value)) m.set(value, m.size);
        return m.get(value)!;
      }
    }
  };
  const keep = names.map((n) => (n === 'classification' ? 'income>50K' : n)).filter((n) => n !== 'education');
  const out = rows.map((line) => {
    const values = line.split(', ');
    return names
      .map((n, j) =>
        n === 'education' ? null : code(n === 'classification' ? 'income>50K' : n, j, values[j]),
      )
      .filter((v) => v !== null)
      .join(',');
  });
  return `${keep.join(',')}\n${out.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const raw = censusCsv();
  writeFileSync(new URL('./census.csv', import.meta.url), raw);
  writeFileSync(new URL('./census-coded.csv', import.meta.url), censusCodedCsv(raw));
  writeFileSync(new URL('./census-domain.json', import.meta.url), `${JSON.stringify(CENSUS_DOMAIN)}\n`);
}
