import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EncodedDataset } from '../../data/schema.ts';
import { InputError } from '../../errors.ts';
import type { ProgressEvent } from '../types.ts';
import {
  type EngineProcess,
  engineExecArgv,
  engineHeapLimitMiB,
  forkSpawner,
  startEngine,
} from './client.ts';
import { CancelledError, EngineCrashedError } from './errors.ts';
import type { EngineRequest } from './protocol.ts';
import { type UtilityProcessLike, utilityProcessSpawner } from './utility-process.ts';

const FAKE_CHILD = fileURLToPath(new URL('./fixtures/fake-engine-child.ts', import.meta.url));

const data: EncodedDataset = {
  schema: {
    version: 1,
    origin: 'declared',
    columns: [
      { name: 'a', kind: 'categorical', categories: ['x', 'y', 'z'], missing: false },
      { name: 'b', kind: 'numeric', edges: [0, 10, 20], integer: true, missing: true },
    ],
  },
  n: 4,
  codes: [Uint8Array.from([0, 1, 2, 1]), Uint16Array.from([0, 1, 2, 2])],
};

const request: EngineRequest = {
  data,
  workload: { thresholds: [{ features: [0, 1], r: 2, weight: 1 }] },
  options: {
    epsilon: 1,
    delta: 1e-6,
    rows: 3,
    oversample: 1,
    mode: 'query',
    selection: 'oneshot',
    learningRate: 0.1,
    maxSteps: 10,
    tolerance: 1e-4,
    batchSize: 100,
  },
  noise: { mode: 'secure' },
};

function fake(mode: string) {
  return forkSpawner(FAKE_CHILD, { ...process.env, FAKE_ENGINE_MODE: mode });
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.concurrent('startEngine (fake engine child)', () => {
  it('runs to done: progress arrives, typed arrays round-trip, child has exited', async () => {
    const events: ProgressEvent[] = [];
    const handle = startEngine(request, { spawner: fake('done'), onProgress: (e) => events.push(e) });
    const result = await handle.result;
    expect(events.length).toBeGreaterThan(0);
    expect(result.synthetic.n).toBe(3);
    expect(result.synthetic.codes[0]).toBeInstanceOf(Uint8Array);
    expect(result.synthetic.codes[1]).toBeInstanceOf(Uint16Array);
    expect([...result.synthetic.codes[1]]).toEqual([0, 1, 2]);
    expect(result.report.epsilon).toBe(1);
    expect(isAlive(handle.pid)).toBe(false);
  });

  it('cancel stops a cooperative run: CancelledError, child gone', async () => {
    let handle: ReturnType<typeof startEngine> | undefined;
    handle = startEngine(request, { spawner: fake('slow'), onProgress: () => handle?.cancel() });
    await expect(handle.result).rejects.toBeInstanceOf(CancelledError);
    expect(isAlive(handle.pid)).toBe(false);
  });

  it('cancel kills a run that never yields (SIGKILL after the grace period)', async () => {
    const handle = startEngine(request, { spawner: fake('stubborn'), killAfterMs: 300 });
    // Give the child time to start and enter its busy loop, then cancel.
    await new Promise((r) => setTimeout(r, 1500));
    handle.cancel();
    await expect(handle.result).rejects.toBeInstanceOf(CancelledError);
    expect(isAlive(handle.pid)).toBe(false);
  });

  it('cancel before the child is ready kills it without sending data', async () => {
    const sent: string[] = [];
    const inner = fake('done');
    const spy = (): EngineProcess => {
      const p = inner();
      return {
        ...p,
        pid: p.pid,
        send: (m) => {
          sent.push(m.type);
          p.send(m);
        },
      };
    };
    const handle = startEngine(request, { spawner: spy });
    handle.cancel();
    await expect(handle.result).rejects.toBeInstanceOf(CancelledError);
    expect(sent).toEqual([]);
  });

  it('an input error in the engine becomes an InputError with its location', async () => {
    const handle = startEngine(request, { spawner: fake('input-error') });
    const err = await handle.result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe('workload names no column "zip"');
    expect((err as InputError).where).toEqual({ field: 'zip' });
  });

  it('a child that exits without reporting rejects with the exit code', async () => {
    const handle = startEngine(request, { spawner: fake('crash') });
    const err = await handle.result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineCrashedError);
    expect((err as EngineCrashedError).exitCode).toBe(7);
    expect((err as Error).message).toContain('exit code 7');
  });

  it('a child over its memory limit (--max-old-space-size) rejects as out of memory, naming the limit', async () => {
    const env = { ...process.env, FAKE_ENGINE_MODE: 'oom', RAP_STUDIO_ENGINE_HEAP_MB: '64' };
    const handle = startEngine(request, { spawner: forkSpawner(FAKE_CHILD, env) });
    const err = await handle.result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineCrashedError);
    expect((err as EngineCrashedError).outOfMemory).toBe(true);
    expect((err as Error).message).toMatch(/out of memory.*ran out of memory \(its limit is \d+ MiB\)/);
    expect(isAlive(handle.pid)).toBe(false);
  });

  it('the engine heap limit: half the machine, 1–16 GiB, or RAP_STUDIO_ENGINE_HEAP_MB', () => {
    expect(engineHeapLimitMiB({ RAP_STUDIO_ENGINE_HEAP_MB: '256' })).toBe(256);
    const auto = engineHeapLimitMiB({});
    expect(auto).toBeGreaterThanOrEqual(1024);
    expect(auto).toBeLessThanOrEqual(16_384);
    expect(engineExecArgv({ RAP_STUDIO_ENGINE_HEAP_MB: '300' })).toEqual(['--max-old-space-size=300']);
  });

  it('a child killed from outside rejects with the signal', async () => {
    const handle = startEngine(request, {
      spawner: fake('slow'),
      onProgress: () => handle.pid && isAlive(handle.pid) && process.kill(handle.pid, 'SIGKILL'),
    });
    const err = await handle.result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineCrashedError);
    expect((err as EngineCrashedError).signal).toBe('SIGKILL');
    expect((err as Error).message).toMatch(/killed with SIGKILL/);
  });

  it('a malformed message is a protocol error and the child is killed', async () => {
    const handle = startEngine(request, { spawner: fake('garbage') });
    await expect(handle.result).rejects.toThrow(/invalid engine→host message/);
    expect(isAlive(handle.pid)).toBe(false);
  });

  it('a child that lingers after done is killed; the result still arrives', async () => {
    const handle = startEngine(request, { spawner: fake('linger'), killAfterMs: 200 });
    const result = await handle.result;
    expect(result.synthetic.n).toBe(3);
    expect(isAlive(handle.pid)).toBe(false);
  });
});

