/**
 * A release's (ε, δ) split between private domain discovery and synthesis, from public inputs
 * only. With discovery, δ is split: PARTITION_DELTA_SHARE·δ for partition selection (the
 * approximate-zCDP part) and the rest for the conversion ρ → (ε, δ); so ρ = ρ(ε, δ_conv),
 * discovery gets share·ρ and the engine the rest, which it is given as the ε that converts back
 * to exactly that ρ at δ_conv. Without discovery (every column declared) nothing changes:
 * ρ = ρ(ε, δ), all of it for the engine.
 */
import type { Hierarchy } from '../data/hierarchy.ts';
import { epsilonFromRho, rhoFromEpsilon } from '../privacy/accounting.ts';

/**
 * Partition selection's share of a discovery release's δ: 1/10 (it was 1/2 before the ledger
 * charged it, issue 26). The ledger admits releases while the partition-selection δ's add up to
 * less than the cap's δ, so with the defaults (a run's δ = the cap's δ = 1/n²) a share of 1/2
 * paid for ONE discovery release per dataset; 1/10 pays for nine, each converting its ρ at 0.9·δ
 * (more ρ than at δ/2). The threshold's cost: Q⁻¹ of a 5× smaller probability, about +0.15σ at
 * δ = 1e-9 (a category needs a slightly larger count to be released).
 */
export const PARTITION_DELTA_SHARE = 0.1;

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
  const deltaDiscovery = delta * PARTITION_DELTA_SHARE;
  const conversion = delta - deltaDiscovery;
  const rho = rhoFromEpsilon(epsilon, conversion);
  const rhoDiscovery = share * rho;
  const rhoSynthesis = rho - rhoDiscovery;
  // The engine turns its ε back into ρ at δ_conv; a hair below ρ_synth keeps that round trip from
  // ever exceeding what was reserved.
  const engineEpsilon = epsilonFromRho(rhoSynthesis * (1 - 1e-12), conversion);
  if (!(engineEpsilon > 0)) {
    throw new RangeError(`the budget (ε = ${epsilon}, δ = ${delta}) is too small to split for discovery`);
  }
  return {
    epsilon,
    delta,
    rho,
    rhoDiscovery,
    rhoSynthesis,
    deltaDiscovery,
    engineEpsilon,
    engineDelta: conversion,
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

/**
 * Discovery's shares: a hierarchical column takes one share per level (each level is a
 * measurement of its own, as a plain column's is: discovery/hierarchical.ts), every other
 * undeclared column one. `total` replaces the column count in discoveryPerColumn, and a column's
 * ρ and δ are its `weight` times that (so the shares still add up to discovery's ρ and δ).
 */
export function discoveryShares(
  undeclared: readonly string[],
  hierarchies: Readonly<Record<string, Hierarchy>> = {},
): { readonly total: number; weight(name: string): number } {
  const weight = (name: string) => (Object.hasOwn(hierarchies, name) ? hierarchies[name].levels.length : 1);
  return { total: undeclared.reduce((a, name) => a + weight(name), 0), weight };
}

/** One undeclared column's ρ and δ (discoveryPerColumn over the shares, times its weight). */
export function discoveryForColumn(
  budget: Pick<ReleaseBudget, 'rhoDiscovery' | 'deltaDiscovery'>,
  undeclared: readonly string[],
  hierarchies: Readonly<Record<string, Hierarchy>> | undefined,
  name: string,
): { readonly rho: number; readonly delta: number } {
  const shares = discoveryShares(undeclared, hierarchies);
  const each = discoveryPerColumn(budget, shares.total);
  const w = shares.weight(name);
  return { rho: each.rho * w, delta: each.delta * w };
}
