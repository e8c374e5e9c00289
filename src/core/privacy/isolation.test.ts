/**
 * Structural guarantees: the privacy core depends only on node:crypto and itself, and it is the
 * only place under src/core that draws random numbers, apart from the reviewed non-noise uses
 * listed below.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const privacyDir = fileURLToPath(new URL('.', import.meta.url));
const coreDir = join(privacyDir, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs|vue)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

const isTest = (file: string) => file.endsWith('.test.ts');
const isInPrivacy = (file: string) => !relative(privacyDir, file).startsWith('..');

/** Source text without comments, so that prose about randomness does not count as a use. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** Spelled in pieces so that this file does not match its own searches. */
const MATH_RANDOM = 'Math.' + 'random';
const RANDOMNESS_APIS = [
  MATH_RANDOM,
  'random' + 'FillSync',
  'random' + 'Bytes',
  'random' + 'Int',
  'getRandom' + 'Values',
];

function randomnessUses(text: string): string[] {
  return RANDOMNESS_APIS.filter((api) => new RegExp(`\\b${api.replace('.', '\\.')}\\b`).test(text));
}

/**
 * Reviewed uses of randomness under src/core that are not privacy noise. A new entry needs a
 * reason why it cannot affect the privacy guarantee.
 */
const NOT_PRIVACY_NOISE: Readonly<Record<string, readonly string[]>> = {
  // Random suffix of a temporary file name for atomic writes.
  'data/atomic-write.ts': ['random' + 'Bytes'],
  // The record of a pending temp file (its name and this process's token, so a pid reused after
  // a restart is told apart): file bookkeeping, never in any output.
  'release/pending-writes.ts': ['random' + 'Bytes'],
  // The same for the ledger's anchor file (ledger/anchor.ts).
  'ledger/anchor.ts': ['random' + 'Bytes'],
  // The ledger's secret key, which keys what the ledger puts in public files (issue 26): a key,
  // not noise; nothing released is drawn from it.
  'ledger/key.ts': ['random' + 'Bytes'],
  // Decoding released synthetic rows (spreading a value within its bin) is post-processing of a
  // DP output, which cannot weaken the guarantee.
  'data/decode.ts': [MATH_RANDOM],
};

describe('privacy core isolation', () => {
  it('imports nothing but node:crypto and its own files (no tfjs, Electron or database)', () => {
    const offending: string[] = [];
    for (const file of sourceFiles(privacyDir).filter((f) => !isTest(f))) {
      for (const match of code(file).matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
        const target = match[1];
        const inside = target.startsWith('.') && isInPrivacy(join(file, '..', target));
        if (target !== 'node:crypto' && !inside) offending.push(`${relative(coreDir, file)}: ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the privacy core never mentions the built-in Math PRNG, not even in tests or comments', () => {
    const hits = sourceFiles(privacyDir).filter((f) => readFileSync(f, 'utf8').includes(MATH_RANDOM));
    expect(hits).toEqual([]);
  });

  it('no file under src/core outside the privacy core draws randomness, except reviewed non-noise uses', () => {
    const unexpected: string[] = [];
    for (const file of sourceFiles(coreDir).filter((f) => !isInPrivacy(f) && !isTest(f))) {
      const name = relative(coreDir, file).split('\\').join('/');
      const allowed = NOT_PRIVACY_NOISE[name] ?? [];
      for (const api of randomnessUses(code(file))) {
        if (!allowed.includes(api)) unexpected.push(`${name}: ${api}`);
      }
    }
    expect(unexpected).toEqual([]);
  });

  it('the search finds what it looks for and ignores comments', () => {
    expect(randomnessUses(`const x = ${MATH_RANDOM}();`)).toEqual([MATH_RANDOM]);
    expect(randomnessUses(`import { ${'random' + 'FillSync'} } from 'node:crypto';`)).toHaveLength(1);
    expect(randomnessUses("import { createHash, randomUUID } from 'node:crypto';")).toEqual([]);
  });
});
