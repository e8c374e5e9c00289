/**
 * Errors crossing the ledger worker's message channel: structured clone keeps only an Error's
 * message, so each class the services tell apart (input, budget refusal, ledger problems) is
 * sent as data and rebuilt on the other side.
 */
import { BudgetRefusedError, InputError } from '../core/errors.ts';
import { LedgerAnchorError, LedgerError, type LedgerProblem } from '../core/ledger/errors.ts';

export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly where?: Readonly<Record<string, string | number>>;
  readonly remainingRho?: number;
  readonly remainingEpsilon?: number;
  readonly problem?: LedgerProblem;
  readonly file?: string;
  readonly anchorFile?: string;
}

export function serializeError(err: unknown): SerializedError {
  if (err instanceof LedgerAnchorError)
    return {
      name: err.name,
      message: err.message,
      file: err.file,
      anchorFile: err.anchorFile,
      problem: 'anchor',
    };
  if (err instanceof LedgerError)
    return { name: 'LedgerError', message: err.message, file: err.file, problem: err.problem };
  if (err instanceof BudgetRefusedError)
    return {
      name: err.name,
      message: err.message,
      remainingRho: err.remainingRho,
      remainingEpsilon: err.remainingEpsilon,
    };
  if (err instanceof InputError) return { name: err.name, message: err.message, where: err.where };
  const e = err as Error;
  return { name: e?.name ?? 'Error', message: e?.message ?? String(err) };
}

export function deserializeError(s: SerializedError): Error {
  switch (s.name) {
    case 'LedgerAnchorError':
      return new LedgerAnchorError(s.file ?? '', s.anchorFile ?? '', s.message);
    case 'LedgerError':
      return new LedgerError(s.problem ?? 'corrupt', s.file ?? '', s.message);
    case 'BudgetRefusedError':
      return new BudgetRefusedError(s.message, s.remainingRho ?? 0, s.remainingEpsilon ?? 0);
    case 'InputError':
      return new InputError(s.message, s.where ?? {});
    default:
      return Object.assign(new Error(s.message), { name: s.name });
  }
}
