import { describe, expect, it } from 'vitest';
import { sourceMemoryLimit } from './duckdb.ts';

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const mb = (limit: string) => Number(limit.replace(/MB$/, '')) * MiB;

describe('a source table’s memory limit (room for the table where the machine has it, a spill past it)', () => {
  const big = { totalBytes: 64 * GiB, availableBytes: 48 * GiB };
  it('twice the file, where that fits', () => {
    expect(mb(sourceMemoryLimit(500 * MiB, big))).toBe(1000 * MiB);
  });
  it('at most 2 GiB, a quarter of the machine, half of what is free', () => {
    expect(mb(sourceMemoryLimit(12 * GiB, big))).toBe(2 * GiB);
    expect(mb(sourceMemoryLimit(12 * GiB, { totalBytes: 4 * GiB, availableBytes: 3 * GiB }))).toBe(1 * GiB);
    expect(mb(sourceMemoryLimit(12 * GiB, { totalBytes: 16 * GiB, availableBytes: 1 * GiB }))).toBe(
      512 * MiB,
    );
  });
  it('at least 512 MiB where the cap allows it, the cap between 256 and 512 MiB, else 256 MiB', () => {
    expect(mb(sourceMemoryLimit(1000, big))).toBe(512 * MiB);
    expect(mb(sourceMemoryLimit(121 * MiB, big))).toBe(512 * MiB);
    expect(mb(sourceMemoryLimit(1000, { totalBytes: 64 * GiB, availableBytes: 700 * MiB }))).toBe(350 * MiB);
    expect(mb(sourceMemoryLimit(12 * GiB, { totalBytes: 1 * GiB, availableBytes: 100 * MiB }))).toBe(
      256 * MiB,
    );
  });
});
