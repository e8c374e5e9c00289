/**
 * One release pipeline: a seeded run released through the CLI (`rap-studio synth`) and run
 * through the app's services (startRun) on the same file, schema, workload and settings writes
 * identical synthetic rows and records the same spend in the ledger. The app keeps a seeded run's
 * rows in its result store and refuses to export them as a release (issue 17); the CLI writes
 * them, marked "not a release" in the manifest.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/core/ledger/ledger.ts';
import type { ReleaseRecord } from '../../src/core/ledger/types.ts';
import { dispatch } from '../../src/services/dispatch.ts';
import { createServices } from '../../src/services/services.ts';
import type { ApiArg, ApiMethod, ApiResult } from '../../src/shared/api.ts';
import { isActiveStatus } from '../../src/shared/constants.ts';
import { CLI_TIMEOUT, runCli } from '../support/cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rap-equiv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 80 rows: two categorical columns and a numeric one (its values are spread inside bins on decode). */
function dataCsv(): string {
  const lines = ['shade,size,age'];
  for (let i = 0; i < 80; i++)
    lines.push(`${['red', 'green', 'blue'][i % 3]},${['S', 'M', 'L'][(i * 7) % 3]},${18 + ((i * 13) % 60)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * What a release's spend records, less what differs between any two releases (ids, times, chain
 * hashes) and its outcome (the app's seeded run is never committed).
 */
function recorded(r: ReleaseRecord): Record<string, unknown> {
  const varying = new Set([
    'id',
    'createdAt',
    'statusChangedAt',
    'status',
    'outputSha256',
    'outputPath',
    'prevHash',
    'rowHash',
  ]);
  return Object.fromEntries(Object.entries(r).filter(([k]) => !varying.has(k)));
}

function releases(ledgerPath: string): ReleaseRecord[] {
  const l = Ledger.open(ledgerPath);
  try {
    return l.releases();
  } finally {
    l.close();
  }
}

describe('the CLI and the app release through one pipeline', { timeout: CLI_TIMEOUT }, () => {
  it('a seeded run writes identical synthetic rows and the same ledger record from the CLI and the app', async () => {
    // The app, in web mode: the file uploaded into its work directory.
    const workDir = path.join(dir, 'work');
    mkdirSync(path.join(workDir, 'uploads', '0'), { recursive: true });
    const appLedger = path.join(dir, 'app-ledger.sqlite');
    const services = createServices({
      mode: 'web',
      ledgerPath: appLedger,
      workDir,
      emit: () => {},
      log: () => {},
    });
    const call = <M extends ApiMethod>(m: M, arg: ApiArg<M>) =>
      dispatch(services, m, arg) as Promise<ApiResult<M>>;
    const upload = path.join(workDir, 'uploads', '0', 'people.csv');
    writeFileSync(upload, dataCsv());
    const opened = await call('openDataset', { path: upload, header: 'yes' });
    // One schema text and one workload text for both: the app imports them, the CLI reads them.
    // Declared on purpose (a schema read off the data would be refused, or discovered privately).
    const schemaText = (await call('exportSchema', { datasetId: opened.id })).text.replace(
      '"origin": "inferred"',
      '"origin": "declared"',
    );
    const ds = await call('importSchema', { datasetId: opened.id, text: schemaText });
    await call('setWorkload', {
      datasetId: ds.id,
      role: 'main',
      thresholds: [
        { features: ['shade', 'size'], r: 2, weight: 1 },
        { features: ['size', 'age'], r: 1, weight: 2 },
      ],
    });
    const workloadText = (await call('exportWorkload', { datasetId: ds.id, role: 'main' })).text;
    await call('setCap', { datasetId: ds.id, epsilon: '5' });
    const settings = {
      epsilon: '1',
      rows: '16',
      rounds: '2',
      perRound: '1',
      oversample: '2',
      insecureSeed: '7',
    };
    await call('startRun', { datasetId: ds.id, settings });
    let run = await call('runState', {});
    for (const until = Date.now() + 120_000; run && isActiveStatus(run.status) && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 50));
      run = await call('runState', {});
    }
    expect(run?.status).toBe('finished');
    // The service refuses to export a seeded run as a release, whatever the caller.
    await expect(call('exportRun', { runId: run!.runId })).rejects.toThrow(
      /ran with an insecure seed: .* NOT a differentially private release/,
    );
    expect(releases(appLedger)[0].status).toBe('reserved');
    const appCsv = readFileSync(path.join(dir, 'results', run!.releaseId!, 'synthetic.csv'), 'utf8');

    // The CLI, on a copy of the same file under the same name.
    const cliDir = path.join(dir, 'cli');
    mkdirSync(cliDir);
    writeFileSync(path.join(cliDir, 'people.csv'), dataCsv());
    writeFileSync(path.join(cliDir, 'schema.json'), schemaText);
    writeFileSync(path.join(cliDir, 'w.json'), workloadText);
    const cliLedger = path.join(dir, 'cli-ledger.sqlite');
    const cli = await runCli(
      [
        'synth',
        '--data',
        'people.csv',
        '--schema',
        'schema.json',
        '--workload',
        'w.json',
        '--epsilon',
        '1',
        '--rows',
        '16',
        '--rounds',
        '2',
        '--per-round',
        '1',
        '--oversample',
        '2',
        '--seed',
        '7',
        '--insecure-seed',
        '--budget-epsilon',
        '5',
        '--confirm-cap',
        '--out',
        'out.csv',
        '--report',
        'report.json',
        '--ledger',
        cliLedger,
      ],
      cliDir,
    );
    expect(cli.stderr).not.toMatch(/error/i);
    expect(cli.code).toBe(0);
    const cliCsv = readFileSync(path.join(cliDir, 'out.csv'), 'utf8');

    expect(cliCsv.split('\n').length).toBe(16 * 2 + 2); // header, 32 rows, final newline
    expect(appCsv).toBe(cliCsv);
    const [fromApp] = releases(appLedger);
    const [fromCli] = releases(cliLedger);
    expect(fromCli.status).toBe('committed');
    const manifest = JSON.parse(readFileSync(path.join(cliDir, 'out.manifest.json'), 'utf8'));
    expect(manifest.notARelease).toContain('NOT a differentially private release');
    expect(Object.keys(recorded(fromApp)).length).toBeGreaterThan(10);
    expect(recorded(fromApp)).toEqual(recorded(fromCli));
  });
});
