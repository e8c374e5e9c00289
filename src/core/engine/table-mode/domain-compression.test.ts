import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compressDomain } from './domain-compression.ts';

describe('compressDomain', () => {
  it('keeps large categories and merges small ones into runs of share ≥ θ', () => {
    // θ = 0.1: categories 0 and 4 stay; 1–3 (0.04 + 0.03 + 0.05 = 0.12) form one run; 5–6
    // (0.02 + 0.01) fall short and join the previous run.
    const p = Float64Array.from([0.6, 0.04, 0.03, 0.05, 0.25, 0.02, 0.01]);
    const g = compressDomain(p, 0.1);
    expect(g?.count).toBe(3);
    expect([...(g?.of ?? [])]).toEqual([0, 1, 1, 1, 2, 1, 1]);
  });

  it('is undefined when nothing merges', () => {
    expect(compressDomain(Float64Array.from([0.5, 0.3, 0.2]), 0.1)).toBeUndefined();
  });

  it('always gives groups 0 … count − 1, each non-empty, large categories alone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.double({ min: 0.001, max: 0.5, noNaN: true }),
        (raw, theta) => {
          const total = raw.reduce((a, b) => a + b, 0);
          fc.pre(total > 0);
          const p = Float64Array.from(raw, (x) => x / total);
          const g = compressDomain(p, theta);
          if (!g) return;
          expect(g.count).toBeLessThan(p.length);
          const members = Array.from({ length: g.count }, () => [] as number[]);
          g.of.forEach((group, v) => {
            members[group].push(v);
          });
          expect(members.every((m) => m.length > 0)).toBe(true);
          p.forEach((share, v) => {
            if (share >= theta) expect(members[g.of[v]]).toEqual([v]);
          });
          // Every merged group but at most one reaches θ.
          const short = members.filter((m) => m.length > 1 && m.reduce((s, v) => s + p[v], 0) < theta);
          expect(short.length).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});
