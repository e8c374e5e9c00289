/**
 * A release's (ε, δ) split between private domain discovery and synthesis, from public inputs
 * only. With discovery, δ is halved: δ/2 for partition selection (the approximate-zCDP part) and
 * δ/2 for the conversion ρ → (ε, δ); so ρ = ρ(ε, δ/2), discovery gets share·ρ and the engine the
 * rest, which it is given as the ε that converts back to exactly that ρ at δ/2. Without
 * discovery (every column declared) nothing changes: ρ = ρ(ε, δ), all of it for the engine.
 */
import { epsilonFromRho, rhoFromEpsilon } from '../privacy/accounting.ts';

export interface ReleaseBudget {
  readonly epsilon: number;
  readonly delta: number;
  /** ρ of the whole release. */
  readonly rho: number;
  readonly rhoDiscovery: number;
  readonly rhoSynthesis: number;
  /** δ of partition selection (0 without discovery). */
  readonly deltaDiscovery: number;
  /** The (ε, δ) the engine is run with: it converts to exactly rhoSynthesis. */
  readonly engineEpsilon: number;
  readonly engineDelta: number;
}

export function splitBudget(
  epsilon: number,
  delta: number,
  share: number,
  discovers: boolean,
): ReleaseBudget {
  if (!discovers) {
    const rho = rhoFromEpsilon(epsilon, delta);
    return {
      epsilon,
      delta,
      rho,
      rhoDiscovery: 0,
      rhoSynthesis: rho,
      deltaDiscovery: 0,
      engineEpsilon: epsilon,
      engineDelta: delta,
    };
  }
  if (!(share > 0 && share < 1)) throw new RangeError(`the discovery share must be in (0, 1), got ${share}`);
  const half = delta / 2;
  const rho = rhoFromEpsilon(epsilon, half);
  const rhoDiscovery = share * rho;
  const rhoSynthesis = rho - rhoDiscovery;
  // The engine turns its ε back into ρ at δ/2; a hair below ρ_synth keeps that round trip from
  // ever exceeding what was reserved.
  const engineEpsilon = epsilonFromRho(rhoSynthesis * (1 - 1e-12), half);
  if (!(engineEpsilon > 0)) {
    throw new RangeError(`the budget (ε = ${epsilon}, δ = ${delta}) is too small to split for discovery`);
  }
  return {
    epsilon,
    delta,
    rho,
    rhoDiscovery,
    rhoSynthesis,
    deltaDiscovery: delta - half,
    engineEpsilon,
    engineDelta: half,
  };
}

/**
 * What discovering one column costs: discovery's ρ and δ split equally over the undeclared
 * columns (ρ_c = ρ_disc/d_u, δ_c = δ_disc/d_u; docs/privacy.md). The one place that split is
 * written: discovery spends it, and the ledger event, the manifest and the app's screens state it.
 */
export function discoveryPerColumn(
  budget: Pick<ReleaseBudget, 'rhoDiscovery' | 'deltaDiscovery'>,
  undeclared: number,
): { readonly rho: number; readonly delta: number } {
  if (undeclared <= 0) return { rho: 0, delta: 0 };
  return { rho: budget.rhoDiscovery / undeclared, delta: budget.deltaDiscovery / undeclared };
}
