/**
 * The expected loss of private discovery, from public inputs only (ε, δ, the share, how many
 * columns are discovered), so screens and `synth --dry-run` can say it before anything is
 * reserved or any value is read: a categorical column's partition selection releases a category
 * of c records with probability Q((τ − c)/σ) (partition-selection.ts), so categories held by
 * fewer than about τ records merge into "(other)" — and "(other)" itself is released only when
 * its noisy count passes OTHER_SIGMAS of its σ (categorical.ts), else its records join the
 * largest category. A column is categorical or numeric as discovery finds it (private), so the
 * sentence is said of every discovered column, "if categorical".
 */
import { type Hierarchy, publicFanout } from '../data/hierarchy.ts';
import { DEFAULT_MISSING_MARKERS } from '../data/values.ts';
import { makeGaussianCounts } from '../privacy/counts.ts';
import { makePartitionSelection } from '../privacy/partition-selection.ts';
import {
  discoveryForColumn,
  discoveryPerColumn,
  discoveryShares,
  type ReleaseBudget,
} from './budget-split.ts';
import { OTHER_SIGMAS } from './categorical.ts';
import { LEVEL1_SHARE } from './discover.ts';
import { LEVEL_SENSITIVITY, levelShares, publicThreshold } from './hierarchical.ts';

export interface ColumnLossPreview {
  readonly name: string;
  /** τ: a category of this many records is released half the time; fewer merge into "(other)". */
  readonly mergeBelow: number;
  /** Noise σ of a category's count in partition selection. */
  readonly sigma: number;
  /** "(other)" (with k categories released) needs a noisy count above otherSigmas·σ·√k. */
  readonly otherSigmas: number;
}

/** Per discovered column, what partition selection will merge (the same split discovery spends). */
export function discoveryLossPreview(
  budget: Pick<ReleaseBudget, 'rhoDiscovery' | 'deltaDiscovery'>,
  undeclared: readonly string[],
  /** Hierarchical columns take a share per level (budget.ts): a plain column's share is smaller. */
  hierarchies?: Readonly<Record<string, Hierarchy>>,
): ColumnLossPreview[] {
  if (undeclared.length === 0) return [];
  const each = discoveryPerColumn(budget, discoveryShares(undeclared, hierarchies).total);
  const sel = makePartitionSelection((1 - LEVEL1_SHARE) * each.rho, each.delta);
  return undeclared.map((name) => ({
    name,
    mergeBelow: sel.threshold,
    sigma: sel.sigma,
    otherSigmas: OTHER_SIGMAS,
  }));
}

/** "about N": two significant digits, a plain integer. */
export function aboutRecords(x: number): string {
  const rounded = Number(Math.ceil(x).toPrecision(2));
  return rounded.toLocaleString('en-US');
}

/** The plain-words sentence for one column. */
export function lossSentence(p: ColumnLossPreview, epsilon: number): string {
  return (
    `${p.name}: at ε = ${epsilon}, categories held by fewer than about ${aboutRecords(p.mergeBelow)} ` +
    'records merge into "(other)" (if the column is categorical) — declare the column to keep them'
  );
}

export interface LevelPreview {
  readonly level: number;
  readonly length: number | 'full';
  readonly mechanism: 'public-histogram' | 'partition-selection';
  readonly sigma: number;
  /** τ_l (a public level's at its largest candidate list: the bound a merge is said against). */
  readonly mergeBelow: number;
}

/**
 * A hierarchical column's levels before the run (hierarchical.ts: the column's ρ split by the
 * levels' shares, its δ equally; a public level's τ at its most candidates, every key above
 * passing).
 */
export function hierarchyPreview(
  budget: Pick<ReleaseBudget, 'rhoDiscovery' | 'deltaDiscovery'>,
  undeclared: readonly string[],
  hierarchies: Readonly<Record<string, Hierarchy>>,
  name: string,
): LevelPreview[] {
  const hierarchy = hierarchies[name];
  const each = discoveryForColumn(budget, undeclared, hierarchies, name);
  const L = hierarchy.levels.length;
  const shares = levelShares(hierarchy);
  let candidates: number | undefined = 1;
  return hierarchy.levels.map((lv, l) => {
    const fanout = publicFanout(hierarchy, l);
    candidates =
      fanout !== undefined && candidates !== undefined
        ? candidates * fanout + (l === 0 ? DEFAULT_MISSING_MARKERS.length : 0)
        : undefined;
    if (candidates !== undefined) {
      const sigma = makeGaussianCounts(each.rho * shares[l], LEVEL_SENSITIVITY).sigma;
      return {
        level: l,
        length: lv.length,
        mechanism: 'public-histogram',
        sigma,
        mergeBelow: publicThreshold(sigma, candidates, l),
      };
    }
    const sel = makePartitionSelection(each.rho * shares[l], each.delta / L);
    return {
      level: l,
      length: lv.length,
      mechanism: 'partition-selection',
      sigma: sel.sigma,
      mergeBelow: sel.threshold,
    };
  });
}

/** Per level, in plain words: which keys merge into the level above (or "(other)"). */
export function hierarchySentences(name: string, levels: readonly LevelPreview[], epsilon: number): string[] {
  return levels.map((p) => {
    const what = p.length === 'full' ? 'full codes' : `${p.length}-character prefixes`;
    const into = p.level === 0 ? '"(other)"' : 'their released prefix one level up';
    return (
      `${name} level ${p.level + 1} (${what}): at ε = ${epsilon}, keys held by fewer than about ` +
      `${aboutRecords(p.mergeBelow)} records merge into ${into}`
    );
  });
}
