import ContentCopyOutlined from '@mui/icons-material/ContentCopyOutlined';
import { Box, Button, Link, Typography } from '@mui/material';
import { type ReactNode, useId } from 'react';
import { useTranslation } from 'react-i18next';
import { useNotify } from '../../../components/feedback/snackbar.tsx';

/** The building blocks of the finding details dialog: sections, facts, code, links, copy. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <Box component="section" aria-labelledby={id} sx={{ mb: 2.5 }}>
      <Typography id={id} variant="subtitle1" component="h3" sx={{ fontWeight: 600, mb: 0.5 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

export function Text({ value }: { value: string | null }) {
  const { t } = useTranslation();
  return (
    <Typography
      variant="body2"
      dir="auto"
      sx={{ whiteSpace: 'pre-wrap' }}
      color={value ? 'text.primary' : 'text.secondary'}
    >
      {value || t('events.details.none')}
    </Typography>
  );
}

/** Label/value pairs; values that are data (hosts, versions) keep their own direction. */
export function Facts({ children }: { children: ReactNode }) {
  return (
    <Box
      component="dl"
      sx={{
        m: 0,
        display: 'grid',
        gridTemplateColumns: 'minmax(120px, max-content) 1fr',
        columnGap: 2,
        rowGap: 0.5,
      }}
    >
      {children}
    </Box>
  );
}

export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <Typography component="dt" variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </>
  );
}

export function ExternalLink({ href }: { href: string | null }) {
  const { t } = useTranslation();
  if (!href) return <>{t('events.details.none')}</>;
  // Only web links become links: a reference from a scanned page is data, never a javascript: URL.
  if (!/^https?:\/\//i.test(href)) return <span dir="ltr">{href}</span>;
  return (
    <Link href={href} target="_blank" rel="noopener noreferrer" dir="ltr" sx={{ overflowWrap: 'anywhere' }}>
      {href}
    </Link>
  );
}

export function References({ refs }: { refs: string[] }) {
  const { t } = useTranslation();
  return (
    <Section title={t('events.details.references')}>
      {refs.length === 0 ? (
        <Text value={null} />
      ) : (
        <Box component="ul" sx={{ m: 0, ps: 2.5 }}>
          {refs.map((r) => (
            <li key={r}>
              <ExternalLink href={r} />
            </li>
          ))}
        </Box>
      )}
    </Section>
  );
}

export const CLASSIFICATION_KEYS = [
  'cve-id',
  'cwe-id',
  'cvss-score',
  'cvss-metrics',
  'epss-score',
  'cpe',
] as const;

export function classificationValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(String).join(', ');
  if (v && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useTranslation();
  const notify = useNotify();
  return (
    <Button
      size="small"
      startIcon={<ContentCopyOutlined fontSize="small" />}
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () =>
            notify({ message: t('events.details.copied'), alert: { color: 'success', variant: 'filled' } }),
          () =>
            notify({ message: t('events.details.copyFailed'), alert: { color: 'error', variant: 'filled' } }),
        )
      }
    >
      {label}
    </Button>
  );
}
