/**
 * The README's layering, enforced: renderer → preload API → services → core, one way; core never
 * imports services, the CLI, the host, main, the renderer or Electron; only the ledger loads the
 * database; inside src/core the folders follow CORE_ORDER; no import cycle anywhere in src/;
 * bench/ and test/ may import src/, never the other way, and product code loads no test support;
 * the unit and e2e suites share helpers only through test/support;
 * every import names its module literally (the CLI's commands included).
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  COMPUTED,
  CORE_ORDER,
  coreFolderOf,
  coreOrderViolations,
  cycles,
  type Graph,
  importGraph,
  importsOf,
  isTestSupport,
  supportViolations,
  violations,
} from './graph.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function graphOf(edges: Record<string, readonly string[]>): Graph {
  return new Map(
    Object.entries(edges).map(([file, targets]) => [
      file,
      targets.map((t) =>
        /^(src|bench|test)\//.test(t)
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

  it('inside src/core every folder imports only folders below it in CORE_ORDER', () => {
    const folders = new Set([...graph.keys()].map(coreFolderOf).filter((f) => f !== null));
    expect([...folders].sort()).toEqual(CORE_ORDER.flat().sort());
    expect(coreOrderViolations(graph)).toEqual([]);
  });

  it('the CLI imports every command module by name, so a module that fails to load fails loudly', () => {
    const commands = readdirSync(`${root}src/cli/commands`)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => `src/cli/commands/${f}`);
    const loaded = (graph.get('src/cli/index.ts') ?? []).map((i) => i.target);
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.filter((c) => !loaded.includes(c))).toEqual([]);
  });
});

describe('src/, bench/ and test/', () => {
  const all = importGraph(root, 'src', 'bench', 'test');

  it('reads bench/ and test/ too', () => {
    expect([...all.keys()].some((f) => f.startsWith('bench/'))).toBe(true);
    expect([...all.keys()].some((f) => f.startsWith('test/'))).toBe(true);
  });

  it('src/ imports neither bench/ nor test/, and product code no test support', () => {
    expect(supportViolations(all)).toEqual([]);
  });

  it('no import cycle across them', () => {
    expect(cycles(all)).toEqual([]);
  });

  it('the unit and e2e suites never import each other: what both need lives in test/support', () => {
    const across = [...all].flatMap(([file, imports]) => {
      const suite = /^test\/(unit|e2e)\//.exec(file)?.[1];
      const other = suite === 'unit' ? 'test/e2e/' : 'test/unit/';
      return suite
        ? imports.filter((i) => i.target?.startsWith(other)).map((i) => `${file} imports ${i.target}`)
        : [];
    });
    expect([...all.keys()].some((f) => f.startsWith('test/support/'))).toBe(true);
    expect(across).toEqual([]);
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
      'const h = await import("./" + name);',
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual([
      { spec: './a.ts', typeOnly: false },
      { spec: './b.ts', typeOnly: true },
      { spec: './c.ts', typeOnly: true },
      { spec: './d.ts', typeOnly: false },
      { spec: './e.ts', typeOnly: true },
      { spec: './f.ts', typeOnly: false },
      { spec: './g.ts', typeOnly: false },
      { spec: COMPUTED, typeOnly: false },
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

  it('refuses a computed import() outside the listed files', () => {
    const g: Graph = new Map([['src/cli/index.ts', [{ spec: COMPUTED, target: null, typeOnly: false }]]]);
    expect(violations(g)).toEqual([
      'src/cli/index.ts imports a computed module name: write the specifier as a literal',
    ]);
  });

  it('refuses an edge up or across CORE_ORDER and allows one down', () => {
    const g = graphOf({
      'src/core/privacy/a.ts': ['src/core/data/b.ts', 'src/core/errors.ts'],
      'src/core/data/b.ts': ['src/core/privacy/a.ts', 'src/core/data/c.ts'],
      'src/core/workload/d.ts': ['src/core/ledger/e.ts'],
      'src/core/release/f.ts': ['src/core/engine/kernels/g.ts', 'src/core/discovery/h.ts'],
    });
    expect(coreOrderViolations(g).map((v) => v.split(':')[0])).toEqual([
      'src/core/privacy/a.ts (core/privacy) imports src/core/data/b.ts (core/data)',
      'src/core/workload/d.ts (core/workload) imports src/core/ledger/e.ts (core/ledger)',
    ]);
  });

  it('tells test support from product code, and refuses src → bench, src → test, product → test support', () => {
    for (const f of [
      'test/e2e/ui.ts',
      'src/core/data/x.test.ts',
      'src/core/privacy/testing/stats.ts',
      'src/core/engine/testing.ts',
      'src/core/workload/test-data.ts',
      'src/core/ledger/testing/fixtures.ts',
      'src/core/engine/kernels/kernel-fixtures.ts',
      'src/core/engine/process/fixtures/fake-engine-child.ts',
    ]) {
      expect(isTestSupport(f), f).toBe(true);
    }
    expect(isTestSupport('src/core/data/two-sample.ts')).toBe(false);
    const g = graphOf({
      'src/services/a.ts': ['src/core/privacy/testing/stats.ts'],
      'src/core/b.ts': ['bench/lib/c.ts', 'test/e2e/d.ts'],
      'src/core/e.test.ts': ['src/core/privacy/testing/stats.ts'],
      'bench/lib/c.ts': ['src/core/b.ts', 'src/core/privacy/testing/stats.ts'],
    });
    expect(supportViolations(g)).toEqual([
      'src/services/a.ts imports src/core/privacy/testing/stats.ts, which is test support: move what the product needs into product code',
      'src/core/b.ts imports bench/lib/c.ts: src/ never imports bench/',
      'src/core/b.ts imports test/e2e/d.ts: src/ never imports test/',
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
