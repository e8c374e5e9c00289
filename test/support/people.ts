/**
 * The "people" test table the format and database release tests share: age (integer), city (text),
 * income (integer, every 17th missing), smoker (text). Public, made-up values; the Stata and SAS
 * fixtures (test/unit/formats/fixtures/people.*) were written from its first 300 rows. With it, the
 * arguments of a small, quick, seeded synth run over it.
 */

/** Its first `n` rows, a missing income as null. */
export function peopleRows(n: number): (string | number | null)[][] {
  return Array.from({ length: n }, (_, i) => [
    18 + ((i * 7) % 60),
    ['Oslo', 'Lima', 'Pune'][i % 3],
    i % 17 === 0 ? null : (i * 9173) % 90_000,
    i % 4 === 0 ? 'daily' : 'never',
  ]);
}

/** Its first `n` rows as a CSV with a header, a missing income as an empty field. */
export function peopleCsv(n: number): string {
  const lines = ['age,city,income,smoker', ...peopleRows(n).map((r) => r.map((v) => v ?? '').join(','))];
  return `${lines.join('\n')}\n`;
}

/** Two 2-way marginals over its four columns, weight 1. */
export const PEOPLE_WORKLOAD = {
  thresholds: [
    { features: ['age', 'city'], r: 2, weight: 1 },
    { features: ['income', 'smoker'], r: 2, weight: 1 },
  ],
};

/** A small, quick, seeded (insecure) synth run from `data` with workload w.json, a budget of ε = 10 confirmed. */
export const synth = (data: string, ledger: string, out: string, extra: string[] = [], epsilon = '2') => [
  'synth',
  ...['--data', data, '--workload', 'w.json', '--epsilon', epsilon, '--rows', '30', '--oversample', '2'],
  ...['--max-steps', '20', '--threads', '1', '--out', out, '--ledger', ledger],
  ...['--seed', '5', '--insecure-seed', '--budget-epsilon', '10', '--budget-delta', '1e-5', '--confirm-cap'],
  ...extra,
];

/** The synth arguments without the budget they would set (--budget-epsilon, --budget-delta, --confirm-cap). */
export const withoutBudget = (args: string[]): string[] =>
  args.filter(
    (a, i, all) =>
      !['--budget-epsilon', '--budget-delta', '--confirm-cap'].includes(a) &&
      !['--budget-epsilon', '--budget-delta'].includes(all[i - 1]),
  );
