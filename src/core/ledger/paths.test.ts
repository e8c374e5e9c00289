import { homedir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLedgerPath } from './paths.ts';

describe('defaultLedgerPath', () => {
  it('prefers $RAP_STUDIO_LEDGER, resolved to an absolute path', () => {
    expect(defaultLedgerPath({ RAP_STUDIO_LEDGER: '/x/l.sqlite', XDG_DATA_HOME: '/xdg' })).toBe(
      '/x/l.sqlite',
    );
    expect(defaultLedgerPath({ RAP_STUDIO_LEDGER: 'rel.sqlite' })).toBe(path.resolve('rel.sqlite'));
  });

  it('then $XDG_DATA_HOME, ignoring a relative one as the XDG spec says', () => {
    expect(defaultLedgerPath({ XDG_DATA_HOME: '/xdg', HOME: '/home/u' })).toBe(
      '/xdg/rap-studio/ledger.sqlite',
    );
    expect(defaultLedgerPath({ XDG_DATA_HOME: 'rel', HOME: '/home/u' })).toBe(
      '/home/u/.local/share/rap-studio/ledger.sqlite',
    );
  });

  it('then ~/.local/share', () => {
    expect(defaultLedgerPath({ HOME: '/home/u' })).toBe('/home/u/.local/share/rap-studio/ledger.sqlite');
    expect(defaultLedgerPath({})).toBe(path.join(homedir(), '.local/share/rap-studio/ledger.sqlite'));
  });
});
