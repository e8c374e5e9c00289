/**
 * The folder maps stay complete: every source file under src/ (tests aside) is named in the
 * README.md of the nearest folder above it that has one, so a file added without a row in its
 * map fails here. The folders below must keep a map.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Folders a newcomer needs a map for. */
const MAPPED = [
  'src/services',
  'src/core/data',
  'src/core/discovery',
  'src/core/engine',
  'src/core/engine/kernels',
  'src/core/privacy',
  'src/core/release',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.(ts|vue)$/.test(name) && !/\.(test|d)\.ts$/.test(name) ? [file] : [];
  });
}

/** The README.md of the nearest folder at or above `file`'s, inside src/; null if none. */
function mapOf(file: string): string | null {
  for (let dir = dirname(file); dir.startsWith(join(root, 'src')); dir = dirname(dir)) {
    if (existsSync(join(dir, 'README.md'))) return join(dir, 'README.md');
  }
  return null;
}

/** Source files the nearest map does not name (by file name, e.g. `decode.ts`), as '<map>: <file>'. */
function unmapped(files: readonly string[]): string[] {
  const texts = new Map<string, string>();
  const missing: string[] = [];
  for (const file of files) {
    const map = mapOf(file);
    if (map === null) continue;
    if (!texts.has(map)) texts.set(map, readFileSync(map, 'utf8'));
    if (!texts.get(map)!.includes(basename(file))) {
      missing.push(`${relative(root, map)}: ${relative(root, file)}`);
    }
  }
  return missing;
}

describe('folder maps', () => {
  it('the folders that need a map have one', () => {
    expect(MAPPED.filter((dir) => !existsSync(join(root, dir, 'README.md')))).toEqual([]);
  });

  it('every source file is named in its folder map', () => {
    const files = sourceFiles(join(root, 'src'));
    expect(files.length).toBeGreaterThan(100);
    expect(unmapped(files)).toEqual([]);
  });
});
