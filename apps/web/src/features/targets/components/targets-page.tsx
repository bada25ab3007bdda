import MoreVert from '@mui/icons-material/MoreVert';
import {
  Alert,
  Box,
  Button,
  Card,
  Chip,
  IconButton,
  ListItemText,
  Menu,
  MenuItem,
  Link as MuiLink,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  ToggleButton,
  ToggleButtonGroup,
  Tooltip,
  Typography,
} from '@mui/material';
import { TARGET_TYPES, type TExtendedTarget, type TScanStatus } from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { QueryState } from '../../../components/feedback/query-state.tsx';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { visuallyHidden } from '../../../components/ui/visually-hidden.ts';
import { paths } from '../../../config/paths.ts';
import { useDateFormat } from '../../auth/index.ts';
import { ScanStatusChip } from '../../scans/index.ts';
import { schedulePath } from '../../schedules/index.ts';
import { useGetExtendTargetsInfoQuery } from '../api/get-extend-targets-info.ts';
import { scansPath, type TTargetLike, targetPath, useTargetActions } from '../hooks/use-target-actions.ts';
import { DisableTargetDialog, ReplaceTargetDialog } from './target-dialogs.tsx';
import { scoreColor, TargetStatusChip } from './target-status-chip.tsx';

/** The first few of a list, then "+N more" with the whole list in a tooltip. */
export function ShortList({ items, max = 3 }: { items: readonly (string | number)[]; max?: number }) {
  const { t } = useTranslation();
  if (items.length === 0) return <>—</>;
  const shown = items.slice(0, max).join(', ');
  if (items.length <= max) return <bdi>{shown}</bdi>;
  // The whole list: in a tooltip for the mouse, as hidden text for screen readers.
  return (
    <Tooltip title={items.join(', ')}>
      <span>
        <span aria-hidden>
          <bdi>{shown}</bdi> {t('targets.more', { count: items.length - max })}
        </span>
        <Box component="span" sx={visuallyHidden}>
          {items.join(', ')}
        </Box>
      </span>
    </Tooltip>
  );
}

function RowActions({
  target,
  actions,
  onDisable,
  onReplace,
}: {
  target: TExtendedTarget;
  actions: ReturnType<typeof useTargetActions>;
  onDisable: (t: TTargetLike) => void;
  onReplace: (t: TTargetLike) => void;
}) {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const close = () => setAnchor(null);
  const act = (fn: () => unknown) => () => {
    close();
    void fn();
  };
  const isDisabled = target.status === 'disabled';
  return (
    <>
      <IconButton
        aria-label={t('targets.actions.menu', { name: target.display_name })}
        aria-haspopup="menu"
        onClick={(e) => setAnchor(e.currentTarget)}
        disabled={actions.isBusy}
      >
        <MoreVert />
      </IconButton>
      <Menu anchorEl={anchor} open={!!anchor} onClose={close}>
        <MenuItem component={Link} to={targetPath(target)}>
          <ListItemText>{t('targets.actions.open')}</ListItemText>
        </MenuItem>
        {!isDisabled && (
          <MenuItem onClick={act(() => actions.check(target))}>
            <ListItemText>{t('targets.actions.check')}</ListItemText>
          </MenuItem>
        )}
        {target.status === 'verified' && (
          <MenuItem onClick={act(() => actions.scan(target))}>
            <ListItemText>{t('targets.actions.scan')}</ListItemText>
          </MenuItem>
        )}
        {!isDisabled && (
          <MenuItem component={Link} to={schedulePath(target)}>
            <ListItemText>{t('targets.actions.schedule')}</ListItemText>
          </MenuItem>
        )}
        <MenuItem component={Link} to={scansPath(target)}>
          <ListItemText>{t('targets.actions.scans')}</ListItemText>
        </MenuItem>
        {target.status === 'verified' && (
          <MenuItem onClick={act(() => actions.disableVerification(target))}>
            <ListItemText>{t('targets.actions.disableVerification')}</ListItemText>
          </MenuItem>
        )}
        {!isDisabled && (
          <MenuItem onClick={act(() => onReplace(target))}>
            <ListItemText>{t('targets.actions.replace')}</ListItemText>
          </MenuItem>
        )}
        {isDisabled ? (
          <MenuItem onClick={act(() => actions.enable(target))}>
            <ListItemText>{t('targets.actions.enable')}</ListItemText>
          </MenuItem>
        ) : (
          <MenuItem onClick={act(() => onDisable(target))}>
            <ListItemText sx={{ color: 'error.main' }}>{t('targets.actions.disable')}</ListItemText>
          </MenuItem>
        )}
      </Menu>
    </>
  );
}

