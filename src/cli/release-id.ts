/**
 * The release a CLI argument names: its full id, or a unique prefix of at least four characters
 * (ids are long; `ledger list` shows them). `ledger show` and `report` resolve ids
 * here so that every command accepts and refuses the same abbreviations with the same message.
 */
import { InputError } from '../core/errors.ts';
import type { Ledger } from '../core/ledger/ledger.ts';
import type { ReleaseRecord } from '../core/ledger/types.ts';

export function findRelease(l: Ledger, id: string): ReleaseRecord {
  const exact = l.release(id);
  if (exact) return exact;
  const matches = id.length >= 4 ? l.releases().filter((r) => r.id.startsWith(id)) : [];
  if (matches.length === 1) return matches[0];
  const why =
    matches.length > 1 ? `matches ${matches.length} releases; give more of it` : 'matches no release';
  throw new InputError(`Release id ${JSON.stringify(id)} ${why} (see \`rap-studio ledger list\`).`, { id });
}
