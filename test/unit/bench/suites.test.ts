/** Suites expand to the cases the issue lists; ids, filters and options behave. */
import { describe, expect, it } from 'vitest';
import { BenchArgsError, parseBenchArgs } from '../../../bench/lib/args.ts';
import { caseGroup, matchesFilter, seedList, withSeeds } from '../../../bench/lib/cases.ts';
import { SUITES } from '../../../bench/suites/index.ts';

const cases = (name: string, seeds: number) => SUITES.get(name)!.cases(seedList(seeds));

describe('suites', () => {
  it('quick: ADULT, 16 random 3-way marginals at ε 0.1 and 1', () => {
    const qs = cases('quick', 1);
    expect(qs.map((c) => c.epsilon)).toEqual([0.1, 1]);
    for (const c of qs) {
      expect(c.dataset).toBe('adult');
      expect(c.workload).toEqual({ k: 3, r: 3, size: 16 });
      expect(c.rounds).toBeUndefined();
    }
  });

  it('paper: the |W| × ε sweep, the T × K grid and r-of-4, three seeds each', () => {
    const ps = cases('paper', 3);
    const groups = new Set(ps.map((c) => c.group));
    expect(groups.size).toBe(15 + 16 + 4);
    expect(ps).toHaveLength(3 * groups.size);
    const sweep = ps.filter((c) => c.rounds === undefined && c.workload.k === 3);
    expect(new Set(sweep.map((c) => `${c.workload.size}@${c.epsilon}`)).size).toBe(15);
    const tk = ps.filter((c) => c.rounds !== undefined);
    expect(new Set(tk.map((c) => `${c.rounds}x${c.perRound}`)).size).toBe(16);
    expect(ps.filter((c) => c.workload.k === 4).map((c) => c.workload.r)).toEqual([
      1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4,
    ]);
    expect(ps.every((c) => c.rows === 1000 && c.delta === undefined)).toBe(true);
  });

  it('scale-engine: LOANS-domain data, 64 1-of-4 thresholds, query mode at T = 64, K = 4 and table mode', () => {
    const [query, table, ...rest] = cases('scale-engine', 1);
    expect(rest).toEqual([]);
    expect(query).toMatchObject({
      dataset: 'loans-synthetic',
      rounds: 64,
      perRound: 4,
      mode: 'query',
      workload: { k: 4, r: 1, size: 64 },
    });
    expect(table).toMatchObject({ dataset: 'loans-synthetic', mode: 'table', workload: query.workload });
    expect(table.rounds).toBeUndefined();
  });

  it('every suite has unique ids', () => {
    for (const name of SUITES.keys()) {
      const ids = cases(name, 3).map((c) => c.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });
});

describe('cases', () => {
  const spec = {
    dataset: 'adult',
    workload: { k: 3, r: 3, size: 1 },
    epsilon: 0.1,
    rows: 1000,
    mode: 'query',
  } as const;

  it('seeds share a group, and duplicate specs are dropped', () => {
    const cs = withSeeds('s', [spec, { ...spec }], [0, 1]);
    expect(cs.map((c) => c.id)).toEqual([`${caseGroup(spec)}/s0`, `${caseGroup(spec)}/s1`]);
    expect(new Set(cs.map((c) => c.group)).size).toBe(1);
  });

  it('filters by substrings of /id/: all terms, any comma alternative', () => {
    const id = 'adult/3of3/W1/eps0.1/T=def/K=def/query/s0';
    expect(matchesFilter(id, [])).toBe(true);
    expect(matchesFilter(id, ['/W1/'])).toBe(true);
    expect(matchesFilter('adult/3of3/W16/eps0.1/T=def/K=def/query/s0', ['/W1/'])).toBe(false);
    expect(matchesFilter(id, ['/W1/', 'eps1/'])).toBe(false);
    expect(matchesFilter(id, ['/W1/', 'eps1/,eps0.1/'])).toBe(true);
    expect(matchesFilter(id, ['/s0/'])).toBe(true);
    expect(matchesFilter(id, ['!/W1/'])).toBe(false);
    expect(matchesFilter(id, ['!T=64,/W16/'])).toBe(true);
  });
});

describe('parseBenchArgs', () => {
  it('has defaults', () => {
    expect(parseBenchArgs([])).toMatchObject({
      suite: 'quick',
      filter: [],
      profile: false,
      latest: true,
      list: false,
    });
  });

  it('reads every option', () => {
    const a = parseBenchArgs(
      '--suite scale --out o --seeds 2 --filter a --filter b --max-rounds 4 --profile --backend cpu --threads 3 --from d --from e --note n'.split(
        ' ',
      ),
    );
    expect(a).toMatchObject({
      suite: 'scale',
      out: 'o',
      seeds: 2,
      filter: ['a', 'b'],
      maxRounds: 4,
      profile: true,
      backend: 'cpu',
      threads: 3,
      from: ['d', 'e'],
      notes: ['n'],
    });
    expect(a.latest).toBe(false); // a filtered run never replaces the latest table
    expect(parseBenchArgs(['--no-latest']).latest).toBe(false);
    expect(parseBenchArgs(['--filter', 'x', '--latest']).latest).toBe(true);
  });

  it.each([
    ['--seeds', '0'],
    ['--seeds', '1.5'],
    ['--max-rounds', 'x'],
    ['--backend', 'gpu'],
    ['--threads', '0'],
    ['--filter', ','],
    ['--filter', '!'],
    ['--nope', '1'],
  ])('refuses %s %s', (flag, value) => {
    expect(() => parseBenchArgs([flag, value])).toThrow(BenchArgsError);
  });
});
