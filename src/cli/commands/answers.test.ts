import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../../test/support/command.ts';
import { schemaToJson } from '../../core/data/schema-file.ts';
import { InputError } from '../../core/errors.ts';
import { bruteForceAnswers, categoricalSchema, randomDataset } from '../../core/workload/test-data.ts';
import type { Threshold } from '../../core/workload/types.ts';
import { register } from './answers.ts';

let dir: string;
const sizes = [3, 4, 2];
const names = ['a', 'b', 'c'];
const data = randomDataset(sizes, 40, 5);
const thresholds: Threshold[] = [
  { features: [2, 0], r: 1, weight: 1 },
  { features: [0, 1, 2], r: 2, weight: 2 },
];
const workloadJson = {
  thresholds: [
    { features: ['c', 'a'], r: 1 },
    { features: ['a', 'b', 'c'], r: 2, weight: 2 },
  ],
};

function csv(codeOf: (j: number, v: number) => string): string {
  const rows = Array.from({ length: data.n }, (_, i) =>
    names.map((_, j) => codeOf(j, data.codes[j][i])).join(','),
  );
  return `${names.join(',')}\n${rows.join('\n')}\n`;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rap-answers-cli-'));
  await writeFile(
    join(dir, 'domain.json'),
    JSON.stringify(Object.fromEntries(names.map((n, j) => [n, sizes[j]]))),
  );
  await writeFile(
    join(dir, 'data.csv'),
    csv((_, v) => String(v)),
  );
  await writeFile(join(dir, 'w.json'), JSON.stringify(workloadJson));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => runCommand(register, args);

const benchmarkArgs = (out: string, ...extra: string[]) => [
  'answers',
  '--data',
  join(dir, 'data.csv'),
  '--domain',
  join(dir, 'domain.json'),
  '--workload',
  join(dir, 'w.json'),
  '--out',
  join(dir, out),
  ...extra,
];

const expected = (): number[] => thresholds.flatMap((t) => Array.from(bruteForceAnswers(data, t)));

describe('rap-studio answers', () => {
  it('writes little-endian float64 answers in the implicit order and warns on stderr', async () => {
    const { stderr } = await run(...benchmarkArgs('answers.bin'));
    const bytes = await readFile(join(dir, 'answers.bin'));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const got = Array.from({ length: bytes.length / 8 }, (_, i) => view.getFloat64(i * 8, true));
    expect(got).toEqual(expected());
    expect(stderr).toMatch(/wrote 30 answers \(bin\)/);
    expect(stderr).toMatch(/EXACT, non-private statistics of the private data/);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('writes JSON with each threshold’s features, dims and answers (format from the extension)', async () => {
    await run(...benchmarkArgs('answers.json'));
    const out = JSON.parse(await readFile(join(dir, 'answers.json'), 'utf8'));
    expect(out.format).toBe('rap-studio-answers');
    expect(out.workloadSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(out.thresholds.map((t: { features: string[]; dims: number[] }) => [t.features, t.dims])).toEqual([
      [
        ['c', 'a'],
        [2, 3],
      ],
      [
        ['a', 'b', 'c'],
        [3, 4, 2],
      ],
    ]);
    expect(out.thresholds.flatMap((t: { answers: number[] }) => t.answers)).toEqual(expected());
    await run(...benchmarkArgs('forced.bin', '--format', 'json'));
    expect(JSON.parse(await readFile(join(dir, 'forced.bin'), 'utf8')).thresholds).toHaveLength(2);
  });

  it('reads a categorical CSV with a schema file', async () => {
    const schema = {
      ...categoricalSchema(sizes),
      columns: categoricalSchema(sizes).columns.map((c, j) => ({ ...c, name: names[j] })),
    };
    await writeFile(join(dir, 'schema.json'), schemaToJson(schema));
    await writeFile(
      join(dir, 'labels.csv'),
      csv((_, v) => `c${v}`),
    );
    await run(
      'answers',
      '--data',
      join(dir, 'labels.csv'),
      '--schema',
      join(dir, 'schema.json'),
      '--workload',
      join(dir, 'w.json'),
      '--out',
      join(dir, 'labels.json'),
    );
    const out = JSON.parse(await readFile(join(dir, 'labels.json'), 'utf8'));
    expect(out.thresholds.flatMap((t: { answers: number[] }) => t.answers)).toEqual(expected());
  });

  it('refuses bad input with an InputError and writes nothing', async () => {
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ thresholds: [{ features: ['a', 'd'], r: 1 }] }));
    const args = benchmarkArgs('x.bin');
    args[args.indexOf('--workload') + 1] = join(dir, 'bad.json');
    await expect(run(...args)).rejects.toThrow(
      /bad\.json: thresholds\[0\]\.features\[1\]: unknown feature "d"/,
    );
    await expect(run(...benchmarkArgs('x.bin', '--schema', join(dir, 'domain.json')))).rejects.toThrow(
      InputError,
    );
    const missing = benchmarkArgs('x.bin');
    missing[missing.indexOf('--data') + 1] = join(dir, 'nope.csv');
    await expect(run(...missing)).rejects.toThrow(InputError);
    expect((await readdir(dir)).filter((f) => f.startsWith('x.bin') || f.endsWith('.tmp'))).toEqual([]);
  });
});
