/**
 * What the docs must state (issue 26): the unit of privacy, the header rule, the rule for rows of
 * the wrong width and the policy for formula-like values in docs/privacy.md; and the table budget's
 * comment cites the zCDP filter, not plain composition, for its adaptive schedule.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

describe('docs state the rules', () => {
  const privacy = read('docs/privacy.md').replace(/\s+/g, ' ');

  it('docs/privacy.md: without a unit column the unit of privacy is one CSV row', () => {
    expect(privacy).toContain('Without a unit column the unit of privacy is one CSV row.');
    expect(privacy).toMatch(/k²ρ-zCDP for k rows/);
  });

  it('docs/privacy.md: the header rule (never a guessed header; --header yes|no; column_1…)', () => {
    expect(privacy).toContain('### The header rule: column names');
    expect(privacy).toMatch(/never from a guess/);
    expect(privacy).toMatch(/`--header yes\|no`/);
    expect(privacy).toMatch(/`column_1`, `column_2`/);
  });

  it('docs/privacy.md: one rule for rows of the wrong width, and the CSV-injection policy', () => {
    expect(privacy).toContain('kept as a record with every value missing, in the CLI and in the app alike');
    expect(privacy).toMatch(/written with a leading apostrophe/);
  });

  it('table-mode/rho-schedule.ts cites the zCDP filter for the adaptive schedule', () => {
    const budget = read('src/core/engine/table-mode/rho-schedule.ts').replace(/\s*\n\s*\*\s*/g, ' ');
    expect(budget).not.toContain('adaptive zCDP composition with this fixed total');
    expect(budget).toMatch(/privacy filter/);
    expect(budget).toMatch(/Feldman & Zrnic 2021/);
  });
});
