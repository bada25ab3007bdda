import { configure } from '@testing-library/react';
import { afterEach, beforeAll, vi } from 'vitest';

/**
 * For a file of page tests: async queries wait up to 5 s (the first render of a file pays for
 * loading MUI, and the machine may be shared), and fetch stubs, fake timers and spies are undone
 * after each test.
 */
export function setUpPageTests() {
  beforeAll(() => configure({ asyncUtilTimeout: 5000 }));
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
}
