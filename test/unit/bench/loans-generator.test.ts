/** The synthetic LOANS-domain generator: deterministic, in-domain, skewed and dependent. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bayesNetParents,
  generateLoansDataset,
  sampleBayesNet,
  sampleDirichlet,
  sampleGamma,
} from '../../../bench/lib/loans-generator.ts';
import { parseDomainJson, schemaFromDomain } from '../../../src/core/data/benchmark.ts';
import { domainSizes, type EncodedDataset } from '../../../src/core/data/schema.ts';
import { seededRng } from '../../../src/core/workload/prng.ts';

const LOANS_DOMAIN = path.resolve(process.cwd(), '../shared/datasets/loans/loans-domain.json');
const hasLoans = existsSync(LOANS_DOMAIN);

const small = schemaFromDomain({ a: 3, b: 12, c: 300, d: 5, e: 40, f: 2 });

function frequencies(codes: ArrayLike<number>, size: number): Float64Array {
  const f = new Float64Array(size);
  for (let i = 0; i < codes.length; i++) f[codes[i]] += 1 / codes.length;
  return f;
}

describe('gamma and Dirichlet samplers', () => {
  it.each([0.3, 1, 2.5, 7])('Gamma(%s) has mean and variance close to its shape', (shape) => {
    const rng = seededRng(1);
    const xs = Array.from({ length: 40_000 }, () => sampleGamma(shape, rng));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
    expect(xs.every((x) => x >= 0)).toBe(true);
    expect(Math.abs(mean - shape)).toBeLessThan(0.05 * shape + 0.02);
    expect(Math.abs(variance - shape)).toBeLessThan(0.1 * shape + 0.02);
  });

  it('rejects a non-positive shape', () => {
    expect(() => sampleGamma(0, seededRng(1))).toThrow(RangeError);
  });

  it('Dirichlet draws are probability vectors, skewed for small α', () => {
    const rng = seededRng(2);
    for (const size of [1, 2, 10, 1001]) {
      const p = sampleDirichlet(size, 0.3, rng);
      expect(p).toHaveLength(size);
      expect(p.every((x) => x >= 0)).toBe(true);
      expect(p.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 12);
    }
    const maxShare = Array.from({ length: 50 }, () => Math.max(...sampleDirichlet(100, 0.3, rng)));
    expect(maxShare.reduce((s, x) => s + x, 0) / 50).toBeGreaterThan(10 / 100);
  });
});

describe('sampleBayesNet', () => {
  const data = sampleBayesNet(small, { rows: 5000, seed: 7 });

  it('is deterministic for a seed and changes with it', () => {
    const again = sampleBayesNet(small, { rows: 5000, seed: 7 });
    const other = sampleBayesNet(small, { rows: 5000, seed: 8 });
    expect(again.codes).toEqual(data.codes);
    expect(other.codes).not.toEqual(data.codes);
  });

  it('gives n rows of in-domain codes in arrays just wide enough', () => {
    expect(data.n).toBe(5000);
    domainSizes(small).forEach((size, j) => {
      const col = data.codes[j];
      expect(col).toHaveLength(5000);
      expect(col).toBeInstanceOf(size <= 256 ? Uint8Array : Uint16Array);
      expect(Math.max(...col)).toBeLessThan(size);
    });
  });

  it('draws 1..maxParents parents among earlier features', () => {
    const parents = bayesNetParents(small, { rows: 1, seed: 7, maxParents: 2 });
    expect(parents[0]).toEqual([]);
    parents.slice(1).forEach((ps, j) => {
      expect(ps.length).toBeGreaterThanOrEqual(1);
      expect(ps.length).toBeLessThanOrEqual(2);
      expect(ps.every((p) => p < j + 1)).toBe(true);
      expect(new Set(ps).size).toBe(ps.length);
    });
    expect(bayesNetParents(small, { rows: 1, seed: 7, maxParents: 0 }).every((ps) => ps.length === 0)).toBe(
      true,
    );
  });

  it('makes a child depend on its parent: conditionals differ from the marginal', () => {
    const parents = bayesNetParents(small, { rows: 1, seed: 7 });
    const sizes = domainSizes(small);
    let dependent = 0;
    for (let j = 1; j < sizes.length; j++) {
      const p = parents[j][0];
      const marginal = frequencies(data.codes[j], sizes[j]);
      // Total variation between the child's distribution given the parent's most common value and overall.
      const parentFreq = frequencies(data.codes[p], sizes[p]);
      const top = parentFreq.indexOf(Math.max(...parentFreq));
      const rows = [...data.codes[p].keys()].filter((i) => data.codes[p][i] === top);
      const given = frequencies(
        rows.map((i) => data.codes[j][i]),
        sizes[j],
      );
      const tv = given.reduce((s, g, v) => s + Math.abs(g - marginal[v]), 0) / 2;
      if (tv > 0.05) dependent++;
    }
    expect(dependent).toBeGreaterThanOrEqual(3);
  });

  it('gives skewed, not uniform, marginals', () => {
    const sizes = domainSizes(small);
    const ratios = sizes.map((size, j) => Math.max(...frequencies(data.codes[j], size)) * size);
    // Uniform data would give ratios ≈ 1.
    expect(ratios.reduce((s, r) => s + r, 0) / ratios.length).toBeGreaterThan(2);
  });

  it('validates its options', () => {
    expect(() => sampleBayesNet(small, { rows: 0, seed: 1 })).toThrow(/rows/);
    expect(() => sampleBayesNet(small, { rows: 10, seed: 1, concentration: 0 })).toThrow(/concentration/);
    expect(() => sampleBayesNet(small, { rows: 10, seed: 1, parentGroups: 0 })).toThrow(/parentGroups/);
  });
});

describe.skipIf(!hasLoans)('the LOANS domain (needs ../shared/datasets/loans/loans-domain.json)', () => {
  it('keeps the 48 features and one-hot width 4,427', async () => {
    const data: EncodedDataset = await generateLoansDataset(LOANS_DOMAIN, { rows: 500 });
    const schema = parseDomainJson(readFileSync(LOANS_DOMAIN, 'utf8'), LOANS_DOMAIN);
    expect(data.schema).toEqual(schema);
    expect(data.codes).toHaveLength(48);
    expect(domainSizes(data.schema).reduce((s, x) => s + x, 0)).toBe(4427);
    expect(data.n).toBe(500);
  });
});
