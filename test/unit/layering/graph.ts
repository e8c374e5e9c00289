/**
 * The import graph of src/ and the layering rules the README states: renderer → preload API →
 * services → core, one way. Imports are parsed with the installed TypeScript compiler (no new
 * dependency), relative paths resolved to files, cycles found with Tarjan's algorithm.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface Import {
  /** The specifier as written ('./x.ts', 'electron'). */
  readonly spec: string;
  /** The file it resolves to, relative to the root with '/' separators; null for a package. */
  readonly target: string | null;
  /** `import type` / `export type`: erased at run time. */
  readonly typeOnly: boolean;
}

export type Graph = ReadonlyMap<string, readonly Import[]>;

const SOURCE = /\.(ts|vue)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [file] : [];
  });
}

/** The script blocks of a .vue file (the template imports nothing). */
function scriptOf(file: string, text: string): string {
  if (!file.endsWith('.vue')) return text;
  return [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
}

function typeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import './x'` runs the module
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    clause.name === undefined &&
    named !== undefined &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

/** The specifier recorded for `import(expr)` when `expr` is not a string literal: an edge no one can follow. */
export const COMPUTED = '(computed)';

/** Every module specifier in `text`: static imports and re-exports, dynamic import(). */
export function importsOf(file: string, text: string): { spec: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, scriptOf(file, text), ts.ScriptTarget.Latest, false);
  const found: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: typeOnlyImport(node) });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ spec: node.arguments[0].text, typeOnly: false });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      found.push({ spec: COMPUTED, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const lit = node.argument.literal;
      if (ts.isStringLiteral(lit)) found.push({ spec: lit.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function resolveRelative(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.vue`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const posix = (p: string) => p.split(sep).join('/');

/** The graph of every .ts/.vue file under `root/dir` (each of `dirs`), keyed by path relative to `root`. */
export function importGraph(root: string, ...dirs: string[]): Graph {
  const graph = new Map<string, Import[]>();
  for (const file of (dirs.length > 0 ? dirs : ['src']).flatMap((d) => sourceFiles(join(root, d)))) {
    const imports = importsOf(file, readFileSync(file, 'utf8')).map(({ spec, typeOnly }) => {
      if (!spec.startsWith('.')) return { spec, target: null, typeOnly };
      const hit = resolveRelative(file, spec);
      return { spec, target: hit ? posix(relative(root, hit)) : `unresolved:${spec}`, typeOnly };
    });
    graph.set(posix(relative(root, file)), imports);
  }
  return graph;
}

// ---- the rules ---------------------------------------------------------------------------------

export type Layer = 'renderer' | 'preload' | 'shared' | 'main' | 'host' | 'services' | 'cli' | 'core';

export function layerOf(file: string): Layer | null {
  const m = /^src\/(renderer|preload|shared|main|host|services|cli|core)\//.exec(file);
  return m ? (m[1] as Layer) : null;
}

/**
 * Which layers each layer may import. The shared API (src/shared) sits between the renderer
 * and the main side: it may name core types (`import type`, erased) but load no core code, so
 * the browser renderer never pulls in Node modules.
 */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  renderer: ['renderer', 'shared'],
  preload: ['preload', 'shared'],
  shared: ['shared'],
  main: ['main', 'services', 'shared', 'core'],
  host: ['host', 'services', 'shared', 'core'],
  services: ['services', 'shared', 'core'],
  cli: ['cli', 'shared', 'core'],
  core: ['core'],
};
const TYPES_ONLY_MAY_IMPORT: Partial<Record<Layer, readonly Layer[]>> = { shared: ['core'] };

/**
 * The order inside src/core, lowest first: a folder may import its own files and the folders on
 * lower rows, never a folder on its own row or above. '.' is the files directly in src/core
 * (errors.ts, version.ts). This is the one place the order is written; the README points here.
 */
export const CORE_ORDER: readonly (readonly string[])[] = [
  ['.'],
  ['privacy'],
  ['input', 'sql'],
  ['data'],
  ['workload', 'ledger'],
  ['engine', 'discovery', 'counting'],
  ['release'],
];

/** The folder of a file under src/core ('.' for src/core/x.ts), or null outside src/core. */
export function coreFolderOf(file: string): string | null {
  const m = /^src\/core\/(?:([^/]+)\/)?[^/]+$/.exec(file) ?? /^src\/core\/([^/]+)\//.exec(file);
  if (!m) return null;
  return m[1] ?? '.';
}

function coreRank(folder: string): number {
  const rank = CORE_ORDER.findIndex((row) => row.includes(folder));
  return rank < 0 ? Number.POSITIVE_INFINITY : rank;
}

/**
 * Test support: modules that exist for the tests (the naming conventions in use). Product code
 * under src/ never loads them; tests, bench/ and other test support may.
 */
export function isTestSupport(file: string): boolean {
  return (
    file.startsWith('test/') ||
    /\.test\.ts$/.test(file) ||
    /(^|\/)(testing|fixtures)\//.test(file) ||
    /(^|\/)(testing|test-data|[^/]*fixtures)\.ts$/.test(file)
  );
}