function TargetRow({
  target,
  actions,
  onDisable,
  onReplace,
}: {
  target: TExtendedTarget;
  actions: ReturnType<typeof useTargetActions>;
  onDisable: (t: TTargetLike) => void;
  onReplace: (t: TTargetLike) => void;
}) {
  const { t } = useTranslation();
  const dateFmt = useDateFormat({ dateStyle: 'short', timeStyle: 'short' });
  const date = (iso: string) => dateFmt.format(new Date(iso));
  const a = target.assets;
  const num = (n: number | undefined) => (n === undefined ? '—' : n);
  return (
    <TableRow data-testid={`target-${target.user_target_id}`}>
      <TableCell sx={{ minWidth: 100, overflowWrap: 'anywhere' }}>
        <MuiLink component={Link} to={targetPath(target)}>
          <bdi>{target.display_name}</bdi>
        </MuiLink>
      </TableCell>
      <TableCell>{t(`targets.type.${target.target_type}`)}</TableCell>
      <TableCell align="right">{num(a?.hosts)}</TableCell>
      <TableCell align="right">{num(a?.subdomains)}</TableCell>
      <TableCell align="right">{num(a?.ip_addresses)}</TableCell>
      <TableCell sx={{ minWidth: 70 }}>
        <ShortList items={a?.opened_ports ?? []} />
      </TableCell>
      <TableCell sx={{ minWidth: 90 }}>
        <ShortList items={a?.technologies ?? []} max={2} />
      </TableCell>
      <TableCell sx={{ minWidth: 90 }}>
        {target.last_scan ? (
          <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
            <MuiLink component={Link} to={paths.scanDetail.replace(':scanId', target.last_scan.id)}>
              <span dir="ltr">{date(target.last_scan.finished_at ?? target.last_scan.created_at)}</span>
            </MuiLink>
            <ScanStatusChip status={target.last_scan.status as TScanStatus} />
          </Stack>
        ) : (
          <Typography variant="body2" color="text.secondary">
            {t('targets.notScanned')}
          </Typography>
        )}
      </TableCell>
      <TableCell sx={{ minWidth: 90 }}>
        {target.periodicity ? (
          <MuiLink component={Link} to={paths.scheduleScan}>
            {target.periodicity}
          </MuiLink>
        ) : target.status === 'disabled' ? (
          '—'
        ) : (
          <MuiLink component={Link} to={schedulePath(target)} color="text.secondary">
            {t('targets.noSchedule')}
          </MuiLink>
        )}
      </TableCell>
      <TableCell>
        <Chip
          size="small"
          variant="outlined"
          color={scoreColor(target.score)}
          label={target.score}
          aria-label={t('targets.scoreOf', { score: target.score })}
        />
      </TableCell>
      <TableCell>
        <TargetStatusChip status={target.status} />
      </TableCell>
      <TableCell align="right">
        <RowActions target={target} actions={actions} onDisable={onDisable} onReplace={onReplace} />
      </TableCell>
    </TableRow>
  );
}

/** Targets (/targets): every target of the user with what its latest scan found, and its actions. */
export function TargetsPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const isDisabledView = params.get('view') === 'disabled';
  const { data, error, isLoading, refetch } = useGetExtendTargetsInfoQuery(
    { disabled: isDisabledView },
    { refetchOnMountOrArgChange: true },
  );
  const actions = useTargetActions();
  const [disabling, setDisabling] = useState<TTargetLike | null>(null);
  const [replacing, setReplacing] = useState<TTargetLike | null>(null);
  const rows = data ? TARGET_TYPES.flatMap((type) => data[type]) : [];
  const columns = [
    'name',
    'type',
    'hosts',
    'subdomains',
    'ipAddresses',
    'openedPorts',
    'technologies',
    'lastScan',
    'periodicity',
    'score',
    'status',
  ] as const;
  const numeric = new Set(['hosts', 'subdomains', 'ipAddresses']);

  return (
    <>
      <PageTitle title={t('menu.targets')} />
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        {t('targets.intro')}
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mb: 2, alignItems: { sm: 'center' } }}>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={isDisabledView ? 'disabled' : 'live'}
          aria-label={t('targets.view.label')}
          onChange={(_e, v: string | null) => v && setParams(v === 'disabled' ? { view: 'disabled' } : {})}
        >
          <ToggleButton value="live">{t('targets.view.live')}</ToggleButton>
          <ToggleButton value="disabled">{t('targets.view.disabled')}</ToggleButton>
        </ToggleButtonGroup>
        <Box sx={{ flexGrow: 1 }} />
        <Button component={Link} to={paths.scheduleScan} variant="outlined">
          {t('targets.schedules')}
        </Button>
        <Button component={Link} to={paths.scans} variant="contained">
          {t('targets.add')}
        </Button>
      </Stack>
      <QueryState
        query={{ data: error ? undefined : rows, error, isLoading, refetch }}
        errorText={t('targets.loadError')}
        retryLabel={t('targets.retry')}
        py={4}
        isEmpty={(r) => r.length === 0}
        empty={
          <Alert severity="info" data-testid="targets-empty">
            {isDisabledView ? t('targets.emptyDisabled') : t('targets.empty')}
          </Alert>
        }
      >
        {() => (
          <Card>
            <TableContainer>
              {/* Twelve columns fit at 1440 px beside the drawer: narrower cell padding. */}
              <Table size="small" aria-label={t('menu.targets')} sx={{ '& th, & td': { px: 1 } }}>
                <TableHead>
                  <TableRow>
                    {columns.map((c) => (
                      <TableCell key={c} align={numeric.has(c) ? 'right' : 'left'}>
                        {t(`targets.columns.${c}`)}
                      </TableCell>
                    ))}
                    <TableCell align="right">{t('targets.columns.actions')}</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {rows.map((target) => (
                    <TargetRow
                      key={target.user_target_id}
                      target={target}
                      actions={actions}
                      onDisable={setDisabling}
                      onReplace={setReplacing}
                    />
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          </Card>
        )}
      </QueryState>
      <DisableTargetDialog
        target={disabling}
        onCancel={() => setDisabling(null)}
        onConfirm={(x) => {
          setDisabling(null);
          void actions.disable(x);
        }}
      />
      <ReplaceTargetDialog
        target={replacing}
        onClose={() => setReplacing(null)}
        onReplace={actions.replace}
      />
    </>
  );
}
