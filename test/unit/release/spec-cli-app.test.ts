/**
 * One spec module (src/core/release/spec.ts): the same settings typed as CLI flags and as the
 * app's Privacy-step fields give the same ReleaseSpec field by field, and the same refusal
 * messages (the CLI prefixes its flag).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTING_FLAGS, type SynthFlags, synthSpec } from '../../../src/cli/commands/synth.ts';
import { readWorkloadFile, schemaFromOptions } from '../../../src/cli/commands/workload.ts';
import type { ReleaseSpec } from '../../../src/core/release/release.ts';
import { TEXT_SETTINGS } from '../../../src/core/release/spec.ts';
import { appReleaseSpec } from '../../../src/services/runs.ts';
import { parseSettings } from '../../../src/services/settings.ts';
import type { RunSettingsInput } from '../../../src/shared/api.ts';
import { makeFixture } from '../../support/cli.ts';

const fx = makeFixture(60);
afterAll(() => fx.cleanup());
const at = (f: string) => path.join(fx.dir, f);

/** Every engine setting the CLI and the app spell alike (the seed they spell apart). */
const ENGINE_FIELDS = {
  epsilon: '0.5',
  delta: '1e-7',
  rows: '300',
  rounds: '4',
  perRound: '2',
  oversample: '7',
  mode: 'query',
  backend: 'cpu',
  selection: 'adaptive',
  relaxation: 'softmax',
  importance: 'history',
} as const;

/** One setting set, as the CLI's flags and as the app's fields. */
interface Case {
  readonly name: string;
  readonly cli: Partial<SynthFlags>;
  readonly app: Omit<RunSettingsInput, 'epsilon'> & { readonly epsilon: string };
}

const CASES: Case[] = [
  { name: 'defaults', cli: { epsilon: '1' }, app: { epsilon: '1' } },
  {
    name: 'every engine field',
    cli: { ...ENGINE_FIELDS, seed: '9', insecureSeed: true },
    app: { ...ENGINE_FIELDS, insecureSeed: '9' },
  },
  {
    name: 'table mode, T₀ and K',
    cli: { epsilon: '2', rounds: '3', perRound: '8', mode: 'table' },
    app: { epsilon: '2', rounds: '3', perRound: '8', mode: 'table' },
  },
  {
    name: 'the engine tuning the CLI and the app both offer (learning rate; max steps, tolerance by API)',
    cli: { epsilon: '1', learningRate: '0.02', maxSteps: '40', tolerance: '0' },
    app: { epsilon: '1', learningRate: '0.02', maxSteps: '40', tolerance: '0' },
  },
  {
    name: 'the relative-error pass (certificate)',
    cli: { epsilon: '1', certify: '0.25', certifyShare: '0.2' },
    app: { epsilon: '1', certify: '0.25', certifyShare: '0.2' },
  },
];

async function cliSpec(flags: Partial<SynthFlags>): Promise<ReleaseSpec> {
  return synthSpec({
    data: at('data.csv'),
    domain: at('domain.json'),
    workload: at('w.json'),
    out: at('out.csv'),
    name: 'data.csv',
    epsilon: '1',
    ...flags,
  } as SynthFlags);
}

async function appSpec(input: RunSettingsInput): Promise<ReleaseSpec> {
  const { parsed, problems } = parseSettings(input);
  if (!parsed) throw new Error(problems[0].message);
  const schema = await schemaFromOptions({ domain: at('domain.json') });
  return appReleaseSpec(
    {
      path: at('data.csv'),
      fileName: 'data.csv',
      schema,
      header: true,
      workload: await readWorkloadFile(at('w.json'), schema),
    },
    parsed,
  );
}

/** The spec's fields; the source's header flag is the app's reading of the file (the CLI guesses). */
function fields(spec: ReleaseSpec) {
  const { header: _header, ...source } = spec.source;
  return {
    source,
    datasetName: spec.datasetName,
    workload: spec.workload,
    evalWorkload: spec.evalWorkload,
    epsilon: spec.epsilon,
    delta: spec.delta,
    overrides: spec.overrides,
    noise: spec.noise,
    budgetCap: spec.budgetCap,
    allowNonPrivateDomain: spec.allowNonPrivateDomain,
  };
}

describe('the CLI and the app build one ReleaseSpec', () => {
  it.each(CASES)('$name: field by field', async (c) => {
    const cli = fields(await cliSpec(c.cli));
    const app = fields(await appSpec(c.app));
    for (const key of Object.keys(cli) as (keyof typeof cli)[]) expect(app[key], key).toEqual(cli[key]);
  });

  const BAD: [string, Partial<SynthFlags>, RunSettingsInput][] = [
    ['ε = 0', { epsilon: '0' }, { epsilon: '0' }],
    ['δ = 1', { delta: '1' }, { epsilon: '1', delta: '1' }],
    ["n' = 0", { rows: '0' }, { epsilon: '1', rows: '0' }],
    ['T = 2.5', { rounds: '2.5' }, { epsilon: '1', rounds: '2.5' }],
    ['K = -1', { perRound: '-1' }, { epsilon: '1', perRound: '-1' }],
    ['a bad backend', { backend: 'tpu' }, { epsilon: '1', backend: 'tpu' }],
    ['a bad relaxation', { relaxation: 'relu' }, { epsilon: '1', relaxation: 'relu' as never }],
    ['selection in table mode', { selection: 'one-shot' }, { epsilon: '1', selection: 'one-shot' }],
    ['a bad seed', { seed: 'x', insecureSeed: true }, { epsilon: '1', insecureSeed: 'x' }],
    ['ζ = 1', { certify: '1' }, { epsilon: '1', certify: '1' }],
    ['a share without ζ', { certifyShare: '0.2' }, { epsilon: '1', certifyShare: '0.2' }],
    ['learning rate 0', { learningRate: '0' }, { epsilon: '1', learningRate: '0' }],
  ];

  it('every plain text setting reaches the spec from both sides (one list: TEXT_SETTINGS)', async () => {
    expect(TEXT_SETTINGS).toContain('learningRate');
    const cli = await cliSpec({ learningRate: '0.02' });
    expect(cli.overrides?.learningRate).toBe(0.02);
    expect(SETTING_FLAGS.learningRate).toBe('--learning-rate');
    expect(SETTING_FLAGS.perRound).toBe('--per-round');
    expect(SETTING_FLAGS.certifyViolations).toBe('--certify-violations');
  });

  it.each(BAD)('%s: the same refusal', async (_name, flags, input) => {
    const { problems } = parseSettings(input);
    expect(problems.length).toBeGreaterThan(0);
    const first = problems[0];
    const field = first.field === 'insecureSeed' ? 'seed' : first.field;
    await expect(cliSpec(flags)).rejects.toThrow(
      `${SETTING_FLAGS[field as keyof typeof SETTING_FLAGS]}: ${first.message}`,
    );
  });
});
