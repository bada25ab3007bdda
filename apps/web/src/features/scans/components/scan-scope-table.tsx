import {
  Box,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TablePagination,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import type { TScan, TScopeItem, TSeverity } from '@perimeter/contracts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../../components/feedback/query-state.tsx';
import { SEVERITY_COLOR } from '../../../components/ui/severity-color.ts';
import { SCOPE_PAGE_SIZE, useGetScanScopeQuery } from '../api/get-scan-scope.ts';

export const SCOPE_FILTER_DEBOUNCE_MS = 300;
/** While the scan runs its scope grows: re-read the page now and then. */
export const SCOPE_POLL_MS = 15_000;
const SUMMARY_KEYS = ['subdomains', 'ip_addresses', 'opened_ports', 'technologies', 'emails'] as const;

function List({ values }: { values: readonly string[] }) {
  if (values.length === 0) return <>—</>;
  return (
    <Box component="span" dir="ltr" sx={{ display: 'inline-block' }}>
      {values.join(', ')}
    </Box>
  );
}

function ScopeRow({ item }: { item: TScopeItem }) {
  const { t } = useTranslation();
  const risk = item.risk as TSeverity | null;
  return (
    <TableRow data-testid={`scope-${item.name}`}>
      <TableCell sx={{ overflowWrap: 'anywhere', minWidth: 160 }}>
        <bdi>{item.name}</bdi>
        <Typography variant="caption" color="text.secondary" component="div">
          {t(`scans.scope.kind.${item.kind}`)}
        </Typography>
      </TableCell>
      <TableCell>
        <List values={item.ip_addresses} />
      </TableCell>
      <TableCell>
        <List values={item.opened_ports.map(String)} />
      </TableCell>
      <TableCell>
        <List values={item.technologies.map((x) => (x.version ? `${x.name} ${x.version}` : x.name))} />
      </TableCell>
      <TableCell sx={{ overflowWrap: 'anywhere' }}>
        <List values={item.emails} />
      </TableCell>
      <TableCell>
        {risk && risk in SEVERITY_COLOR ? (
          <Chip size="small" color={SEVERITY_COLOR[risk]} label={t(`dashboard.severity.${risk}`)} />
        ) : (
          '—'
        )}
      </TableCell>
      <TableCell align="right">{item.findings}</TableCell>
    </TableRow>
  );
}

/** What the scan covered: hosts with their addresses, opened ports, technologies and e-mails (20 a page). */
export function ScanScopeTable({ scan }: { scan: TScan }) {
  const { t } = useTranslation();
  const [input, setInput] = useState('');
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState(0);
  useEffect(() => {
    const next = input.trim();
    if (next === filter) return;
    // Typing settles before the server is asked; a new filter starts at the first page.
    const id = setTimeout(() => {
      setFilter(next);
      setPage(0);
    }, SCOPE_FILTER_DEBOUNCE_MS);
    return () => clearTimeout(id);
  }, [input, filter]);
  const isRunning = scan.status === 'running' || scan.status === 'pending';
  const { data, error, isLoading, isFetching, refetch } = useGetScanScopeQuery(
    {
      limit: SCOPE_PAGE_SIZE,
      offset: page * SCOPE_PAGE_SIZE,
      body: {
        id: scan.id,
        targets_type: scan.target_type,
        sort_order: 'desc',
        ...(filter ? { name_filter_opt: { name_filter: filter, is_contains: true } } : {}),
      },
    },
    { pollingInterval: isRunning ? SCOPE_POLL_MS : 0 },
  );

  return (
    <Card component="section" aria-labelledby="scan-scope-title">
      <CardContent>
        <Stack
          direction={{ xs: 'column', sm: 'row' }}
          spacing={2}
          sx={{ mb: 2, justifyContent: 'space-between', alignItems: { sm: 'center' } }}
        >
          <Typography id="scan-scope-title" variant="h3" component="h2">
            {t('scans.scope.title')}
          </Typography>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            {isFetching && !isLoading && <CircularProgress size={18} aria-label={t('common.loading')} />}
            <TextField
              size="small"
              type="search"
              label={t('scans.scope.filter')}
              value={input}
              onChange={(e) => setInput(e.target.value)}
              slotProps={{ htmlInput: { maxLength: 255 } }}
            />
          </Stack>
        </Stack>
        {data && (
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1, mb: 2 }} data-testid="scope-summary">
            {SUMMARY_KEYS.map((k) => (
              <Chip
                key={k}
                variant="outlined"
                label={`${t(`scans.scope.summary.${k}`)}: ${data.summary[k] ?? 0}`}
              />
            ))}
          </Stack>
        )}
      </CardContent>
      <QueryState
        query={{ data, error, isLoading, refetch }}
        errorText={t('scans.scope.loadError')}
        retryLabel={t('scans.retry')}
        py={4}
        isEmpty={(data) => data.items.length === 0}
        empty={
          <Typography color="text.secondary" sx={{ px: 2, pb: 3 }} data-testid="scope-empty">
            {filter ? t('scans.scope.noMatch', { filter }) : t('scans.scope.empty')}
          </Typography>
        }
      >
        {(data) => (
          <>
            <TableContainer>
              <Table size="small" aria-labelledby="scan-scope-title">
                <TableHead>
                  <TableRow>
                    <TableCell>{t('scans.scope.columns.name')}</TableCell>
                    <TableCell>{t('scans.scope.columns.ips')}</TableCell>
                    <TableCell>{t('scans.scope.columns.ports')}</TableCell>
                    <TableCell>{t('scans.scope.columns.technologies')}</TableCell>
                    <TableCell>{t('scans.scope.columns.emails')}</TableCell>
                    <TableCell>{t('scans.scope.columns.risk')}</TableCell>
                    <TableCell align="right">{t('scans.scope.columns.findings')}</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {data.items.map((item) => (
                    <ScopeRow key={`${item.kind}-${item.name}`} item={item} />
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
            <TablePagination
              component="div"
              count={data.total}
              page={page}
              rowsPerPage={SCOPE_PAGE_SIZE}
              rowsPerPageOptions={[SCOPE_PAGE_SIZE]}
              labelDisplayedRows={({ from, to, count }) => (
                <span dir="auto">{t('scans.rows', { from, to, count })}</span>
              )}
              onPageChange={(_e, p) => setPage(p)}
            />
          </>
        )}
      </QueryState>
    </Card>
  );
}
