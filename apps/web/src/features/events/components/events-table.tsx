import { Link, Table, TableBody, TableCell, TableHead, TableRow, TableSortLabel } from '@mui/material';
import type { TEvent, TScanSubclass } from '@perimeter/contracts';
import { Fragment, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatEpss, KevChip } from '../../intel/index.ts';
import type { TEventsState, TSortColumn } from '../hooks/use-events-params.ts';
import { maskPassword, SeverityChip, StatusChip, useFormat } from './event-format.tsx';

type TOf<S extends TScanSubclass> = Extract<TEvent, { scan_subclass: S }>;
type TColumn = {
  id: string;
  /** Heading; `events.columns.<id>` when unset. */
  title?: string;
  /** Set for a sortable column: the sort key it stands for. */
  sort?: TSortColumn;
  cell: (e: TEvent) => ReactNode;
  /** The column holding the row's details button. */
  main?: boolean;
  /** Dates and identifiers stay on one line. */
  nowrap?: boolean;
  minWidth?: number;
  /** A second sortable field shown under this one, in the same column. */
  below?: TColumn;
};

/** A cell renderer for one subclass; rows of another subclass (never sent for this tab) render nothing. */
function of<S extends TScanSubclass>(sub: S, render: (e: TOf<S>) => ReactNode) {
  return (e: TEvent) => (e.scan_subclass === sub ? render(e as TOf<S>) : null);
}

const ltr = (v: string) => <span dir="ltr">{v}</span>;

/** A host name that may wrap only after its dots and before the port, never inside a label. */
const hostName = (host: string, port: number | null) => (
  <span dir="ltr">
    {`${host}${port === null ? '' : `:${port}`}`.split(/(?<=\.)|(?=:)/).map((part, i) => (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
      <Fragment key={i}>
        {i > 0 && <wbr />}
        {part}
      </Fragment>
    ))}
  </span>
);

function useColumns(subclass: TScanSubclass): TColumn[] {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const status: TColumn = { id: 'status', cell: (e) => <StatusChip event={e} /> };
  const severity: TColumn = {
    id: 'severity',
    sort: 'severity',
    cell: (e) => <SeverityChip severity={e.severity} />,
  };
  const mainDomain: TColumn = { id: 'main_domain', sort: 'main_domain', cell: (e) => e.main_domain };
  const shortDate = (id: TSortColumn, value: (e: TOf<'exploit_db'>) => string | null): TColumn => ({
    id,
    sort: id,
    nowrap: true,
    cell: of('exploit_db', (e) => f.shortDay(value(e))),
  });
  const found: TColumn = { id: 'add_ts', sort: 'add_ts', nowrap: true, cell: (e) => f.date(e.add_ts) };
  if (subclass === 'exploit_scanner')
    return [
      { id: 'name', sort: 'name', main: true, cell: of('exploit_scanner', (e) => e.name) },
      severity,
      { id: 'host', sort: 'host', cell: of('exploit_scanner', (e) => ltr(e.host)) },
      mainDomain,
      { id: 'subdomain', sort: 'subdomain', cell: of('exploit_scanner', (e) => ltr(e.subdomain)) },
      found,
      status,
    ];
  if (subclass === 'exploit_db')
    return [
      { id: 'tech', sort: 'tech', main: true, cell: of('exploit_db', (e) => e.tech) },
      { id: 'version', sort: 'version', cell: of('exploit_db', (e) => ltr(e.version || '—')) },
      // The same technology on three hosts is three findings: the host tells them apart.
      { id: 'host', minWidth: 96, cell: of('exploit_db', (e) => hostName(e.host, e.port)) },
      {
        id: 'cve',
        sort: 'cve',
        // The identifier stays on one line; the KEV chip may go below it.
        cell: of('exploit_db', (e) =>
          e.cve ? (
            <>
              <span dir="ltr" style={{ whiteSpace: 'nowrap' }}>
                {e.cve}
              </span>
              <KevChip intel={e} />
            </>
          ) : (
            t('events.details.noCve')
          ),
        ),
      },
      {
        id: 'epss_score',
        title: t('intel.columns.epss_score'),
        sort: 'epss_score',
        nowrap: true,
        cell: of('exploit_db', (e) => formatEpss(e.epss_score, i18n.language)),
      },
      {
        ...severity,
        cell: of('exploit_db', (e) => (
          <>
            <SeverityChip severity={e.severity} />
            {e.cvss_score !== null && (
              <span dir="ltr" style={{ whiteSpace: 'nowrap', marginInlineStart: 4 }}>
                {f.number(e.cvss_score)}
              </span>
            )}
          </>
        )),
      },
      mainDomain,
      // Two dates to a column, each with its own sort: thirteen fields fit at 1440 px in Russian too.
      {
        ...shortDate('info_created_ts', (e) => e.info_created_ts),
        below: shortDate('info_updated_ts', (e) => e.info_updated_ts),
      },
      {
        ...shortDate('last_update_ts', (e) => e.last_update_ts),
        below: shortDate('last_check_ts', (e) => e.last_check_ts),
      },
      // The day in digits is enough here; the details show the time.
      { ...found, cell: (e) => f.shortDay(e.add_ts) },
      status,
    ];
  return [
    { id: 'email', sort: 'email', main: true, cell: of('leakcheck', (e) => e.email) },
    {
      id: 'password',
      sort: 'password',
      cell: of('leakcheck', (e) =>
        e.password ? (
          <span dir="ltr" style={{ fontFamily: 'monospace' }}>
            {maskPassword(e.password)}
          </span>
        ) : (
          t('events.details.noPassword')
        ),
      ),
    },
    { id: 'leak_date', sort: 'leak_date', nowrap: true, cell: of('leakcheck', (e) => f.day(e.leak_date)) },
    mainDomain,
    { id: 'sources', cell: of('leakcheck', (e) => e.sources.join(', ') || '—') },
    found,
    status,
  ];
}

