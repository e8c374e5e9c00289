/**
 * Errors the curator can act on. Each message names the file/field/value at fault and what to
 * do next; the CLI maps them to exit codes and the app shows them in an error banner.
 */

/** Bad input (file, field, value). CLI exit code 2. */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    message: string,
    /** Where the problem is, e.g. { file: 'adult.csv', line: 12, column: 'age' }. */
    readonly where: Readonly<Record<string, string | number>> = {},
  ) {
    super(message);
  }
}

/** The privacy budget ledger refused the run. CLI exit code 3. */
export class BudgetRefusedError extends Error {
  override readonly name = 'BudgetRefusedError';
  constructor(
    message: string,
    readonly remainingRho: number,
    readonly remainingEpsilon: number,
  ) {
    super(message);
  }
}

export function exitCodeFor(err: unknown): 1 | 2 | 3 {
  if (err instanceof InputError) return 2;
  if (err instanceof BudgetRefusedError) return 3;
  return 1;
}
