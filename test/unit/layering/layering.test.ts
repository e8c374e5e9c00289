/**
 * The README's layering, enforced: renderer → preload API → services → core, one way; core never
 * imports services, the CLI, the host, main, the renderer or Electron; only the ledger loads the
 * database; no import cycle anywhere in src/.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, type Graph, importGraph, importsOf, violations } from './graph.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function graphOf(edges: Record<string, readonly string[]>): Graph {
  return new Map(
    Object.entries(edges).map(([file, targets]) => [
      file,
      targets.map((t) =>
        t.startsWith('src/')
          ? { spec: t, target: t, typeOnly: false }
          : { spec: t, target: null, typeOnly: false },
      ),
    ]),
  );
}

describe('layering of src/', () => {
  const graph = importGraph(root);

  it('reads the whole tree (every layer has files)', () => {
    const files = [...graph.keys()];
    for (const layer of ['renderer', 'preload', 'shared', 'main', 'host', 'services', 'cli', 'core']) {
      expect(
        files.some((f) => f.startsWith(`src/${layer}/`)),
        layer,
      ).toBe(true);
    }
    expect(files.some((f) => f.endsWith('.vue'))).toBe(true);
  });

  it('no file imports against the layers', () => {
    expect(violations(graph)).toEqual([]);
  });

  it('no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });
});

describe('the checker', () => {
  it('finds imports, re-exports, dynamic imports and type-only imports', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from './b.ts';",
      "import { type C } from './c.ts';",
      "export { d } from './d.ts';",
      "export type { E } from './e.ts';",
      "const f = await import('./f.ts');",
      "import './g.ts';",
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual([
      { spec: './a.ts', typeOnly: false },
      { spec: './b.ts', typeOnly: true },
      { spec: './c.ts', typeOnly: true },
      { spec: './d.ts', typeOnly: false },
      { spec: './e.ts', typeOnly: true },
      { spec: './f.ts', typeOnly: false },
      { spec: './g.ts', typeOnly: false },
    ]);
    expect(
      importsOf(
        'x.vue',
        '<template><p/></template>\n<script setup lang="ts">import x from \'./x\';</script>',
      ),
    ).toEqual([{ spec: './x', typeOnly: false }]);
  });

  it('refuses core → services, services → cli, renderer → core, electron and the database outside their owners', () => {
    const bad = graphOf({
      'src/core/a.ts': ['src/services/b.ts', 'electron'],
      'src/services/b.ts': ['src/cli/c.ts', 'better-sqlite3'],
      'src/cli/c.ts': [],
      'src/renderer/src/d.ts': ['src/core/a.ts', 'node:fs'],
      'src/core/ledger/e.ts': ['better-sqlite3'],
      'src/main/f.ts': ['electron', 'src/services/b.ts'],
    });
    expect(violations(bad)).toEqual([
      'src/core/a.ts (core) imports src/services/b.ts (services): core may import core only',
      "src/core/a.ts imports 'electron', which only src/main/, src/preload/ may import",
      'src/services/b.ts (services) imports src/cli/c.ts (cli): services may import services, shared, core only',
      "src/services/b.ts imports 'better-sqlite3', which only src/core/ledger/ may import",
      'src/renderer/src/d.ts (renderer) imports src/core/a.ts (core): renderer may import renderer, shared only',
      "src/renderer/src/d.ts imports 'node:fs': the renderer is a web page, no Node modules",
    ]);
  });

  it('lets the shared API name core types but not load core code', () => {
    const g: Graph = new Map([
      ['src/shared/api.ts', [{ spec: '../core/t.ts', target: 'src/core/t.ts', typeOnly: true }]],
      ['src/shared/run.ts', [{ spec: '../core/t.ts', target: 'src/core/t.ts', typeOnly: false }]],
      ['src/core/t.ts', []],
    ]);
    expect(violations(g)).toEqual([
      'src/shared/run.ts (shared) imports src/core/t.ts (core): shared may import shared (and types from core) only',
    ]);
  });

  it('finds every cycle, long or short, and none in a tree', () => {
    const g = graphOf({
      'src/core/a.ts': ['src/core/b.ts'],
      'src/core/b.ts': ['src/core/c.ts', 'src/core/d.ts'],
      'src/core/c.ts': ['src/core/a.ts'],
      'src/core/d.ts': ['src/core/d.ts'],
      'src/core/e.ts': ['src/core/a.ts'],
    });
    expect(cycles(g)).toEqual([['src/core/d.ts'], ['src/core/a.ts', 'src/core/b.ts', 'src/core/c.ts']]);
    expect(cycles(graphOf({ 'src/core/a.ts': ['src/core/b.ts'], 'src/core/b.ts': [] }))).toEqual([]);
  });
});
