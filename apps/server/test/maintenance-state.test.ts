import { describe, expect, it } from 'vitest';
import type { Db } from '../src/db/client.ts';
import { createMaintenanceState } from '../src/modules/system/system-service.ts';

/** A database whose reads of the switch wait until `answer` is called; counts them and the writes. */
function fakeDb() {
  const pending: ((rows: unknown[]) => void)[] = [];
  const counts = { reads: 0, writes: 0 };
  const chain = {
    select: () => chain,
    from: () => chain,
    where: () => chain,
    limit: () => {
      counts.reads++;
      return new Promise((resolve) => pending.push(resolve));
    },
    insert: () => chain,
    values: () => chain,
    onConflictDoUpdate: async () => {
      counts.writes++;
    },
  };
  const answer = (enabled: boolean) => {
    for (const resolve of pending.splice(0))
      resolve([{ key: 'maintenance', value: { enabled, message: 'm' } }]);
  };
  return { db: chain as unknown as Db, counts, answer };
}

describe('maintenance state', () => {
  it('reads the switch once for the requests that arrive while it is read', async () => {
    const { db, counts, answer } = fakeDb();
    const state = createMaintenanceState(db, {});
    const gets = Array.from({ length: 50 }, () => state.get());
    expect(counts.reads).toBe(1);
    answer(true);
    for (const value of await Promise.all(gets)) expect(value).toEqual({ enabled: true, message: 'm' });
    // Remembered for a while: no read.
    expect(await state.get()).toEqual({ enabled: true, message: 'm' });
    expect(counts.reads).toBe(1);
  });

  it('does not remember a read that started before a write', async () => {
    const { db, counts, answer } = fakeDb();
    const state = createMaintenanceState(db, {});
    const before = state.get();
    await state.set({ enabled: false, message: null });
    answer(true);
    await before;
    const after = state.get();
    expect(counts.reads).toBe(2);
    answer(false);
    expect(await after).toEqual({ enabled: false, message: 'm' });
  });
});
