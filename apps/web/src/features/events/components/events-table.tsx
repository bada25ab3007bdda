import { Link, Table, TableBody, TableCell, TableHead, TableRow, TableSortLabel } from '@mui/material';
import type { TEvent, TScanSubclass } from '@perimeter/contracts';
import { Fragment, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatEpss, KevChip } from '../../intel/components/intel-notices.tsx';
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
      { id: 'host', minWidth: 110, cell: of('exploit_db', (e) => hostName(e.host, e.port)) },
      {
        id: 'cve',
        sort: 'cve',
        nowrap: true,
        cell: of('exploit_db', (e) =>
          e.cve ? (
            <>
              {ltr(e.cve)}
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
            {e.cvss_score !== null && <span dir="ltr"> {f.number(e.cvss_score)}</span>}
          </>
        )),
      },
      mainDomain,
      {
        id: 'info_created_ts',
        sort: 'info_created_ts',
        cell: of('exploit_db', (e) => f.day(e.info_created_ts)),
      },
      {
        id: 'info_updated_ts',
        sort: 'info_updated_ts',
        cell: of('exploit_db', (e) => f.day(e.info_updated_ts)),
      },
      {
        id: 'last_update_ts',
        sort: 'last_update_ts',
        cell: of('exploit_db', (e) => f.day(e.last_update_ts)),
      },
      {
        id: 'last_check_ts',
        sort: 'last_check_ts',
        cell: of('exploit_db', (e) => f.day(e.last_check_ts)),
      },
      // The day is enough in a twelve-column table; the details show the time.
      { ...found, nowrap: false, cell: (e) => f.day(e.add_ts) },
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
  // The CVE tab has twelve columns: narrower padding and text so they fit at 1440 px beside the drawer.
  const isWide = subclass === 'exploit_db';
  return (
    <Table
      size="small"
      aria-label={label}
      sx={isWide ? { '& th, & td': { px: 0.75, fontSize: '0.8125rem' } } : undefined}
    >
      <TableHead>
        <TableRow>
          {columns.map((c) => {
            const title = c.title ?? t(`events.columns.${c.id}`);
            if (!c.sort) return <TableCell key={c.id}>{title}</TableCell>;
            const isActive = state.sort === c.sort;
            const sort = c.sort;
            return (
              <TableCell
                key={c.id}
                sortDirection={isActive ? state.order : false}
                sx={{ whiteSpace: c.nowrap || subclass !== 'exploit_db' ? 'nowrap' : 'normal' }}
              >
                <TableSortLabel
                  active={isActive}
                  direction={isActive ? state.order : 'desc'}
                  onClick={() => onSort(sort)}
                >
                  {title}
                </TableSortLabel>
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
                    ? { minWidth: isWide ? 100 : 160, overflowWrap: 'anywhere' }
                    : c.nowrap
                      ? { whiteSpace: 'nowrap' }
                      : c.minWidth
                        ? { minWidth: c.minWidth }
                        : undefined
                }
              >
                {c.main ? (
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