/** One tab's findings; a header click sorts on the server, a row opens its details. */
export function EventsTable({
  subclass,
  items,
  state,
  label,
  onSort,
  onOpen,
}: {
  subclass: TScanSubclass;
  items: TEvent[];
  state: TEventsState;
  label: string;
  onSort: (column: TSortColumn) => void;
  onOpen: (e: TEvent) => void;
}) {
  const { t } = useTranslation();
  const columns = useColumns(subclass);
  // The CVE tab has thirteen columns: narrower padding and text so they fit at 1440 px beside the drawer.
  const isWide = subclass === 'exploit_db';
  return (
    <Table
      size="small"
      aria-label={label}
      sx={isWide ? { '& th, & td': { px: 0.625, fontSize: '0.8125rem' } } : undefined}
    >
      <TableHead>
        <TableRow>
          {columns.map((c) => {
            const parts = c.below ? [c, c.below] : [c];
            const active = parts.find((p) => p.sort && state.sort === p.sort);
            const sortLabel = (p: TColumn) => {
              const title = p.title ?? t(`events.columns.${p.id}`);
              const sort = p.sort;
              if (!sort) return title;
              return (
                <TableSortLabel
                  key={p.id}
                  active={p === active}
                  direction={p === active ? state.order : 'desc'}
                  onClick={() => onSort(sort)}
                  sx={c.below ? { display: 'flex' } : undefined}
                >
                  {title}
                </TableSortLabel>
              );
            };
            return (
              <TableCell
                key={c.id}
                sortDirection={active ? state.order : false}
                // The CVE tab's headings wrap between words: its cells set the columns' widths.
                sx={c.sort ? { whiteSpace: isWide ? 'normal' : 'nowrap' } : undefined}
              >
                {parts.map(sortLabel)}
              </TableCell>
            );
          })}
        </TableRow>
      </TableHead>
      <TableBody>
        {items.map((e) => (
          <TableRow
            key={e.id}
            hover
            data-testid={`event-${e.id}`}
            onClick={() => onOpen(e)}
            sx={{ cursor: 'pointer' }}
          >
            {columns.map((c) => (
              <TableCell
                key={c.id}
                sx={
                  c.main
                    ? { minWidth: isWide ? 90 : 160, overflowWrap: 'anywhere' }
                    : c.nowrap
                      ? { whiteSpace: 'nowrap' }
                      : c.minWidth
                        ? { minWidth: c.minWidth }
                        : undefined
                }
              >
                {c.below ? (
                  <>
                    <div>{c.cell(e)}</div>
                    <div>{c.below.cell(e)}</div>
                  </>
                ) : c.main ? (
                  <Link
                    component="button"
                    type="button"
                    variant="body2"
                    sx={{ textAlign: 'start' }}
                    onClick={(ev) => {
                      ev.stopPropagation();
                      onOpen(e);
                    }}
                  >
                    {c.cell(e)}
                  </Link>
                ) : (
                  c.cell(e)
                )}
              </TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
