import {
  Box,
  Button,
  Card,
  CircularProgress,
  FormControl,
  InputLabel,
  MenuItem,
  Link as MuiLink,
  Select,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TablePagination,
  TableRow,
  TableSortLabel,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { SCAN_STATUSES, type TScan, type TTargetType } from '@perimeter/contracts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { QueryState } from '../../../components/feedback/query-state.tsx';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { useDateFormat } from '../../auth/index.ts';
import { useGetTargetsQuery } from '../../targets/index.ts';
import { useGetScansStatsQuery } from '../api/get-scans-stats.ts';
import { useReportDownload } from '../hooks/use-report-download.ts';
import {
  PAGE_SIZE,
  type TScanListState,
  type TSortKey,
  useScanListParams,
} from '../hooks/use-scan-list-params.ts';
import { isMoving, ScanActions } from './scan-actions.tsx';
import { ScanProgress } from './scan-progress.tsx';
import { ScanStatusChip } from './scan-status-chip.tsx';
import { SeverityCountChips } from './severity-count-chips.tsx';

const LIST_POLL_MS = 5000;
const TARGET_TYPES: readonly TTargetType[] = ['domain', 'peer', 'network'];

/** The sortable columns in order: the sort field and the key of its heading. */
const SORT_COLUMNS = [
  ['scan_type', 'type'],
  ['status', 'status'],
  ['created_at', 'created'],
  ['started_at', 'started'],
  ['finished_at', 'finished'],
] as const satisfies readonly (readonly [TSortKey, string])[];

function SortHeader({
  field,
  label,
  state,
  onSort,
}: {
  field: TSortKey;
  label: string;
  state: TScanListState;
  onSort: (field: TSortKey) => void;
}) {
  const isActive = state.sort === field;
  return (
    <TableCell sortDirection={isActive ? state.order : false}>
      <TableSortLabel
        active={isActive}
        direction={isActive ? state.order : 'desc'}
        onClick={() => onSort(field)}
      >
        {label}
      </TableSortLabel>
    </TableCell>
  );
}

/** Only the scans of one target of the chosen type (filter_user_target_id). */
function TargetFilter({
  type,
  value,
  onChange,
}: {
  type: TTargetType;
  value: string | null;
  onChange: (target: string | null) => void;
}) {
  const { t } = useTranslation();
  // Targets are added on other pages: read them afresh each time the Reports page opens.
  const { data, isError } = useGetTargetsQuery([type], { refetchOnMountOrArgChange: true });
  const targets = data?.[type] ?? [];
  // A target from the address that is not (yet) in the list still shows as chosen.
  const isKnown = !value || targets.some((x) => x.user_target_id === value);
  return (
    <FormControl size="small" sx={{ minWidth: 220 }} error={isError}>
      <InputLabel id="scan-target-filter">{t('scans.filters.target')}</InputLabel>
      <Select
        labelId="scan-target-filter"
        label={t('scans.filters.target')}
        value={value ?? 'all'}
        onChange={(e) => onChange(e.target.value === 'all' ? null : e.target.value)}
      >
        <MenuItem value="all">{t('scans.filters.allTargets')}</MenuItem>
        {targets.map((x) => (
          <MenuItem key={x.user_target_id} value={x.user_target_id}>
            <bdi>{x.display_name}</bdi>
          </MenuItem>
        ))}
        {!isKnown && value && (
          <MenuItem value={value}>{data ? t('scans.filters.unknownTarget') : t('common.loading')}</MenuItem>
        )}
      </Select>
    </FormControl>
  );
}

function DownloadPdfButton({ scan }: { scan: TScan }) {
  const { t } = useTranslation();
  const { download, isLoading } = useReportDownload();
  return (
    <Button
      size="small"
      variant="outlined"
      disabled={isLoading}
      aria-label={t('scans.report.downloadPdfOf', { target: scan.targets.map((x) => x.target).join(', ') })}
      onClick={() => void download(scan.id, 'pdf')}
    >
      {t('scans.report.downloadPdf')}
    </Button>
  );
}

function ScanRow({ scan, fmt }: { scan: TScan; fmt: Intl.DateTimeFormat }) {
  const { t } = useTranslation();
  // Numeric dates have no strong direction: keep them left-to-right inside an RTL layout.
  const date = (v: string | null) => (v ? <span dir="ltr">{fmt.format(new Date(v))}</span> : '—');
  return (
    <TableRow data-testid={`scan-${scan.id}`}>
      <TableCell sx={{ minWidth: 140, overflowWrap: 'anywhere' }}>
        <MuiLink component={Link} to={`${paths.pastScans}/${scan.id}`}>
          {scan.targets.map((x) => x.target).join(', ')}
        </MuiLink>
      </TableCell>
      <TableCell>{t(`scans.type.${scan.scan_type}`)}</TableCell>
      <TableCell>
        <Stack spacing={1}>
          <Box>
            <ScanStatusChip status={scan.status} isPartial={scan.partial !== null} />
          </Box>
          {isMoving(scan) && <ScanProgress scanId={scan.id} initialPercent={scan.percent} />}
        </Stack>
      </TableCell>
      <TableCell>{date(scan.created_at)}</TableCell>
      <TableCell>{date(scan.started_at)}</TableCell>
      <TableCell>{date(scan.finished_at)}</TableCell>
      <TableCell>
        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5 }}>
          <SeverityCountChips counts={scan.severity_counts} />
        </Stack>
      </TableCell>
      <TableCell align="right">
        <ScanActions scan={scan}>
          {scan.status === 'done' && <DownloadPdfButton scan={scan} />}
          <Button size="small" component={Link} to={`${paths.pastScans}/${scan.id}`}>
            {t('scans.open')}
          </Button>
        </ScanActions>
      </TableCell>
    </TableRow>
  );
}

