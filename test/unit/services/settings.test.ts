import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/core/data/schema.ts';
import { discoveryPerColumn, splitBudget } from '../../../src/core/discovery/budget-split.ts';
import { epsilonFromRho, rhoFromEpsilon } from '../../../src/core/privacy/accounting.ts';
import { makePartitionSelection } from '../../../src/core/privacy/partition-selection.ts';
import { UNREGISTERED_BUDGET } from '../../../src/services/ledger-views.ts';
import { parseSettings, planView } from '../../../src/services/settings.ts';
import type { BudgetView } from '../../../src/shared/api.ts';

const schema: Schema = {
  version: 1,
  origin: 'declared',
  columns: [
    { name: 'a', kind: 'categorical', categories: ['x', 'y', 'z'], missing: false },
    { name: 'b', kind: 'categorical', categories: ['p', 'q'], missing: false },
    { name: 'c', kind: 'numeric', edges: [0, 10, 20, 30], integer: true, missing: false },
  ],
};
const workload = { thresholds: [{ features: [0, 1, 2], r: 2, weight: 1 }] };
const N = 1000;

function budget(capEpsilon: number, capDelta: number, spentRho: number): BudgetView {
  const capRho = rhoFromEpsilon(capEpsilon, capDelta);
  const remainingRho = Math.max(0, capRho - spentRho);
  return {
    registered: true,
    releases: spentRho > 0 ? 1 : 0,
    capEpsilon,
    capDelta,
    capRho,
    spentRho,
    spentApproxDelta: 0,
    spentEpsilon: epsilonFromRho(spentRho, capDelta),
    remainingRho,
    remainingEpsilon: epsilonFromRho(remainingRho, capDelta),
    remainingShare: remainingRho / capRho,
  };
}

const plan = (epsilon: string, b: BudgetView, extra = {}) =>
  planView({
    settings: { epsilon, ...extra },
    fileName: 'people.csv',
    schema,
    n: N,
    workload,
    budget: b,
    busy: false,
  });

describe('parseSettings', () => {
  it('gives the CLI messages for bad fields, naming the field', () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ epsilon: 'abc' }, 'epsilon', 'ε must be a finite number > 0, got "abc"'],
      [{ epsilon: '0' }, 'epsilon', 'ε must be a finite number > 0, got "0"'],
      [{ epsilon: '-1' }, 'epsilon', 'ε must be a finite number > 0, got "-1"'],
      [{ epsilon: '' }, 'epsilon', 'Enter ε (a number > 0): the privacy budget this run spends'],
      [{ epsilon: '1', delta: '1' }, 'delta', 'δ must be a number with 0 < δ < 1, got "1"'],
      [{ epsilon: '1', rows: '0' }, 'rows', `n' (synthetic rows) must be an integer >= 1, got "0"`],
      [{ epsilon: '1', rounds: '2.5' }, 'rounds', 'T (rounds) must be an integer >= 1, got "2.5"'],
      [
        { epsilon: '1', insecureSeed: 'x' },
        'insecureSeed',
        'the insecure seed must be an integer >= 0, got "x"',
      ],
      [
        { epsilon: '1', selection: 'best' },
        'selection',
        'selection must be one of one-shot, adaptive, got "best"',
      ],
      [
        { epsilon: '1', selection: 'adaptive', mode: 'table' },
        'selection',
        'selection adaptive chooses how query mode selects queries: choose mode query (table mode, the default, selects whole tables), or leave selection out',
      ],
      [
        { epsilon: '1', relaxation: 'relu' },
        'relaxation',
        'relaxation must be one of sparsemax, softmax, got "relu"',
      ],
      [
        { epsilon: '1', importance: 'often' },
        'importance',
        'importance must be one of none, history, got "often"',
      ],
    ];
    for (const [input, field, message] of cases) {
      const { parsed, problems } = parseSettings(input as never);
      expect(parsed).toBeUndefined();
      expect(problems).toEqual([{ field, message }]);
    }
  });

  it('passes selection (query mode), relaxation and importance through to the run', () => {
    const { parsed } = parseSettings({
      epsilon: '1',
      mode: 'query',
      selection: 'adaptive',
      relaxation: 'softmax',
      importance: 'history',
    });
    expect(parsed?.overrides).toMatchObject({ mode: 'query', selection: 'iterative', relaxation: 'softmax' });
    expect(parsed?.importance).toBe('history');
    expect(parseSettings({ epsilon: '1' }).parsed?.importance).toBe('none');
  });

  it('reports every bad field at once and parses good ones', () => {
    expect(parseSettings({ epsilon: 'x', delta: '2' }).problems.map((p) => p.field)).toEqual([
      'epsilon',
      'delta',
    ]);
    const { parsed } = parseSettings({
      epsilon: '0.5',
      rows: '500',
      rounds: '3',
      insecureSeed: '7',
      backend: 'cpu',
    });
    expect(parsed).toEqual({
      epsilon: 0.5,
      delta: undefined,
      overrides: { rows: 500, rounds: 3, backend: 'cpu' },
      noise: { mode: 'insecure-seed', seed: 7 },
      importance: 'none',
      domain: 'discover',
      allowNonPrivateDomain: false,
    });
  });
});

