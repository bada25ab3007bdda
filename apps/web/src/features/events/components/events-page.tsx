import {
  Alert,
  Button,
  Card,
  CircularProgress,
  Link as MuiLink,
  Stack,
  Tab,
  TableContainer,
  TablePagination,
  Tabs,
  Typography,
} from '@mui/material';
import type { TEvent } from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { QueryState } from '../../../components/feedback/query-state.tsx';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { IntelDatabaseNotice } from '../../intel/index.ts';
import { useGetEventsQuery } from '../api/get-events.ts';
import {
  EVENTS_TABS,
  hasFilters,
  sharedFilters,
  type TSortColumn,
  tabPath,
  useEventsParams,
} from '../hooks/use-events-params.ts';
import { DetailsHiddenNotice, EventDetails } from './event-details.tsx';
import { useFormat } from './event-format.tsx';
import { EventsFilters } from './events-filters.tsx';
import { EventsTable } from './events-table.tsx';

/**
 * Events (/events/vulnerabilities|cve|leaks/:scanId?): one tab per scan subclass, each a table
 * paged, sorted and filtered on the server, its state in the address; a row opens its details.
 */
export function EventsPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const { tab, subclass, scanId, state, update, query, pageSize } = useEventsParams();
  const { data, error, isLoading, isFetching, refetch } = useGetEventsQuery(query);
  const [selected, setSelected] = useState<TEvent | null>(null);
  // Kept apart from the event so the dialog keeps its content while it fades out.
  const [isOpen, setOpen] = useState(false);
  const open = (e: TEvent) => {
    setSelected(e);
    setOpen(true);
  };
  const tabLabel = t(`events.tabs.${tab}`);

  const onSort = (column: TSortColumn) =>
    update({ sort: column, order: state.sort === column && state.order === 'desc' ? 'asc' : 'desc' });
  const keep = sharedFilters(state).toString();
  const total = data ? `${f.number(data.total)}${data.total_exact ? '' : '+'}` : '';

  return (
    <>
      <PageTitle title={t('events.title')} />
      <Tabs
        value={tab}
        aria-label={t('events.tabsLabel')}
        sx={{ mb: 2 }}
        variant="scrollable"
        allowScrollButtonsMobile
      >
        {EVENTS_TABS.map((x) => (
          <Tab
            key={x}
            value={x}
            label={t(`events.tabs.${x}`)}
            component={Link}
            to={`${tabPath(x, scanId)}${keep ? `?${keep}` : ''}`}
          />
        ))}
      </Tabs>
      {scanId && (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="one-scan">
          <Stack direction="row" useFlexGap spacing={2} sx={{ flexWrap: 'wrap' }}>
            <span>{t('events.oneScan')}</span>
            <MuiLink component={Link} to={`${paths.pastScans}/${encodeURIComponent(scanId)}`}>
              {t('events.openScan')}
            </MuiLink>
            <MuiLink component={Link} to={`${tabPath(tab)}${keep ? `?${keep}` : ''}`}>
              {t('events.allScans')}
            </MuiLink>
          </Stack>
        </Alert>
      )}
      {data?.details_hidden && <DetailsHiddenNotice sx={{ mb: 2 }} />}
      {subclass === 'exploit_db' && <IntelDatabaseNotice />}
      <EventsFilters subclass={subclass} state={state} update={update} />
      <Card>
        <Stack direction="row" spacing={1} sx={{ px: 2, pt: 1.5, alignItems: 'center', minHeight: 40 }}>
          {data && (
            <Typography variant="body2" color="text.secondary" data-testid="events-total" dir="auto">
              {t('events.total', { total })}
            </Typography>
          )}
          {isFetching && !isLoading && <CircularProgress size={16} aria-label={t('common.loading')} />}
        </Stack>
        <QueryState
          query={{ data, error, isLoading, refetch }}
          errorText={t('events.loadError')}
          retryLabel={t('events.retry')}
          alertSx={{ m: 2 }}
          isEmpty={(data) => data.items.length === 0 && state.page === 0}
          empty={
            <Stack spacing={2} sx={{ p: 3, alignItems: 'flex-start' }} data-testid="events-empty">
              {hasFilters(state) ? (
                <Typography color="text.secondary">{t('events.emptyFiltered')}</Typography>
              ) : (
                <>
                  <Typography color="text.secondary">{t(`events.empty.${tab}`)}</Typography>
                  {!scanId && (
                    <Button component={Link} to={paths.scans} variant="contained">
                      {t('events.emptyAction')}
                    </Button>
                  )}
                </>
              )}
            </Stack>
          }
        >
          {(data) => (
            <>
              <TableContainer>
                <EventsTable
                  subclass={subclass}
                  items={data.items}
                  state={state}
                  label={tabLabel}
                  onSort={onSort}
                  onOpen={open}
                />
              </TableContainer>
              <TablePagination
                component="div"
                count={data.total_exact ? data.total : -1}
                page={state.page}
                rowsPerPage={pageSize}
                rowsPerPageOptions={[pageSize]}
                // From the rows received: with a lower-bound total MUI would count a full last page.
                labelDisplayedRows={() => (
                  <span dir="auto">
                    {t('events.rows', {
                      from: f.number(query.offset + 1),
                      to: f.number(query.offset + data.items.length),
                      total,
                    })}
                  </span>
                )}
                // Past 10,000 the total is a lower bound: the last page is the one that comes back short.
                {...(!data.total_exact && data.items.length < pageSize
                  ? { slotProps: { actions: { nextButton: { disabled: true } } } }
                  : {})}
                onPageChange={(_e, page) => update({ page })}
              />
            </>
          )}
        </QueryState>
      </Card>
      <EventDetails
        event={selected}
        detailsHidden={data?.details_hidden ?? false}
        open={isOpen}
        onClose={() => setOpen(false)}
      />
    </>
  );
}
