import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../test/render.tsx';
import { accountTimeZone, useDateFormat } from './use-date-format.ts';

function Shown({ iso }: { iso: string }) {
  const fmt = useDateFormat({ dateStyle: 'short', timeStyle: 'short' });
  return <output data-testid="date">{fmt.format(new Date(iso))}</output>;
}

describe('dates in the account time zone', () => {
  it('formats in the account zone, not the browser one', () => {
    renderApp(<Shown iso="2026-11-08T02:00:00Z" />, {
      auth: signedIn(makeUser({ tz: 'Pacific/Kiritimati' })),
    });
    // 02:00 UTC is 16:00 at UTC+14, whatever zone the test runner is in.
    expect(screen.getByTestId('date').textContent).toMatch(/16:00|4:00\s?PM/i);
  });

  it('falls back to the browser zone for a missing or unknown zone', () => {
    expect(accountTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(accountTimeZone('Mars/Olympus')).toBeUndefined();
    expect(accountTimeZone(null)).toBeUndefined();
  });
});