describe('planView', () => {
  it('blocks the run with a reason: bad settings, no workload, no cap, over budget, busy', () => {
    expect(plan('abc', budget(1, 1e-6, 0))).toMatchObject({
      blocker: 'settings',
      reason: 'Fix the settings first: ε must be a finite number > 0, got "abc".',
    });
    expect(
      planView({
        settings: { epsilon: '1' },
        fileName: 'people.csv',
        schema,
        n: N,
        workload: { problem: 'no thresholds' },
        budget: UNREGISTERED_BUDGET,
        busy: false,
      }),
    ).toMatchObject({ blocker: 'workload', reason: 'no thresholds' });
    expect(plan('1', UNREGISTERED_BUDGET)).toMatchObject({ blocker: 'no-cap', affordable: false });
    expect(plan('2', budget(1, 1e-6, 0))).toMatchObject({ blocker: 'over-budget', affordable: false });
    expect(plan('2', budget(1, 1e-6, 0)).reason).toContain('Over budget');
    expect(
      planView({
        settings: { epsilon: '0.5' },
        fileName: 'people.csv',
        schema,
        n: N,
        workload,
        budget: budget(1, 1e-6, 0),
        busy: true,
      }),
    ).toMatchObject({ blocker: 'busy', affordable: true });
    expect(plan('0.5', budget(1, 1e-6, 0))).toMatchObject({ blocker: null, reason: null, affordable: true });
  });

  it('fixes δ = 1/n² by default and refuses T × K beyond the workload', () => {
    const p = plan('1', budget(5, 1e-6, 0));
    expect(p.delta).toBe(1 / (N * N));
    expect(p.rho).toBeCloseTo(rhoFromEpsilon(1, 1 / (N * N)), 12);
    const tooMany = plan('1', budget(5, 1e-6, 0), { rounds: '100', perRound: '100', mode: 'query' });
    expect(tooMany.blocker).toBe('settings');
    expect(tooMany.problems.map((x) => x.field)).toEqual(['plan']);
  });

  it('agrees with the brute-force budget rule and remaining-after formula', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 5, noNaN: true }),
        fc.double({ min: 0.01, max: 5, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (eps, cap, spentShare) => {
          const capDelta = 1e-6;
          const capRho = rhoFromEpsilon(cap, capDelta);
          const b = budget(cap, capDelta, spentShare * capRho);
          const p = plan(String(eps), b);
          const rho = rhoFromEpsilon(eps, 1 / (N * N));
          const fits = b.spentRho + rho <= capRho * (1 + 1e-12);
          expect(p.affordable).toBe(fits);
          expect(p.blocker).toBe(fits ? null : 'over-budget');
          const after = epsilonFromRho(Math.max(0, (b.remainingRho ?? 0) - rho), capDelta);
          expect(p.remainingAfterEpsilon).toBeCloseTo(after, 12);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("planView: each column's domain at release (issue 17)", () => {
  const inferred: Schema = { ...schema, origin: 'inferred' };
  const onInferred = (settings: Parameters<typeof planView>[0]['settings']) =>
    planView({
      settings,
      fileName: 'people.csv',
      schema: inferred,
      n: N,
      workload,
      budget: budget(5, 1e-6, 0),
      busy: false,
    });

  it('a declared schema: every column declared and free, no discovery', () => {
    const p = plan('1', budget(5, 1e-6, 0));
    expect(p.columns).toEqual(schema.columns.map((c) => ({ name: c.name, domain: 'declared' })));
    expect(p.discovery).toBeNull();
  });

  it("read from the data, by default: every column discovered privately, its cost from the release's split", () => {
    const p = onInferred({ epsilon: '1' });
    expect(p.blocker).toBeNull();
    const split = splitBudget(1, 1 / (N * N), 0.2, true);
    const each = discoveryPerColumn(split, 3);
    // The expected-loss preview: partition selection's τ at the column's ρ and δ (public).
    const mergeBelow = makePartitionSelection(0.5 * each.rho, each.delta).threshold;
    expect(p.columns).toEqual(
      schema.columns.map((c) => ({
        name: c.name,
        domain: 'discovered',
        cost: { rho: each.rho, delta: each.delta, shareOfRho: each.rho / split.rho, mergeBelow },
      })),
    );
    expect(p.discovery?.mergeBelow).toBe(mergeBelow);
    // The columns' costs add up to discovery's ρ and δ: 20% of ρ(ε, 0.9δ), δ/10.
    expect(3 * each.rho).toBeCloseTo(p.discovery?.rhoDiscovery ?? 0, 15);
    expect(3 * each.delta).toBeCloseTo(1 / (10 * N * N), 20);
    expect(p.discovery?.perColumn).toEqual(each);
    // Before a workload exists (the Schema step), the columns and costs are there already.
    const early = planView({
      settings: { epsilon: '1' },
      fileName: 'people.csv',
      schema: inferred,
      n: N,
      workload: { problem: 'no thresholds' },
      budget: UNREGISTERED_BUDGET,
      busy: false,
    });
    expect(early.blocker).toBe('workload');
    expect(early.columns).toEqual(p.columns);
  });

  it('as read, without the override: refused with the columns named and the two ways out', () => {
    const p = onInferred({ epsilon: '1', domain: 'as-read' });
    expect(p.blocker).toBe('domain');
    expect(p.affordable).toBe(false);
    expect(p.reason).toContain(
      'people.csv: the domain of columns "a", "b", "c" was read from the private data',
    );
    expect(p.reason).toContain('declare these columns');
    expect(p.reason).toContain('discover them privately');
    expect(p.reason).toContain('"Release over a non-private domain"');
    expect(p.columns.map((c) => c.domain)).toEqual(['not-dp', 'not-dp', 'not-dp']);
  });

  it('as read, with the override: allowed, every column "not DP", no discovery, a warning', () => {
    const p = onInferred({ epsilon: '1', domain: 'as-read', allowNonPrivateDomain: true });
    expect(p.blocker).toBeNull();
    expect(p.discovery).toBeNull();
    expect(p.columns.map((c) => c.domain)).toEqual(['not-dp', 'not-dp', 'not-dp']);
    expect(p.warnings.join(' ')).toContain('domain not differentially private for "a", "b", "c"');
    // The override alone changes nothing when the curator asked for discovery.
    expect(onInferred({ epsilon: '1', allowNonPrivateDomain: true }).columns[0].domain).toBe('discovered');
  });
});

describe('the relative-error pass on the Privacy step', () => {
  it('shows its cost and the α it will certify before Run; the total ρ is unchanged', () => {
    const without = plan('1', budget(10, 1e-6, 0));
    const p = plan('1', budget(10, 1e-6, 0), { certify: '0.25', certifyShare: '0.2' });
    expect(p.reason).toBeNull();
    expect(p.rho).toBe(without.rho);
    expect(p.certify?.zeta).toBe(0.25);
    expect(p.certify?.share).toBe(0.2);
    expect(p.certify?.rho).toBeCloseTo(0.2 * (without.rho ?? 0), 15);
    expect(p.certify?.epsilon).toBeCloseTo(Math.sqrt(2 * (p.certify?.rho ?? 0)), 15);
    expect(p.certify?.alpha).toBeGreaterThan(0);
    expect(p.certify?.approximate).toBe(false);
    expect(without.certify).toBeNull();
    // The default share is the CLI's.
    expect(plan('1', budget(10, 1e-6, 0), { certify: '0.25' }).certify?.share).toBe(0.1);
  });

  it('names the field of a bad ζ or share, and a share without ζ', () => {
    const bad = (extra: Record<string, string>) => parseSettings({ epsilon: '1', ...extra }).problems;
    expect(bad({ certify: '1' })).toEqual([
      { field: 'certify', message: 'ζ (the relative margin) must be a number with 0 < x < 1, got "1"' },
    ]);
    expect(bad({ certify: '0.2', certifyShare: '0' })).toEqual([
      {
        field: 'certifyShare',
        message: `the relative-error pass's share must be a number with 0 < x < 1, got "0"`,
      },
    ]);
    expect(bad({ certifyShare: '0.2' })[0]?.field).toBe('certifyShare');
  });
});

describe('planView at the person level (issue 27)', () => {
  it('leaves the identifier out of the columns, refuses a workload on it, and defaults δ to a public constant', async () => {
    const { planView } = await import('../../../src/services/settings.ts');
    const schema = {
      version: 1 as const,
      origin: 'inferred' as const,
      columns: [
        { name: 'pid', kind: 'categorical' as const, categories: ['a', 'b'], missing: false },
        { name: 'ward', kind: 'categorical' as const, categories: ['A', 'B'], missing: false },
        { name: 'dx', kind: 'categorical' as const, categories: ['x', 'y'], missing: false },
      ],
    };
    const budget = {
      registered: true,
      releases: 0,
      spentRho: 0,
      spentApproxDelta: 0,
      spentEpsilon: 0,
      capRho: 1,
      capEpsilon: 10,
      capDelta: 1e-6,
      remainingRho: 1,
      remainingEpsilon: 10,
      remainingShare: 1,
    };
    const inputs = {
      settings: { epsilon: '1', unitColumn: 'pid' },
      fileName: 'v.csv',
      schema,
      n: 1000,
      workload: { thresholds: [{ features: [1, 2], r: 2, weight: 1 }] },
      budget,
      busy: false,
    };
    const ok = planView(inputs as Parameters<typeof planView>[0]);
    expect(ok.columns.map((c) => c.name)).toEqual(['ward', 'dx']);
    expect(ok.defaultDelta).toBe(1e-10);
    expect(ok.delta).toBe(1e-10);
    const onId = planView({
      ...inputs,
      workload: { thresholds: [{ features: [0, 1], r: 2, weight: 1 }] },
    } as Parameters<typeof planView>[0]);
    expect(onId.blocker).toBe('workload');
    expect(onId.reason).toContain('the workload names the unit column "pid"');
  });
});
