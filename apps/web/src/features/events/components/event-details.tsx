import {
  Alert,
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Divider,
  Stack,
  Typography,
} from '@mui/material';
import type { SxProps, Theme } from '@mui/material/styles';
import type { TEvent } from '@perimeter/contracts';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { CodeBlock } from '../../../components/ui/code-block.tsx';
import { paths } from '../../../config/paths.ts';
import { CveIntelDetails } from '../../intel/index.ts';
import { OobInteractions } from '../../oob/index.ts';
import {
  CLASSIFICATION_KEYS,
  CopyButton,
  classificationValue,
  ExternalLink,
  Fact,
  Facts,
  References,
  Section,
  Text,
} from './event-details-parts.tsx';
import { maskPassword, SeverityChip, StatusChip, useFormat } from './event-format.tsx';
import { ResolveControls } from './resolve-controls.tsx';

type TOf<S extends TEvent['scan_subclass']> = Extract<TEvent, { scan_subclass: S }>;

/** The Trial rule (docs/plans-limits.md): what was found is shown, the details are not. */
export function DetailsHiddenNotice({ sx }: { sx?: SxProps<Theme> }) {
  const { t } = useTranslation();
  return (
    <Alert
      severity="warning"
      sx={sx}
      data-testid="details-hidden"
      action={
        <Button component={RouterLink} to={paths.choosePlan} color="inherit" size="small">
          {t('events.detailsHidden.choosePlan')}
        </Button>
      }
    >
      {t('events.detailsHidden.text')}
    </Alert>
  );
}

