import { describe, expect, it } from 'vitest';
import { drawerOpenFor } from './index.tsx';

describe('drawer open state (spec §2)', () => {
  it('opens on wide screens and closes below xl without mini mode', () => {
    expect(drawerOpenFor(false, false, true)).toBe(true);
    expect(drawerOpenFor(true, false, true)).toBe(false);
    expect(drawerOpenFor(true, false, false)).toBe(false);
    expect(drawerOpenFor(false, false, false)).toBe(true);
  });

  it('mini mode does not collapse it at every width: it opens by default when wide, then the width leaves it alone', () => {
    expect(drawerOpenFor(false, true, true)).toBe(true);
    expect(drawerOpenFor(true, true, true)).toBe(false);
    expect(drawerOpenFor(true, true, false)).toBeNull();
    expect(drawerOpenFor(false, true, false)).toBeNull();
  });
});