/**
 * Product code that loads test support on purpose, with the reason. Keep this short.
 */
const TEST_SUPPORT_USERS: Record<string, string> = {
  // The GPU backend's start-up self-check runs the kernel tests' fixture batch against the typed
  // kernels (README "GPU"), so the check and the tests cannot drift apart.
  'src/core/engine/kernels/kernel-check.ts': 'the start-up self-check runs the kernel fixture batch',
};

/** Edges inside src/core that go against CORE_ORDER (tests included: they live in the same folders). */
export function coreOrderViolations(graph: Graph): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const from = coreFolderOf(file);
    if (from === null) continue;
    if (!Number.isFinite(coreRank(from))) {
      found.push(`${file}: src/core/${from} has no row in CORE_ORDER (test/unit/layering/graph.ts)`);
      continue;
    }
    for (const imp of imports) {
      const to = imp.target ? coreFolderOf(imp.target) : null;
      if (to === null || to === from) continue;
      if (coreRank(to) >= coreRank(from)) {
        found.push(
          `${file} (core/${from}) imports ${imp.target} (core/${to}): the order inside src/core is ` +
            `${CORE_ORDER.map((row) => row.join(' = ')).join(' < ')}`,
        );
      }
    }
  }
  return found;
}

/**
 * Where src/, bench/ and test/ meet: bench/ and test/ may import src/; src/ never imports bench/
 * or test/, and product code under src/ never imports test support (TEST_SUPPORT_USERS aside).
 */
export function supportViolations(graph: Graph): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    if (!file.startsWith('src/') || isTestSupport(file)) continue;
    for (const imp of imports) {
      const t = imp.target;
      if (t === null || t.startsWith('unresolved:')) continue;
      if (t.startsWith('bench/')) found.push(`${file} imports ${t}: src/ never imports bench/`);
      else if (t.startsWith('test/')) found.push(`${file} imports ${t}: src/ never imports test/`);
      else if (isTestSupport(t) && !(file in TEST_SUPPORT_USERS)) {
        found.push(
          `${file} imports ${t}, which is test support: move what the product needs into product code`,
        );
      }
    }
  }
  return found;
}

/** Packages only some folders may load (prefix of the importing file). */
const PACKAGE_OWNERS: Record<string, readonly string[]> = {
  electron: ['src/main/', 'src/preload/'],
  'better-sqlite3': ['src/core/ledger/'],
};

/**
 * Files that may load a module whose name is computed at run time, with the reason. Everything
 * else names its imports literally, so this graph sees every edge and a missing module fails loudly.
 */
const COMPUTED_IMPORTS: Record<string, string> = {
  // tfjs-node(-gpu) are optional packages: a literal import would not type-check where they are absent.
  'src/core/engine/kernels/backend.ts': 'optional native TensorFlow.js packages',
};

export function violations(graph: Graph): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const from = layerOf(file);
    for (const imp of imports) {
      if (imp.spec === COMPUTED) {
        if (!(file in COMPUTED_IMPORTS)) {
          found.push(`${file} imports a computed module name: write the specifier as a literal`);
        }
        continue;
      }
      if (imp.target === null) {
        const pkg = imp.spec.startsWith('@')
          ? imp.spec.split('/').slice(0, 2).join('/')
          : imp.spec.split('/')[0];
        const owners = PACKAGE_OWNERS[pkg];
        if (owners && !owners.some((o) => file.startsWith(o)) && !imp.typeOnly) {
          found.push(`${file} imports '${imp.spec}', which only ${owners.join(', ')} may import`);
        }
        if (from === 'renderer' && pkg.startsWith('node:')) {
          found.push(`${file} imports '${imp.spec}': the renderer is a web page, no Node modules`);
        }
        continue;
      }
      if (imp.target.startsWith('unresolved:')) {
        found.push(`${file} imports '${imp.spec}', which resolves to no file`);
        continue;
      }
      const to = layerOf(imp.target);
      if (from === null || to === null) continue;
      const ok =
        MAY_IMPORT[from].includes(to) || (imp.typeOnly && (TYPES_ONLY_MAY_IMPORT[from] ?? []).includes(to));
      if (!ok) {
        found.push(
          `${file} (${from}) imports ${imp.target} (${to}): ${from} may import ${MAY_IMPORT[from].join(', ')}` +
            `${TYPES_ONLY_MAY_IMPORT[from] ? ` (and types from ${TYPES_ONLY_MAY_IMPORT[from]!.join(', ')})` : ''} only`,
        );
      }
    }
  }
  return found;
}

/** Strongly connected components with more than one file (or a file importing itself): Tarjan. */
export function cycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const result: string[][] = [];
  let next = 0;
  const edges = (v: string) =>
    (graph.get(v) ?? []).map((i) => i.target).filter((t): t is string => t !== null && graph.has(t));
  const strongConnect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges(v).includes(v)) result.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) strongConnect(v);
  return result;
}
