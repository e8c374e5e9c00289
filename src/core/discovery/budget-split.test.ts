import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { epsilonFromRho, rhoFromEpsilon } from '../privacy/accounting.ts';
import { PARTITION_DELTA_SHARE, splitBudget } from './budget-split.ts';

describe('splitBudget', () => {
  it('spends exactly (ε, δ): ρ_disc + ρ_synth = ρ(ε, 0.9δ), δ_disc + 0.9δ = δ (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        fc.double({ min: -14, max: -4, noNaN: true }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        (epsilon, logDelta, share) => {
          const delta = 10 ** logDelta;
          const b = splitBudget(epsilon, delta, share, true);
          expect(b.rhoDiscovery + b.rhoSynthesis).toBeCloseTo(b.rho, 15);
          expect(b.rhoDiscovery / b.rho).toBeCloseTo(share, 12);
          expect((b.deltaDiscovery + b.engineDelta) / delta).toBeCloseTo(1, 14);
          const engineRho = rhoFromEpsilon(b.engineEpsilon, b.engineDelta);
          expect(engineRho).toBeLessThanOrEqual(b.rhoSynthesis);
          expect(engineRho / b.rhoSynthesis).toBeCloseTo(1, 9);
          // The whole run's claim converts back to ε at the conversion's δ.
          expect(b.deltaDiscovery / (delta * PARTITION_DELTA_SHARE)).toBeCloseTo(1, 12);
          expect(epsilonFromRho(b.rho, delta - b.deltaDiscovery) / epsilon).toBeCloseTo(1, 9);
        },
      ),
    );
  });

  it('without discovery, the engine gets (ε, δ) as asked', () => {
    const b = splitBudget(1, 1e-9, 0.2, false);
    expect(b).toMatchObject({ engineEpsilon: 1, engineDelta: 1e-9, rhoDiscovery: 0, deltaDiscovery: 0 });
    expect(b.rhoSynthesis).toBe(rhoFromEpsilon(1, 1e-9));
  });
});
