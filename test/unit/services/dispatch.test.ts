import { describe, expect, it } from 'vitest';
import { BudgetRefusedError, InputError } from '../../../src/core/errors.ts';
import { OutputNotWrittenError } from '../../../src/core/release/messages.ts';
import { argSchemas, dispatch, toErrorPayload } from '../../../src/services/dispatch.ts';
import { createServices } from '../../../src/services/services.ts';

const services = createServices({
  mode: 'web',
  ledgerPath: ':memory:',
  workDir: '/nonexistent',
  emit: () => {},
});

describe('dispatch', () => {
  it('has exactly one validator per service method', () => {
    expect(Object.keys(argSchemas).sort()).toEqual(Object.keys(services).sort());
  });

  it('refuses unknown methods and malformed arguments with an input error', async () => {
    await expect(dispatch(services, 'dropTables', {})).rejects.toMatchObject({
      payload: { kind: 'input', message: 'Unknown API method "dropTables".' },
    });
    await expect(dispatch(services, 'histogram', { datasetId: 'x' })).rejects.toMatchObject({
      payload: {
        kind: 'input',
        message: expect.stringContaining('Invalid argument for histogram at "column"'),
      },
    });
    await expect(
      dispatch(services, 'setWorkload', {
        datasetId: 'x',
        role: 'main',
        thresholds: [{ features: ['a'], r: '2', weight: 1 }],
      }),
    ).rejects.toMatchObject({
      payload: { kind: 'input', message: expect.stringContaining('thresholds.0.r') },
    });
    await expect(dispatch(services, 'appInfo', { extra: 1 })).rejects.toMatchObject({
      payload: { kind: 'input' },
    });
  });

  it('maps errors to payloads without forwarding internal details', () => {
    expect(toErrorPayload(new InputError('bad ε'))).toEqual({ kind: 'input', message: 'bad ε' });
    expect(toErrorPayload(new BudgetRefusedError('refused', 0, 0))).toEqual({
      kind: 'budget',
      message: 'refused',
    });
    expect(toErrorPayload(new OutputNotWrittenError('not written'))).toEqual({
      kind: 'output',
      message: 'not written',
    });
    const leaky = toErrorPayload(new Error('row 12: "Jane Doe, 42"'));
    expect(leaky.kind).toBe('internal');
    expect(leaky.message).not.toContain('Jane');
  });

  it('answers appInfo with the mode and the backends a curator may pick', async () => {
    const info = (await dispatch(services, 'appInfo', {})) as { mode: string; backends: string[] };
    expect(info.mode).toBe('web');
    expect(info.backends).toEqual(expect.arrayContaining(['auto', 'cpu', 'wasm']));
  });
});
