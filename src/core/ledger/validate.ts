/** Checks on what callers hand the ledger, as InputErrors naming the field and value. */
import { InputError } from '../errors.ts';
import { assertEpsilonDelta, rhoFromEpsilon } from '../privacy/accounting.ts';
import { canonicalJson } from './canonical.ts';
import type { ReservedPayload } from './events.ts';
import { type ReserveRequest, SCHEMA_ORIGINS } from './types.ts';

const HEX64 = /^[0-9a-f]{64}$/;

/** ε, ρ and δ of one release must agree through accounting.ts to this relative precision. */
const CONVERSION_TOLERANCE = 1e-9;

export function assertFingerprint(fingerprint: unknown): asserts fingerprint is string {
  if (typeof fingerprint !== 'string' || !HEX64.test(fingerprint)) {
    throw new InputError(
      `fingerprint must be the SHA-256 of the dataset file as 64 lower-case hex digits, got ${JSON.stringify(fingerprint)}`,
      { field: 'fingerprint' },
    );
  }
}

export function assertSha256(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || !HEX64.test(value)) {
    throw new InputError(
      `${field} must be a SHA-256 as 64 lower-case hex digits, got ${JSON.stringify(value)}`,
      {
        field,
      },
    );
  }
}

export function assertText(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InputError(`${field} must be a non-empty string, got ${JSON.stringify(value)}`, { field });
  }
}

export function assertRows(value: unknown, field: string, min: 0 | 1): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InputError(`${field} must be an integer >= ${min}, got ${String(value)}`, { field });
  }
}

/** assertEpsilonDelta, reported as bad input. */
export function assertBudget(epsilon: number, delta: number): void {
  try {
    assertEpsilonDelta(epsilon, delta);
  } catch (err) {
    throw new InputError((err as Error).message, { field: 'epsilon/delta' });
  }
}

function assertPositive(value: unknown, field: string, integer: boolean): void {
  const ok =
    typeof value === 'number' && Number.isFinite(value) && value > 0 && (!integer || Number.isInteger(value));
  if (!ok) {
    throw new InputError(
      `${field} must be a ${integer ? 'positive integer' : 'finite number > 0'}, got ${String(value)}`,
      {
        field,
      },
    );
  }
}

/** Validates a reservation and returns the event payload it will be recorded as. */
export function reservePayload(id: string, req: ReserveRequest): ReservedPayload {
  assertFingerprint(req.fingerprint);
  if (req.fileFingerprint !== undefined) assertFingerprint(req.fileFingerprint);
  assertText(req.mechanism, 'mechanism');
  assertBudget(req.epsilon, req.delta);
  assertPositive(req.rho, 'rho', false);
  const approxDelta = req.approxDelta ?? 0;
  if (!(typeof approxDelta === 'number' && approxDelta >= 0 && approxDelta < req.delta)) {
    throw new InputError(
      `approxDelta (the δ of partition selection) must be a number in [0, delta=${req.delta}), got ${String(approxDelta)}`,
      { field: 'approxDelta' },
    );
  }
  // Compared in ρ, which is what the engine computes from (ε, δ) and what the gate adds up: a
  // δₐ-approximately ρ-zCDP release is (ε, δ)-DP with ρ = ρ(ε, δ − δₐ).
  const implied = rhoFromEpsilon(req.epsilon, req.delta - approxDelta);
  if (Math.abs(implied - req.rho) > CONVERSION_TOLERANCE * implied) {
    throw new InputError(
      `epsilon=${req.epsilon} at delta=${req.delta}${approxDelta > 0 ? ` less approxDelta=${approxDelta}` : ''} buys rho=${implied}, not the rho=${req.rho} requested: ` +
        'compute rho with rhoFromEpsilon (src/core/privacy/accounting.ts)',
      { field: 'rho' },
    );
  }
  const p = req.params ?? ({} as ReserveRequest['params']);
  assertPositive(p.rounds, 'params.rounds', true);
  assertPositive(p.perRound, 'params.perRound', true);
  assertPositive(p.rows, 'params.rows', true);
  assertPositive(p.oversample, 'params.oversample', false);
  canonicalJson(p); // throws on values JSON cannot carry faithfully
  assertText(req.workload?.hash, 'workload.hash');
  if (typeof req.workload.json !== 'string')
    throw new InputError('workload.json must be the workload as JSON text');
  assertText(req.schema?.hash, 'schema.hash');
  if (!SCHEMA_ORIGINS.includes(req.schema.origin)) {
    throw new InputError(
      `schema.origin must be one of ${SCHEMA_ORIGINS.map((o) => `'${o}'`).join(', ')}, got ${JSON.stringify(req.schema.origin)}`,
    );
  }
  if (req.seedMode !== 'secure' && req.seedMode !== 'insecure-seed') {
    throw new InputError(`seedMode must be 'secure' or 'insecure-seed', got ${JSON.stringify(req.seedMode)}`);
  }
  assertText(req.backend, 'backend');
  assertText(req.appVersion, 'appVersion');
  return {
    id,
    fingerprint: req.fingerprint,
    mechanism: req.mechanism,
    epsilon: req.epsilon,
    delta: req.delta,
    rho: req.rho,
    approxDelta,
    ...(req.fileFingerprint !== undefined && req.fileFingerprint !== req.fingerprint
      ? { fileFingerprint: req.fileFingerprint }
      : {}),
    params: p,
    workload: { hash: req.workload.hash, json: req.workload.json },
    schema: { hash: req.schema.hash, origin: req.schema.origin },
    seedMode: req.seedMode,
    backend: req.backend,
    appVersion: req.appVersion,
  };
}
