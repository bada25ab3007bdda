import type { TScanSchedule, TScheduleOverview, TTarget } from '@perimeter/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { schedulePath } from '../schedule-path.ts';
import { calendarWeeks } from './schedule-values.ts';
import { SchedulesPage } from './schedules-page.tsx';

afterEach(() => vi.unstubAllGlobals());

const T1 = '11111111-1111-4111-8111-111111111111';
const T2 = '22222222-2222-4222-8222-222222222222';
const S1 = '33333333-3333-4333-8333-333333333333';

function target(id: string, name: string, type: TTarget['target_type'] = 'domain'): TTarget {
  return {
    user_target_id: id,
    target_type: type,
    target: name,
    display_name: name,
    main_domain: type === 'domain' ? name : null,
    ip_count: 1,
    disabled: false,
    verified: true,
    verified_at: null,
    created_at: '2026-01-01T00:00:00Z',
  };
}

function schedule(overrides: Partial<TScanSchedule> = {}): TScanSchedule {
  return {
    scan_schedule_id: S1,
    name: 'Weekly prod',
    targets: [{ target_type: 'domain', user_target_id: T1 }],
    days: ['sat'],
    days_numbers: [6],
    start_time: '02:00',
    end_time: '06:00',
    tz: 'Asia/Tokyo',
    scan_type: 'full',
    custom_scan_config: { classes: [], subclasses: [] },
    enabled: true,
    next_run_at: '2026-11-27T17:00:00Z',
    last_run_at: null,
    created_at: '2026-11-01T00:00:00Z',
    ...overrides,
  };
}

/** 30 days from Sunday 2026-11-22; the schedule runs on the Saturdays. */
function overview(withRuns: boolean): TScheduleOverview {
  const days = Array.from({ length: 31 }, (_, i) => {
    const date = new Date(Date.UTC(2026, 10, 22 + i)).toISOString().slice(0, 10);
    const isSaturday = new Date(`${date}T00:00:00Z`).getUTCDay() === 6;
    return {
      date,
      runs:
        withRuns && isSaturday
          ? [
              {
                scan_schedule_id: S1,
                name: 'Weekly prod',
                at: `${date}T17:00:00Z`,
                local_time: '02:00',
                targets: [{ target_type: 'domain', user_target_id: T1 }],
                scan_type: 'full' as const,
              },
            ]
          : [],
    };
  });
  return { tz: 'Asia/Tokyo', from: days[0]!.date, to: days.at(-1)!.date, days };
}

type TCall = { method: string; path: string; search: string; body: unknown };

function stubApi({
  schedules = [schedule()],
  withRuns = true,
  createResponse = () =>
    Response.json({ data: schedule({ scan_schedule_id: crypto.randomUUID() }) }, { status: 201 }),
} = {}) {
  const calls: TCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      const body = req.method === 'GET' || req.method === 'DELETE' ? undefined : await req.json();
      calls.push({ method: req.method, path: url.pathname, search: url.search, body });
      const path = url.pathname.replace(/^\/api/, '');
      if (path === '/main/user_target/get_targets')
        return Response.json({
          data: {
            domain: [target(T1, 'one.example'), target(T2, 'two.example')],
            peer: [target('44444444-4444-4444-8444-444444444444', '203.0.113.7', 'peer')],
            network: [],
          },
        });
      if (path === '/users/get_user_scan_schedules')
        return Response.json({ data: { results: schedules, count: schedules.length } });
      if (path === '/users/get_schedule_overview') return Response.json({ data: overview(withRuns) });
      if (path === '/users/create_scan_schedule') return createResponse();
      if (path === '/users/update_scan_schedule') return Response.json({ data: schedule() });
      if (path === '/users/delete_scan_schedule') return Response.json({ data: { ok: true } });
      return Response.json({ detail: 'no', code: 'not_found' }, { status: 404 });
    }),
  );
  return calls;
}

const user = (tz = 'Asia/Tokyo') => signedIn(makeUser({ tz }));

const page = <SchedulesPage />;

