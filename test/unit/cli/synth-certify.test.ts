/**
 * `rap-studio synth --certify ζ`: the relative-error pass through the release pipeline — the
 * ledger reserves and charges the same ρ(ε, δ) as without it (the pass's share comes out of the
 * synthesis), the ledger event records the pass's plan, and the public manifest carries the
 * accuracy certificate and the pass's cost beside the synthesis's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../../../src/core/privacy/accounting.ts';
import { CLI_TIMEOUT, cappedFixture, runCli, synthArgs, withLedger } from '../../support/cli.ts';

const { fx, ledger } = cappedFixture(2000);

const json = (name: string) => JSON.parse(readFileSync(path.join(fx.dir, name)).toString());

describe('synth --certify', { timeout: CLI_TIMEOUT }, () => {
  it('charges ρ(ε, δ) in total, records the pass, and writes the certificate in the manifest', async () => {
    const r = await runCli(
      synthArgs(ledger, [
        '--seed',
        '3',
        '--insecure-seed',
        '--certify',
        '0.25',
        '--certify-share',
        '0.2',
        '--out',
        'cert.csv',
        '--report',
        'cert.json',
      ]),
      fx.dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/accuracy certificate: (With probability ≥ 0\.95|The relative-error pass)/);
    const total = rhoFromEpsilon(1, 1e-6);
    const manifest = json('cert.manifest.json');
    const cert = manifest.accuracyCertificate;
    expect(cert.zeta).toBe(0.25);
    expect(cert.beta).toBe(0.05);
    expect(cert.rho).toBeCloseTo(0.2 * total, 15);
    expect(cert.epsilon).toBeCloseTo(Math.sqrt(2 * cert.rho), 15);
    expect(manifest.privacy.rho).toBe(total);
    expect(manifest.privacy.relativeErrorPass.rho).toBe(cert.rho);
    expect(manifest.privacy.synthesis.rho + manifest.privacy.relativeErrorPass.rho).toBeCloseTo(total, 15);
    // Nothing else computed from the data: no error metric in the manifest.
    expect(JSON.stringify(manifest)).not.toMatch(/presentError|relativeErrorProfile|relativeErrorBefore/);
    const report = json('cert.json');
    withLedger(ledger, (l) => {
      const event = l.release(report.releaseId);
      expect(event?.rho).toBe(total);
      expect(event?.status).toBe('committed');
      const params = event?.params as unknown as { certify?: { zeta: number; share: number; alpha: number } };
      expect(params.certify?.zeta).toBe(0.25);
      expect(params.certify?.share).toBe(0.2);
      expect(params.certify?.alpha).toBeCloseTo(cert.alpha, 15);
    });
  });
});
