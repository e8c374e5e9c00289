/**
 * Case ids, seed expansion and `--filter`. An id reads like a path of the case's settings,
 * e.g. `adult/3of3/W16/eps0.1/T=def/K=def/query/s0`, so a filter is a plain substring.
 */
import type { BenchArgs } from './args.ts';
import type { BenchCase } from './types.ts';

/** A case before seeding: what suite files write. */
export type CaseSpec = Omit<BenchCase, 'id' | 'group' | 'seed' | 'suite'>;

function setting(name: string, value: number | undefined): string {
  return `${name}=${value ?? 'def'}`;
}

/** The seedless part of the id: equal for runs that aggregate into one row. */
export function caseGroup(spec: CaseSpec): string {
  const w = spec.workload;
  return [
    spec.dataset,
    `${w.r}of${w.k}`,
    `W${w.size}${w.maxDomain !== undefined ? `dom${w.maxDomain}` : ''}`,
    ...(w.dist !== undefined && w.dist !== 'uniform' ? [w.dist] : []),
    `eps${spec.epsilon}`,
    ...(spec.delta !== undefined ? [`delta${spec.delta}`] : []),
    setting('T', spec.rounds),
    setting('K', spec.perRound),
    spec.mode,
    ...(spec.rows !== 1000 ? [`rows${spec.rows}`] : []),
    ...(spec.selection === 'iterative' ? ['AS'] : []),
    ...(spec.relaxation === 'softmax' ? ['softmax'] : []),
    ...(spec.future ? [`future${spec.future.size}x${spec.future.perDrift}`] : []),
    ...(spec.future?.importance ? [`imp-${spec.future.importance}`] : []),
  ].join('/');
}

/** Every spec once per seed, in spec order then seed order; duplicate specs are dropped. */
export function withSeeds(suite: string, specs: readonly CaseSpec[], seeds: readonly number[]): BenchCase[] {
  const seen = new Set<string>();
  const cases: BenchCase[] = [];
  for (const spec of specs) {
    const group = caseGroup(spec);
    if (seen.has(group)) continue;
    seen.add(group);
    for (const seed of seeds) cases.push({ ...spec, suite, group, seed, id: `${group}/s${seed}` });
  }
  return cases;
}

/** Seeds 0..count−1. */
export function seedList(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}

/**
 * A case passes when every term matches; a term matches when one of its comma-separated
 * alternatives is a substring of `/id/` (the slashes let `/W1/` match exactly |W| = 1). A term
 * starting with `!` matches when none of its alternatives does.
 */
export function matchesFilter(id: string, terms: readonly string[]): boolean {
  const padded = `/${id}/`;
  return terms.every((term) => {
    const negated = term.startsWith('!');
    const hit = (negated ? term.slice(1) : term)
      .split(',')
      .filter((alt) => alt.length > 0)
      .some((alt) => padded.includes(alt));
    return hit !== negated;
  });
}

/** The cross product of two lists, for grids. */
export function grid<A, B>(as: readonly A[], bs: readonly B[]): [A, B][] {
  return as.flatMap((a) => bs.map((b): [A, B] => [a, b]));
}

/**
 * The cases a run selects: the suite's cases for `--seeds` (default the suite's own), kept where
 * every `--filter` term matches. Every runner selects through here, so `--list` and the run
 * agree on the ids for the same arguments.
 */
export function selectedCases<C extends { readonly id: string }>(
  suite: { readonly defaultSeeds: number; cases(seeds: readonly number[]): C[] },
  args: Pick<BenchArgs, 'seeds' | 'filter'>,
): C[] {
  return suite
    .cases(seedList(args.seeds ?? suite.defaultSeeds))
    .filter((c) => matchesFilter(c.id, args.filter));
}

/** `--list`: prints the selected ids, one a line, and says it did (the runner then stops). */
export function listedCases(
  cases: readonly { readonly id: string }[],
  args: Pick<BenchArgs, 'list'>,
): boolean {
  if (!args.list) return false;
  process.stdout.write(`${cases.map((c) => c.id).join('\n')}\n`);
  return true;
}
