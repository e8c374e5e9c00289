import { describe, expect, it } from 'vitest';
import { closePrompt } from './close-prompt.ts';

describe('the close prompt', () => {
  it('closes without asking when nothing is running or waiting', () => {
    expect(closePrompt({ active: false, unexported: 0 })).toBeNull();
  });

  it('asks about a run in progress, and mentions unexported releases', () => {
    const p = closePrompt({ active: true, unexported: 2 });
    expect(p?.buttons).toEqual(['Keep running', 'Cancel the run and close']);
    expect(p?.message).toMatch(/spend stays counted/);
    expect(p?.detail).toMatch(/2 finished releases have not been exported/);
  });

  it('asks about finished, unexported releases: kept and listed at the next start', () => {
    const p = closePrompt({ active: false, unexported: 1 });
    expect(p?.title).toBe('Releases not exported');
    expect(p?.message).toMatch(/One finished release .* kept and listed on the Export step/);
    expect(p?.detail).toMatch(/budget is spent either way/);
  });
});
