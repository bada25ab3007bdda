import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import type { TScheduleOverview } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { visuallyHidden } from '../../../components/ui/visually-hidden.ts';
import { calendarWeeks, WEEK_ORDER, weekdayName } from './schedule-values.ts';

type TDay = TScheduleOverview['days'][number];

/** The next 30 days in Monday-first weeks, each day listing its planned runs (user's time zone). */
export function ScheduleCalendar({
  overview,
  runLabel,
}: {
  overview: TScheduleOverview;
  runLabel: (run: TDay['runs'][number]) => string;
}) {
  const { t, i18n } = useTranslation();
  const weeks = calendarWeeks(overview.days);
  const dayFmt = new Intl.DateTimeFormat(i18n.language, { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const longFmt = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'full', timeZone: 'UTC' });
  const at = (d: string) => new Date(`${d}T00:00:00Z`);
  return (
    <Box sx={{ overflowX: 'auto' }}>
      <Table
        size="small"
        aria-label={t('schedules.overview.tableLabel', { tz: overview.tz })}
        sx={{ tableLayout: 'fixed', minWidth: 720 }}
        data-testid="schedule-calendar"
      >
        <TableHead>
          <TableRow>
            {WEEK_ORDER.map((d) => (
              <TableCell key={d} scope="col" sx={{ textAlign: 'start' }}>
                <abbr title={weekdayName(d, i18n.language, 'long')}>
                  {weekdayName(d, i18n.language, 'short')}
                </abbr>
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {weeks.map((week) => (
            <TableRow key={week.find((d) => d)?.date}>
              {week.map((day, i) =>
                day ? (
                  <TableCell
                    key={day.date}
                    data-date={day.date}
                    sx={{
                      verticalAlign: 'top',
                      height: 88,
                      bgcolor: day.runs.length > 0 ? 'action.hover' : undefined,
                      borderInlineStart: 1,
                      borderColor: 'divider',
                    }}
                  >
                    <Typography
                      variant="caption"
                      color={day.date === overview.from ? 'primary' : 'text.secondary'}
                      sx={{ fontWeight: day.date === overview.from ? 700 : undefined }}
                      aria-hidden
                    >
                      <span dir="auto">{dayFmt.format(at(day.date))}</span>
                    </Typography>
                    <Box component="span" sx={visuallyHidden}>
                      {longFmt.format(at(day.date))}
                    </Box>
                    <Box component="ul" sx={{ listStyle: 'none', m: 0, p: 0 }}>
                      {day.runs.map((r) => (
                        <Box
                          component="li"
                          key={`${r.scan_schedule_id}-${r.at}`}
                          sx={{ typography: 'body2', overflowWrap: 'anywhere' }}
                          data-testid="calendar-run"
                        >
                          <Box component="span" sx={{ fontWeight: 600 }} dir="ltr">
                            {r.local_time}
                          </Box>{' '}
                          <span dir="auto">{runLabel(r)}</span>
                        </Box>
                      ))}
                    </Box>
                  </TableCell>
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: padding cells have no date
                  <TableCell key={`pad-${i}`} aria-hidden />
                ),
              )}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}
