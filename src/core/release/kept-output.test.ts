import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import { DISCARD_REASON, discardOutput, exportOutput } from './kept-output.ts';

const steps = (log: string[], keep: string | null = 'kept-late') => ({
  keep: async () => {
    log.push('keep');
    return keep;
  },
  notKept: () => new Error('not stored'),
  publish: async (kept: string) => {
    log.push(`publish ${kept}`);
    return `written ${kept}`;
  },
});

describe('exportOutput', () => {
  it('publishes a finished output once; an exported one answers with its earlier outcome', async () => {
    const log: string[] = [];
    expect(await exportOutput({ status: 'finished', kept: 'a' }, steps(log))).toEqual({
      outcome: 'written a',
      first: true,
    });
    expect(await exportOutput({ status: 'exported', outcome: 'written a' }, steps(log))).toEqual({
      outcome: 'written a',
      first: false,
    });
    expect(log).toEqual(['publish a']);
  });

  it('keeps an output the store could not take before publishing it, or refuses', async () => {
    const log: string[] = [];
    expect((await exportOutput({ status: 'finished', kept: null }, steps(log))).outcome).toBe(
      'written kept-late',
    );
    expect(log).toEqual(['keep', 'publish kept-late']);
    await expect(exportOutput({ status: 'finished', kept: null }, steps([], null))).rejects.toThrow(
      'not stored',
    );
  });

  it('refuses a run that has not finished, publishing nothing', async () => {
    const log: string[] = [];
    await expect(exportOutput({ status: 'not-finished' }, steps(log))).rejects.toBeInstanceOf(InputError);
    expect(log).toEqual([]);
  });
});

describe('discardOutput', () => {
  it('removes the output, then ends the release in the ledger; the message says the spend stays', async () => {
    const log: string[] = [];
    const out = await discardOutput(
      { releaseId: 'r1', exported: false },
      {
        remove: async (id) => void log.push(`remove ${id}`),
        abort: async (id, reason) => void log.push(`abort ${id} ${reason}`),
      },
    );
    expect(log).toEqual(['remove r1', `abort r1 ${DISCARD_REASON}`]);
    expect(out.message).toMatch(/budget stays spent/);
  });

  it('refuses an exported release and tolerates a release the ledger ended already', async () => {
    const none = { remove: async () => {}, abort: async () => {} };
    await expect(discardOutput({ releaseId: 'r1', exported: true }, none)).rejects.toThrow(
      /exported already/,
    );
    const ended = {
      remove: async () => {},
      abort: async () => {
        throw new Error('already aborted');
      },
    };
    await expect(discardOutput({ releaseId: 'r2', exported: false }, ended)).resolves.toMatchObject({
      releaseId: 'r2',
    });
  });
});