/** A stand-in for Electron's UtilityProcess (postMessage, 'message', 'exit' with a code only). */
function fakeUtilityProcess(mode: string): UtilityProcessLike {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = fork(FAKE_CHILD, [], {
    execArgv: ['--import', tsx],
    serialization: 'advanced',
    env: { ...process.env, FAKE_ENGINE_MODE: mode },
  });
  const events = new EventEmitter();
  child.on('message', (m) => events.emit('message', m));
  child.on('exit', (code, signal) => events.emit('exit', code ?? (signal ? 1 : 0)));
  return {
    get pid() {
      return child.pid;
    },
    postMessage: (m) => child.send(m as object),
    on: ((event: string, listener: (...args: unknown[]) => void) =>
      events.on(event, listener)) as UtilityProcessLike['on'],
    kill: () => child.kill('SIGTERM'),
  };
}

describe.concurrent('startEngine through the utilityProcess adapter', () => {
  it('runs to done', async () => {
    const handle = startEngine(request, { spawner: utilityProcessSpawner(() => fakeUtilityProcess('done')) });
    expect((await handle.result).synthetic.n).toBe(3);
  });

  it('reports a crash by its exit code', async () => {
    const handle = startEngine(request, {
      spawner: utilityProcessSpawner(() => fakeUtilityProcess('crash')),
    });
    await expect(handle.result).rejects.toThrow(/exit code 7/);
  });

  it('cancel of a run that never yields ends the process', async () => {
    const handle = startEngine(request, {
      spawner: utilityProcessSpawner(() => fakeUtilityProcess('stubborn')),
      killAfterMs: 300,
    });
    await new Promise((r) => setTimeout(r, 1500));
    handle.cancel();
    await expect(handle.result).rejects.toBeInstanceOf(CancelledError);
    expect(isAlive(handle.pid)).toBe(false);
  });
});