describe('schedules page', () => {
  it('pre-fills the default window and the user’s time zone, and sends the days as numbers', async () => {
    const calls = stubApi({ schedules: [] });
    const u = userEvent.setup({ delay: null });
    renderApp(page, { route: '/schedule-scan', auth: user() });
    const form = await screen.findByRole('form', { name: 'Add a schedule' });

    // Spec §9: 02:00–06:00 on the night from Friday to Saturday, in the user's zone.
    expect(within(form).getByRole('button', { name: /\(Saturday\)/ })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    expect(within(form).getByRole('button', { name: /\(Friday\)/ })).toHaveAttribute('aria-pressed', 'false');
    expect(within(form).getByLabelText('Window starts')).toHaveValue('02:00');
    expect(within(form).getByLabelText('Window ends')).toHaveValue('06:00');
    expect(within(form).getByRole('combobox', { name: 'Time zone' })).toHaveValue('Asia/Tokyo');

    await u.click(within(form).getByRole('combobox', { name: 'Targets' }));
    await u.click(await screen.findByRole('option', { name: 'two.example' }));
    // One type per schedule: a peer cannot join a domain.
    expect(screen.getByRole('option', { name: '203.0.113.7' })).toHaveAttribute('aria-disabled', 'true');
    await u.keyboard('{Escape}');
    await u.click(within(form).getByRole('button', { name: /\(Sunday\)/ }));
    await u.click(within(form).getByRole('button', { name: /\(Monday\)/ }));
    await u.click(within(form).getByLabelText(/^Name/));
    await u.paste('Nightly');
    await u.click(within(form).getByRole('button', { name: 'Add schedule' }));

    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.path).toBe('/api/users/create_scan_schedule');
    expect(post.body).toEqual({
      name: 'Nightly',
      targets: [{ target_type: 'domain', user_target_id: T2 }],
      // Monday first in the form; the spec's numbers: mon = 1, sat = 6, sun = 0.
      days: [1, 6, 0],
      start_time: '02:00',
      end_time: '06:00',
      tz: 'Asia/Tokyo',
      scan_type: 'full',
      enabled: true,
    });
    expect(await screen.findByText('Schedule saved.')).toBeInTheDocument();
  }, 60_000);

  it('does not send a schedule without a target or a day, and sends a custom scan’s classes', async () => {
    const calls = stubApi({ schedules: [] });
    const u = userEvent.setup({ delay: null });
    renderApp(page, { route: '/schedule-scan', auth: user('Europe/Berlin') });
    const form = await screen.findByRole('form', { name: 'Add a schedule' });
    expect(within(form).getByRole('combobox', { name: 'Time zone' })).toHaveValue('Europe/Berlin');
    await u.click(within(form).getByRole('button', { name: /\(Saturday\)/ }));
    await u.click(within(form).getByRole('button', { name: 'Add schedule' }));
    expect(await within(form).findByText('Choose at least one target.')).toBeInTheDocument();
    expect(within(form).getByText('Choose at least one day.')).toBeInTheDocument();

    await u.click(within(form).getByRole('combobox', { name: 'Targets' }));
    await u.click(await screen.findByRole('option', { name: 'one.example' }));
    await u.keyboard('{Escape}');
    await u.click(within(form).getByRole('button', { name: /\(Thursday\)/ }));
    await u.click(within(form).getByRole('radio', { name: 'Custom scan' }));
    await u.click(within(form).getByRole('button', { name: 'Add schedule' }));
    expect(await within(form).findByText('Choose at least one class or subclass.')).toBeInTheDocument();
    await u.click(within(form).getByRole('checkbox', { name: 'Leaked credentials' }));
    await u.click(within(form).getByRole('button', { name: 'Add schedule' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({
      days: [4],
      tz: 'Europe/Berlin',
      scan_type: 'custom',
      custom_scan_config: { classes: [], subclasses: ['leakcheck'] },
    });
  }, 60_000);

  it('lists schedules, edits one with its values pre-filled, and deletes one after confirming', async () => {
    const calls = stubApi({
      schedules: [
        schedule({ days: ['mon', 'fri'], days_numbers: [1, 5], start_time: '22:30', end_time: '23:30' }),
      ],
    });
    const u = userEvent.setup({ delay: null });
    renderApp(page, { route: '/schedule-scan', auth: user() });
    const row = await screen.findByTestId(`schedule-${S1}`);
    expect(within(row).getByText('Weekly prod')).toBeInTheDocument();
    expect(within(row).getByText('one.example')).toBeInTheDocument();
    expect(within(row).getByText('Mon, Fri')).toBeInTheDocument();

    await u.click(within(row).getByRole('button', { name: 'Edit schedule Weekly prod' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit schedule' });
    expect(within(dialog).getByLabelText('Window starts')).toHaveValue('22:30');
    expect(within(dialog).getByRole('button', { name: /\(Monday\)/ })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    expect(within(dialog).getByRole('button', { name: /\(Saturday\)/ })).toHaveAttribute(
      'aria-pressed',
      'false',
    );
    await u.click(within(dialog).getByRole('button', { name: /\(Friday\)/ }));
    await u.click(within(dialog).getByRole('button', { name: /\(Wednesday\)/ }));
    await u.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH')).toBe(true));
    expect(calls.find((c) => c.method === 'PATCH')!.body).toMatchObject({
      scan_schedule_id: S1,
      days: [1, 3],
      start_time: '22:30',
      end_time: '23:30',
      tz: 'Asia/Tokyo',
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit schedule' })).toBeNull());

    await u.click(within(row).getByRole('button', { name: 'Delete schedule Weekly prod' }));
    const confirm = await screen.findByRole('dialog', { name: 'Delete this schedule?' });
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await u.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
    const del = calls.find((c) => c.method === 'DELETE')!;
    expect(`${del.path}${del.search}`).toBe(`/api/users/delete_scan_schedule?scan_schedule_id=${S1}`);
    expect(await screen.findByText('Schedule deleted.')).toBeInTheDocument();
  }, 60_000);

  it('shows the runs of the next 30 days in the calendar', async () => {
    const calls = stubApi();
    renderApp(page, { route: '/schedule-scan', auth: user() });
    const calendar = await screen.findByTestId('schedule-calendar');
    expect(calls.find((c) => c.path.endsWith('get_schedule_overview'))!.search).toBe(
      '?by_end_of_month=false&days_ahead=30',
    );
    const saturday = calendar.querySelector('[data-date="2026-11-28"]') as HTMLElement;
    expect(within(saturday).getByText('02:00')).toBeInTheDocument();
    expect(within(saturday).getByText('Weekly prod')).toBeInTheDocument();
    expect(
      within(calendar.querySelector('[data-date="2026-11-27"]') as HTMLElement).queryByText('Weekly prod'),
    ).toBeNull();
    // Saturdays 28 Nov, 5, 12 and 19 Dec.
    expect(within(calendar).getAllByTestId('calendar-run')).toHaveLength(4);
    // Monday-first columns: 22 Nov (a Sunday) is the last cell of the first week.
    const firstWeek = within(calendar).getAllByRole('row')[1]!;
    expect(within(firstWeek).getAllByRole('cell').at(-1)).toHaveAttribute('data-date', '2026-11-22');
    expect(screen.queryByTestId('overview-empty')).toBeNull();
  });

  it('says when nothing is planned and when there are no schedules yet', async () => {
    stubApi({ schedules: [], withRuns: false });
    renderApp(page, { route: '/schedule-scan', auth: user() });
    expect(await screen.findByTestId('overview-empty')).toHaveTextContent(
      'No scans are planned in the next 30 days.',
    );
    expect(screen.getByTestId('schedules-empty')).toBeInTheDocument();
  });
});

describe('schedule errors', () => {
  it('keeps the plan limit the server names', async () => {
    stubApi({
      schedules: [],
      createResponse: () =>
        Response.json(
          {
            detail: 'Plan limit: the Trial scan plan allows 1 scheduled scan per week (0 already scheduled).',
            code: 'forbidden',
          },
          { status: 403 },
        ),
    });
    const u = userEvent.setup({ delay: null });
    renderApp(page, { route: '/schedule-scan', auth: user() });
    const form = await screen.findByRole('form', { name: 'Add a schedule' });
    await u.click(within(form).getByRole('combobox', { name: 'Targets' }));
    await u.click(await screen.findByRole('option', { name: 'one.example' }));
    await u.keyboard('{Escape}');
    await u.click(within(form).getByRole('button', { name: /\(Monday\)/ }));
    await u.click(within(form).getByRole('button', { name: 'Add schedule' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent(
      'Your plan does not allow this schedule. Plan limit: the Trial scan plan allows 1 scheduled scan per week',
    );
  }, 60_000);

  it('the schedule form opens with the target of the link chosen', async () => {
    stubApi();
    renderApp(page, {
      auth: user('UTC'),
      route: schedulePath({ target_type: 'domain', user_target_id: T2 }),
    });
    const form = await screen.findByRole('form', { name: 'Add a schedule' });
    expect(within(form).getByText('two.example')).toBeInTheDocument();
    expect(within(form).queryByText('one.example')).not.toBeInTheDocument();
  }, 60_000);
});

describe('calendar weeks', () => {
  it('pads to Monday-first weeks', () => {
    const days = ['2026-11-22', '2026-11-23', '2026-11-24'].map((date) => ({ date }));
    expect(calendarWeeks(days).map((w) => w.map((d) => d?.date ?? null))).toEqual([
      [null, null, null, null, null, null, '2026-11-22'],
      ['2026-11-23', '2026-11-24', null, null, null, null, null],
    ]);
    expect(calendarWeeks([])).toEqual([]);
  });
});