function ScannerDetails({ event, hidden }: { event: TOf<'exploit_scanner'>; hidden: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  const classification = Object.entries(event.classification ?? {}).filter(
    ([, v]) => v !== null && v !== undefined && v !== '',
  );
  const known = new Set<string>(CLASSIFICATION_KEYS);
  return (
    <>
      <Section title={t('events.details.where')}>
        <Facts>
          <Fact label={t('events.columns.host')}>
            <span dir="ltr">{event.host}</span>
          </Fact>
          <Fact label={t('events.details.matchedAt')}>
            <span dir="ltr">{event.matched_at}</span>
          </Fact>
          <Fact label={t('events.columns.main_domain')}>{event.main_domain}</Fact>
          <Fact label={t('events.details.template')}>
            <span dir="ltr">{event.template_id}</span>
          </Fact>
          <Fact label={t('events.details.firstSeen')}>{f.date(event.first_seen)}</Fact>
          <Fact label={t('events.details.lastSeen')}>{f.date(event.last_seen)}</Fact>
        </Facts>
      </Section>
      {hidden ? <DetailsHiddenNotice sx={{ mb: 2 }} /> : <ScannerExplanation event={event} />}
      <Section title={t('events.details.classification')}>
        <Facts>
          <Fact label={t('events.details.classificationSeverity')}>
            <SeverityChip severity={event.severity} />
          </Fact>
          {classification.map(([k, v]) => (
            <Fact
              key={k}
              label={known.has(k) ? t(`events.details.classificationKeys.${k.replace(/-/g, '_')}`) : k}
            >
              <span dir="ltr">{classificationValue(v)}</span>
            </Fact>
          ))}
        </Facts>
        {event.tags.length > 0 && (
          <Stack direction="row" useFlexGap spacing={0.5} sx={{ mt: 1, flexWrap: 'wrap' }}>
            {event.tags.map((tag) => (
              <Chip key={tag} size="small" variant="outlined" label={tag} />
            ))}
          </Stack>
        )}
      </Section>
    </>
  );
}

/** Description, impact, how to resolve and reproduce, references: the details a Trial plan does not see. */
function ScannerExplanation({ event }: { event: TOf<'exploit_scanner'> }) {
  const { t } = useTranslation();
  return (
    <>
      {event.description && (
        <Section title={t('events.details.description')}>
          <Text value={event.description} />
        </Section>
      )}
      <Section title={t('events.details.impact')}>
        <Text value={event.impact} />
      </Section>
      <Section title={t('events.details.howToResolve')}>
        <Text value={event.remediation} />
      </Section>
      <Section title={t('events.details.howToReproduce')}>
        {event.evidence ? (
          <>
            {event.evidence.curl && (
              <>
                <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
                  <Typography variant="body2" color="text.secondary">
                    {t('events.details.curl')}
                  </Typography>
                  <CopyButton text={event.evidence.curl} label={t('events.details.copyCurl')} />
                </Stack>
                <CodeBlock label={t('events.details.curl')}>{event.evidence.curl}</CodeBlock>
              </>
            )}
            {event.evidence.request && (
              <>
                <Typography variant="body2" color="text.secondary">
                  {t('events.details.request')}
                </Typography>
                <CodeBlock label={t('events.details.request')}>{event.evidence.request}</CodeBlock>
              </>
            )}
            {event.evidence.response && (
              <>
                <Typography variant="body2" color="text.secondary">
                  {t('events.details.response')}
                </Typography>
                <CodeBlock label={t('events.details.response')}>{event.evidence.response}</CodeBlock>
              </>
            )}
            <OobInteractions interactions={event.evidence.interactions} late={event.evidence.late} />
          </>
        ) : (
          <Text value={null} />
        )}
        {event.extracted.length > 0 && (
          <>
            <Typography variant="body2" color="text.secondary">
              {t('events.details.extracted')}
            </Typography>
            <CodeBlock label={t('events.details.extracted')}>{event.extracted.join('\n')}</CodeBlock>
          </>
        )}
      </Section>
      <References refs={event.references} />
    </>
  );
}

function CveDetails({ event, hidden }: { event: TOf<'exploit_db'>; hidden: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  // Bounds as comparisons, so it is plain whether the bound itself is affected: ≥ 2.4.49, < 2.4.51.
  const bounds = [
    event.version_start ? `${event.version_start_excluding ? '>' : '≥'} ${event.version_start}` : null,
    event.version_end ? `${event.version_end_excluding ? '<' : '≤'} ${event.version_end}` : null,
  ].filter((b) => b !== null);
  const range = bounds.length ? bounds.join(', ') : t('events.details.none');
  return (
    <>
      <Section title={t('events.details.where')}>
        <Facts>
          <Fact label={t('events.columns.host')}>
            <span dir="ltr">{event.port ? `${event.host}:${event.port}` : event.host}</span>
          </Fact>
          <Fact label={t('events.columns.main_domain')}>{event.main_domain}</Fact>
          <Fact label={t('events.columns.tech')}>{event.tech}</Fact>
          <Fact label={t('events.columns.version')}>
            <span dir="ltr">{event.version || t('events.details.none')}</span>
          </Fact>
          <Fact label={t('events.details.firstSeen')}>{f.date(event.first_seen)}</Fact>
          <Fact label={t('events.details.lastSeen')}>{f.date(event.last_seen)}</Fact>
        </Facts>
      </Section>
      <Section title={t('events.details.technologyInfo')}>
        <Facts>
          <Fact label={t('events.details.versionRange')}>
            <span dir="ltr">{range}</span>
          </Fact>
          <Fact label={t('events.details.latestVersion')}>
            <span dir="ltr">{event.latest_version ?? t('events.details.none')}</span>
          </Fact>
          <Fact label={t('events.details.homepage')}>
            <ExternalLink href={event.homepage} />
          </Fact>
          <Fact label={t('events.details.downloadsPerMonth')}>
            {event.downloads_per_month === null
              ? t('events.details.none')
              : f.number(event.downloads_per_month)}
          </Fact>
          <Fact label={t('events.details.sourceRepository')}>
            <ExternalLink href={event.source_repository} />
          </Fact>
        </Facts>
      </Section>
      {hidden ? (
        <DetailsHiddenNotice sx={{ mb: 2 }} />
      ) : (
        <>
          {event.cve && <CveIntelDetails intel={event} />}
          <Section title={t('events.details.description')}>
            <Text value={event.description} />
          </Section>
          <References refs={event.references} />
        </>
      )}
      <Section title={t('events.details.classification')}>
        <Facts>
          <Fact label={t('events.details.classificationSeverity')}>
            <SeverityChip severity={event.severity} />
          </Fact>
          <Fact label={t('events.columns.cve')}>
            <span dir="ltr">{event.cve || t('events.details.noCve')}</span>
          </Fact>
          <Fact label={t('events.details.classificationKeys.cvss_score')}>
            {event.cvss_score === null ? t('events.details.none') : f.number(event.cvss_score)}
          </Fact>
          <Fact label={t('events.details.classificationKeys.cvss_metrics')}>
            <span dir="ltr">{event.cvss_vector ?? t('events.details.none')}</span>
          </Fact>
          <Fact label={t('events.details.classificationKeys.cwe_id')}>
            <span dir="ltr">{event.cwe.length ? event.cwe.join(', ') : t('events.details.none')}</span>
          </Fact>
        </Facts>
      </Section>
    </>
  );
}

function LeakDetails({ event, hidden }: { event: TOf<'leakcheck'>; hidden: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <Section title={t('events.details.leakInfo')}>
      {hidden && <DetailsHiddenNotice sx={{ mb: 1 }} />}
      <Facts>
        <Fact label={t('events.columns.email')}>
          <span dir="ltr">{event.email}</span>
        </Fact>
        <Fact label={t('events.columns.password')}>
          {hidden ? (
            t('events.detailsHidden.value')
          ) : event.password ? (
            <Box component="span" dir="ltr" sx={{ fontFamily: 'monospace' }} data-testid="leak-password">
              {maskPassword(event.password)}
            </Box>
          ) : (
            t('events.details.noPassword')
          )}
        </Fact>
        <Fact label={t('events.details.leakSources')}>
          {hidden
            ? t('events.detailsHidden.value')
            : event.sources.length
              ? event.sources.join(', ')
              : t('events.details.none')}
        </Fact>
        <Fact label={t('events.columns.leak_date')}>{f.day(event.leak_date)}</Fact>
        <Fact label={t('events.columns.main_domain')}>{event.main_domain}</Fact>
        <Fact label={t('events.details.firstSeen')}>{f.date(event.first_seen)}</Fact>
        <Fact label={t('events.details.lastSeen')}>{f.date(event.last_seen)}</Fact>
      </Facts>
    </Section>
  );
}

export function eventTitle(event: TEvent): string {
  if (event.scan_subclass === 'exploit_scanner') return event.name;
  if (event.scan_subclass === 'exploit_db')
    return [event.tech, event.version, event.cve].filter(Boolean).join(' · ');
  return event.email;
}

/**
 * A finding's details in a dialog: its sections, and mark resolved / reopen. Marking closes the
 * dialog, so the snackbar's Undo is reachable (a modal dialog hides and traps everything else).
 */
export function EventDetails({
  event,
  detailsHidden = false,
  open,
  onClose,
}: {
  event: TEvent | null;
  /** The server withheld the details (Trial): say so instead of "Not available". */
  detailsHidden?: boolean;
  open: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const titleId = useId();
  return (
    <Dialog
      open={open && !!event}
      onClose={onClose}
      fullWidth
      maxWidth="md"
      scroll="paper"
      aria-labelledby={titleId}
    >
      {event && (
        <>
          <DialogTitle id={titleId} sx={{ overflowWrap: 'anywhere' }}>
            {eventTitle(event)}
          </DialogTitle>
          <DialogContent dividers>
            <Stack direction="row" spacing={1} sx={{ mb: 2 }}>
              <SeverityChip severity={event.severity} />
              <StatusChip event={event} />
            </Stack>
            {event.scan_subclass === 'exploit_scanner' && (
              <ScannerDetails event={event} hidden={detailsHidden} />
            )}
            {event.scan_subclass === 'exploit_db' && <CveDetails event={event} hidden={detailsHidden} />}
            {event.scan_subclass === 'leakcheck' && <LeakDetails event={event} hidden={detailsHidden} />}
            <Divider sx={{ my: 2 }} />
            <ResolveControls key={event.id} event={event} onDone={onClose} />
          </DialogContent>
          <DialogActions>
            <Button onClick={onClose}>{t('common.close')}</Button>
          </DialogActions>
        </>
      )}
    </Dialog>
  );
}
