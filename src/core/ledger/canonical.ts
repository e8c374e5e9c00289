/** Canonical JSON and SHA-256: the byte strings the hash chain is computed over. */
import { createHash } from 'node:crypto';
import { InputError } from '../errors.ts';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * JSON with object keys sorted (recursively) and undefined members dropped, so equal values
 * always hash the same. Non-finite numbers are refused rather than silently written as null.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalize(value, '$'));
}

function canonicalize(value: unknown, where: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new InputError(`${where} must be a finite number to be recorded, got ${value}`);
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => canonicalize(v, `${where}[${i}]`));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = canonicalize(member, `${where}.${key}`);
    }
    return out;
  }
  throw new InputError(`${where} cannot be recorded in the ledger (a ${typeof value})`);
}