/** Reports (/scans/past-scans): the user's scans, paged, sorted and filtered on the server. */
export function PastScansPage() {
  const { t } = useTranslation();
  const { state, update, query } = useScanListParams();
  const [pollingInterval, setPollingInterval] = useState(0);
  const { data, error, isLoading, isFetching, refetch } = useGetScansStatsQuery(query, { pollingInterval });
  const hasMoving = !!data?.items.some(isMoving);
  useEffect(() => setPollingInterval(hasMoving ? LIST_POLL_MS : 0), [hasMoving]);
  const fmt = useDateFormat({ dateStyle: 'short', timeStyle: 'short' });

  const onSort = (field: TSortKey) =>
    update({ sort: field, order: state.sort === field && state.order === 'desc' ? 'asc' : 'desc' });

  return (
    <>
      <PageTitle title={t('menu.reports')} />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mb: 2, alignItems: { sm: 'center' } }}>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={state.type}
          aria-label={t('scans.filters.targetType')}
          onChange={(_e, v: TTargetType | null) => v && update({ type: v })}
        >
          {TARGET_TYPES.map((type) => (
            <ToggleButton key={type} value={type}>
              {t(`scans.targetType.${type}`)}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
        <TargetFilter type={state.type} value={state.target} onChange={(target) => update({ target })} />
        <FormControl size="small" sx={{ minWidth: 200 }}>
          <InputLabel id="scan-status-filter">{t('scans.filters.status')}</InputLabel>
          <Select
            labelId="scan-status-filter"
            label={t('scans.filters.status')}
            value={state.status}
            onChange={(e) => update({ status: e.target.value as TScanListState['status'] })}
          >
            <MenuItem value="all">{t('scans.filters.allStatuses')}</MenuItem>
            {SCAN_STATUSES.map((s) => (
              <MenuItem key={s} value={s}>
                {t(`scans.status.${s}`)}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        <FormControl size="small" sx={{ minWidth: 160 }}>
          <InputLabel id="scan-kind-filter">{t('scans.filters.kind')}</InputLabel>
          <Select
            labelId="scan-kind-filter"
            label={t('scans.filters.kind')}
            value={state.kind}
            onChange={(e) => update({ kind: e.target.value as TScanListState['kind'] })}
          >
            <MenuItem value="all">{t('scans.filters.allKinds')}</MenuItem>
            <MenuItem value="full">{t('scans.type.full')}</MenuItem>
            <MenuItem value="custom">{t('scans.type.custom')}</MenuItem>
          </Select>
        </FormControl>
        {isFetching && !isLoading && <CircularProgress size={20} aria-label={t('common.loading')} />}
      </Stack>
      <Card>
        <QueryState
          query={{ data, error, isLoading, refetch }}
          errorText={t('scans.loadError')}
          retryLabel={t('scans.retry')}
          isEmpty={(data) => data.items.length === 0 && state.page === 0}
          empty={
            <Stack spacing={2} sx={{ p: 3, alignItems: 'flex-start' }} data-testid="scans-empty">
              <Typography color="text.secondary">{t('scans.empty')}</Typography>
              <Button component={Link} to={paths.scans} variant="contained">
                {t('scans.emptyAction')}
              </Button>
            </Stack>
          }
        >
          {(data) => (
            <>
              <TableContainer>
                <Table size="small" aria-label={t('menu.reports')}>
                  <TableHead>
                    <TableRow>
                      <TableCell>{t('scans.columns.targets')}</TableCell>
                      {SORT_COLUMNS.map(([field, label]) => (
                        <SortHeader
                          key={field}
                          field={field}
                          label={t(`scans.columns.${label}`)}
                          state={state}
                          onSort={onSort}
                        />
                      ))}
                      <TableCell>{t('scans.columns.findings')}</TableCell>
                      <TableCell align="right">{t('scans.columns.actions')}</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {data.items.map((scan) => (
                      <ScanRow key={scan.id} scan={scan} fmt={fmt} />
                    ))}
                  </TableBody>
                </Table>
              </TableContainer>
              <TablePagination
                component="div"
                count={data.total}
                page={state.page}
                rowsPerPage={PAGE_SIZE}
                rowsPerPageOptions={[PAGE_SIZE]}
                labelDisplayedRows={({ from, to, count }) => (
                  <span dir="auto">{t('scans.rows', { from, to, count })}</span>
                )}
                onPageChange={(_e, page) => update({ page })}
              />
            </>
          )}
        </QueryState>
      </Card>
    </>
  );
}
