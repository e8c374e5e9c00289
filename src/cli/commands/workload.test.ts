import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../../test/support/command.ts';
import { parseDomainJson } from '../../core/data/benchmark.ts';
import { InputError } from '../../core/errors.ts';
import { parseWorkloadJson } from '../../core/workload/workload.ts';
import { register } from './workload.ts';

let dir: string;
const domain = { age: 85, workclass: 9, education: 16, sex: 2, race: 5, income: 2, hours: 99 };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rap-workload-cli-'));
  await writeFile(join(dir, 'domain.json'), JSON.stringify(domain));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => runCommand(register, args);

const schema = () => parseDomainJson(JSON.stringify(domain), 'domain.json');

async function readWorkload(name: string) {
  return parseWorkloadJson(await readFile(join(dir, name), 'utf8'), schema(), name);
}

const common = (out: string, ...extra: string[]) => [
  'workload',
  'random',
  '--domain',
  join(dir, 'domain.json'),
  '--k',
  '3',
  '--r',
  '2',
  '--size',
  '10',
  '--seed',
  '7',
  '--out',
  join(dir, out),
  ...extra,
];

describe('rap-studio workload random', () => {
  it('writes a valid workload of N distinct thresholds, reproducibly', async () => {
    await run(...common('a.json', '--dist', 'zipf'));
    await run(...common('b.json', '--dist', 'zipf'));
    const a = await readWorkload('a.json');
    expect(a.thresholds).toHaveLength(10);
    for (const t of a.thresholds) {
      expect(t.features).toHaveLength(3);
      expect(t.r).toBe(2);
    }
    expect(await readFile(join(dir, 'b.json'), 'utf8')).toBe(await readFile(join(dir, 'a.json'), 'utf8'));
  });

  it("--data draws from the header's column names alone: the same workload as the domain gives", async () => {
    const csv = join(dir, 'raw.csv');
    await writeFile(csv, `${Object.keys(domain).join(',')}\n39,State-gov,Bachelors,Male,White,<=50K,40\n`);
    const args = common('from-names.json');
    args.splice(2, 2, '--data', csv);
    // Line 1 looks like a header: the names a release would publish are refused as a guess.
    await expect(run(...args)).rejects.toThrow(/looks like a header.*--header yes/);
    args.push('--header', 'yes');
    await run(...args);
    await run(...common('from-domain.json'));
    expect(await readFile(join(dir, 'from-names.json'), 'utf8')).toBe(
      await readFile(join(dir, 'from-domain.json'), 'utf8'),
    );
    await expect(run(...args, '--domain', join(dir, 'domain.json'))).rejects.toThrow(/not several/);
  });

  it('--drift 0 reproduces the undrifted workload; --drift 1 changes it', async () => {
    await run(...common('plain.json', '--dist', 'geometric'));
    await run(...common('d0.json', '--dist', 'geometric', '--drift', '0'));
    await run(...common('d1.json', '--dist', 'geometric', '--drift', '1'));
    expect(await readWorkload('d0.json')).toEqual(await readWorkload('plain.json'));
    expect(await readWorkload('d1.json')).not.toEqual(await readWorkload('plain.json'));
  });

  it('drifts from a historical workload with --from', async () => {
    await run(...common('hist.json', '--dist', 'geometric'));
    await run(...common('future.json', '--drift', '0.5', '--from', join(dir, 'hist.json')));
    expect((await readWorkload('future.json')).thresholds).toHaveLength(10);
  });

  it('refuses bad input with InputError or a usage error', async () => {
    await expect(run(...common('x.json', '--from', join(dir, 'a.json')))).rejects.toThrow(/add --drift/);
    await expect(run(...common('x.json', '--schema', join(dir, 's.json')))).rejects.toThrow(InputError);
    await expect(run(...common('x.json', '--k', '8'))).rejects.toThrow(/k must be an integer in 1\.\.7/);
    await expect(run(...common('x.json', '--size', '1000'))).rejects.toThrow(/only 35 distinct sets/);
    await expect(run(...common('x.json', '--k', 'three'))).rejects.toThrow(CommanderError);
    await expect(run(...common('x.json', '--dist', 'pareto'))).rejects.toThrow(CommanderError);
    await expect(run(...common('x.json', '--drift', '2'))).rejects.toThrow(CommanderError);
  });
});

describe('rap-studio workload stats', () => {
  it('prints the number of queries and the hash', async () => {
    await writeFile(
      join(dir, 'w.json'),
      JSON.stringify({
        thresholds: [
          { features: ['age', 'sex'], r: 1 },
          { features: ['race', 'income', 'sex'], r: 3 },
        ],
      }),
    );
    const { stdout } = await run(
      'workload',
      'stats',
      join(dir, 'w.json'),
      '--domain',
      join(dir, 'domain.json'),
    );
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({
      thresholds: 2,
      queries: String(85 * 2 + 5 * 2 * 2),
      thresholdsByK: { 2: 1, 3: 1 },
    });
    expect(out.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names the file and threshold of a bad workload', async () => {
    await writeFile(
      join(dir, 'bad.json'),
      JSON.stringify({ thresholds: [{ features: ['age', 'sexx'], r: 1 }] }),
    );
    await expect(
      run('workload', 'stats', join(dir, 'bad.json'), '--domain', join(dir, 'domain.json')),
    ).rejects.toThrow(
      /bad\.json: thresholds\[0\]\.features\[1\]: unknown feature "sexx"; did you mean "sex"\?/,
    );
  });
});

describe('workload default', () => {
  const defaults = (out: string, ...extra: string[]) => [
    ...['workload', 'default', '--data', join(dir, 'raw.csv'), '--header', 'yes'],
    ...[...extra, '--out', join(dir, out)],
  ];

  it('writes every 2-way marginal of the CSV header, plus 3-way with --target, weight 1; refuses an unknown target', async () => {
    await writeFile(join(dir, 'raw.csv'), 'age,sex,income\n30,F,low\n');
    await run(...defaults('d.json'));
    const plain = JSON.parse(await readFile(join(dir, 'd.json'), 'utf8'));
    expect(plain.thresholds.map((t: { features: string[] }) => t.features.join('+'))).toEqual([
      'age+sex',
      'age+income',
      'sex+income',
    ]);
    await run(...defaults('t.json', '--target', 'income'));
    const target = JSON.parse(await readFile(join(dir, 't.json'), 'utf8'));
    expect(target.thresholds).toHaveLength(4);
    expect(target.thresholds[3]).toMatchObject({ features: ['age', 'sex', 'income'], r: 3 });
    for (const t of target.thresholds) expect(t.weight ?? 1).toBe(1);
    await expect(run(...defaults('x.json', '--target', 'salary'))).rejects.toThrow(InputError);
  });
});
