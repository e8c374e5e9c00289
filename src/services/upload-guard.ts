/**
 * Web mode: the renderer is a web page, and a web page must not be able to make the host read
 * an arbitrary file. Only files the curator uploaded (under the private work directory) open.
 */
import { realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { InputError } from '../core/errors.ts';
import { cannotRead } from '../core/input/files.ts';
import type { ServiceContext } from './service-context.ts';

export const UPLOAD_ONLY_MESSAGE =
  'In web mode only files uploaded through the app can be opened: choose the file with "Open CSV…" or drop it on the page.';

/** The real path of `path` when the host may read it; InputError otherwise. */
export async function readablePath(ctx: ServiceContext, path: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (err) {
    if (ctx.mode === 'web') throw new InputError(UPLOAD_ONLY_MESSAGE);
    throw cannotRead(path, 'file', err, { verb: 'open' });
  }
  if (ctx.mode !== 'web') return real;
  const uploads = join(await realpath(ctx.workDir), 'uploads') + sep;
  if (!real.startsWith(uploads)) throw new InputError(UPLOAD_ONLY_MESSAGE);
  return real;
}
