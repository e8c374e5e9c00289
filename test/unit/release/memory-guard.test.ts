/**
 * The memory check before the reservation knows which reader will count a raw file (release/
 * data-form.ts): DuckDB holds no row for the engine (exact tables), the streaming reader holds
 * n × columns codes. So a file whose rows would not fit the machine is released where DuckDB
 * counts it, and refused (nothing reserved) where the streaming reader must: asked for, or found
 * by the checks (a row of another width).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SynthFlags, synthSpec } from '../../../src/cli/commands/synth.ts';
import { type MachineMemory, MEMORY_SHARE, memoryEstimate } from '../../../src/core/engine/limits.ts';
import { disposeValidated, prepare, validate } from '../../../src/core/release/release.ts';
import { privateTempFolder } from '../../support/counted-release.ts';

const { dir, left: duckdbLeft } = privateTempFolder('rap-memory-guard-');

const N = 20_000;
function data(ragged: boolean): string {
  const lines = ['age,city,band,hours'];
  for (let i = 0; i < N; i++) {
    lines.push(
      [
        18 + ((i * 37) % 70),
        ['Oslo', 'Bergen', 'Bodø'][i % 3],
        ['low', 'mid', 'high'][(i * 7) % 3],
        20 + (i % 40),
      ].join(','),
    );
  }
  if (ragged) lines.push('40,Oslo');
  return `${lines.join('\n')}\n`;
}

async function specFor(file: string) {
  const workload = path.join(dir, 'w.json');
  writeFileSync(
    workload,
    JSON.stringify({
      thresholds: [
        { features: ['age', 'city', 'band'], r: 2 },
        { features: ['band', 'hours'], r: 1 },
      ],
    }),
  );
  const flags = {
    data: file,
    workload,
    out: path.join(dir, 'out.csv'),
    epsilon: '1',
    rows: '300',
    seed: '4',
    insecureSeed: true,
    header: 'yes',
  } as unknown as SynthFlags;
  return synthSpec(flags);
}

/** A machine whose memory fits the run with the data counted, but not with its rows held. */
async function tightMachine(file: string): Promise<MachineMemory> {
  const roomy = { totalBytes: 2 ** 40, availableBytes: 2 ** 40 };
  const p = await prepare(await specFor(file), () => {}, { machine: roomy });
  expect(p.memory.form).toBe('counted');
  const size = {
    mode: p.options.mode,
    rows: p.options.rows,
    oversample: p.options.oversample,
    rounds: 1,
    perRound: 1,
    n: p.facts.rows,
    schema: p.raw!.provisional,
    workload: p.spec.workload,
  };
  const counted = memoryEstimate({ ...size, form: 'counted' }).bytes;
  const rows = memoryEstimate({ ...size, form: 'rows' }).bytes;
  expect(rows).toBeGreaterThan(counted);
  const bytes = (counted + rows) / 2 / MEMORY_SHARE;
  return { totalBytes: bytes, availableBytes: bytes };
}

describe('the memory check before the reservation assumes the reader that will count', () => {
  it('DuckDB counts: accepted (no row held); the streaming reader asked for: refused', async () => {
    const file = path.join(dir, 'even.csv');
    writeFileSync(file, data(false));
    const machine = await tightMachine(file);
    const validated = await validate(await prepare(await specFor(file), () => {}, { machine }));
    try {
      expect(validated.table).toBeDefined();
      expect(validated.streamingOnly).toBeUndefined();
    } finally {
      await disposeValidated(validated);
    }
    await expect(prepare(await specFor(file), () => {}, { machine, counting: 'streaming' })).rejects.toThrow(
      /would need about .* of memory.*Nothing was reserved/,
    );
  });

  it('a row of another width (DuckDB refuses, the streaming reader must count): refused by validate', async () => {
    const file = path.join(dir, 'ragged.csv');
    writeFileSync(file, data(true));
    const machine = await tightMachine(file);
    const prepared = await prepare(await specFor(file), () => {}, { machine });
    await expect(validate(prepared)).rejects.toThrow(/would need about .* of memory.*Nothing was reserved/);
    expect(duckdbLeft()).toEqual([]);
    // With room for the rows, the same file is streamed.
    const roomy = { totalBytes: 2 ** 40, availableBytes: 2 ** 40 };
    const validated = await validate(await prepare(await specFor(file), () => {}, { machine: roomy }));
    expect(validated.streamingOnly).toBeDefined();
    await disposeValidated(validated);
  });
});

describe('the dialect scan runs where the file holds a quote (file-facts.ts: skipped without one)', () => {
  it('a quote after spaces: the checks find it, the streaming reader counts', async () => {
    const file = path.join(dir, 'spaced.csv');
    writeFileSync(file, data(false).replace(',Oslo,', ', "Oslo",'));
    const roomy = { totalBytes: 2 ** 40, availableBytes: 2 ** 40 };
    const prepared = await prepare(await specFor(file), () => {}, { machine: roomy });
    expect(prepared.facts.quotes).toBe(true);
    const validated = await validate(prepared);
    expect(validated.table).toBeUndefined();
    expect(validated.streamingOnly).toMatch(/quote after spaces/);
    await disposeValidated(validated);
  });
});
