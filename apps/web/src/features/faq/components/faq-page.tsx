import ClearOutlined from '@mui/icons-material/ClearOutlined';
import ExpandMoreOutlined from '@mui/icons-material/ExpandMoreOutlined';
import LinkOutlined from '@mui/icons-material/LinkOutlined';
import SearchOutlined from '@mui/icons-material/SearchOutlined';
import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Box,
  Button,
  IconButton,
  InputAdornment,
  Link as MuiLink,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { Fragment, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/ui/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { anchorOf, FAQ_GROUPS, matchesQuery } from './faq-data.ts';

/** Paragraphs split on blank lines, line breaks kept, `code` in backticks. */
function AnswerText({ text }: { text: string }) {
  return (
    <>
      {text.split('\n\n').map((paragraph, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: paragraphs are positional and static
        <Typography key={i} sx={{ whiteSpace: 'pre-line', mb: 1.5, textAlign: 'start' }}>
          {paragraph.split('`').map((part, j) =>
            j % 2 === 1 ? (
              <Box
                // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional and static
                key={j}
                component="code"
                dir="ltr"
                sx={{
                  fontFamily: 'monospace',
                  fontSize: '0.9em',
                  px: 0.5,
                  borderRadius: 0.5,
                  bgcolor: 'action.hover',
                  overflowWrap: 'anywhere',
                }}
              >
                {part}
              </Box>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional and static
              <Fragment key={j}>{part}</Fragment>
            ),
          )}
        </Typography>
      ))}
    </>
  );
}

export function FaqPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const hashKey = decodeURIComponent(location.hash.replace(/^#/, ''));
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set(hashKey ? [hashKey] : []));

  // A deep link (`/faq#verify-domain`) opens its answer and scrolls to it.
  useEffect(() => {
    if (!hashKey) return;
    setExpanded((prev) => (prev.has(hashKey) ? prev : new Set([...prev, hashKey])));
    const el = document.getElementById(hashKey);
    if (el && typeof el.scrollIntoView === 'function') el.scrollIntoView({ block: 'start' });
  }, [hashKey]);

  const groups = useMemo(
    () =>
      FAQ_GROUPS.map((g) => ({
        id: g.id,
        title: t(`faq.groups.${g.id}`),
        items: g.items
          .map((key) => ({
            key,
            anchor: anchorOf(key),
            q: t(`faq.items.${key}.q`),
            a: t(`faq.items.${key}.a`),
          }))
          .filter((item) => !query.trim() || matchesQuery(`${item.q}\n${item.a}`, query)),
      })).filter((g) => g.items.length > 0),
    [t, query],
  );
  const count = groups.reduce((n, g) => n + g.items.length, 0);

  const toggle = (anchor: string, open: boolean) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (open) next.add(anchor);
      else next.delete(anchor);
      return next;
    });
    if (open) void navigate({ hash: anchor }, { replace: true });
  };

  return (
    <Box sx={{ maxWidth: 960 }}>
      <PageTitle title={t('faq.title')} />
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {t('faq.intro')}
      </Typography>
      <Box component="form" role="search" onSubmit={(e) => e.preventDefault()} sx={{ mb: 1 }}>
        <TextField
          id="faq-search"
          type="search"
          fullWidth
          label={t('faq.searchLabel')}
          helperText={t('faq.searchHelp')}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          slotProps={{
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchOutlined />
                </InputAdornment>
              ),
              endAdornment: query ? (
                <InputAdornment position="end">
                  <IconButton aria-label={t('faq.clearSearch')} onClick={() => setQuery('')} edge="end">
                    <ClearOutlined />
                  </IconButton>
                </InputAdornment>
              ) : undefined,
            },
          }}
        />
      </Box>
      <Typography role="status" variant="body2" color="text.secondary" sx={{ mb: 3 }} data-testid="faq-count">
        {query.trim()
          ? count > 0
            ? t('faq.found', { count })
            : t('faq.noResults', { query: query.trim() })
          : null}
      </Typography>
      <Stack spacing={4}>
        {groups.map((g) => (
          <Box
            component="section"
            key={g.id}
            aria-labelledby={`faq-group-${g.id}`}
            data-testid={`faq-group-${g.id}`}
          >
            <Typography variant="h4" component="h2" id={`faq-group-${g.id}`} sx={{ mb: 1.5 }}>
              {g.title}
            </Typography>
            {g.items.map((item) => (
              <Accordion
                key={item.key}
                id={item.anchor}
                expanded={expanded.has(item.anchor)}
                onChange={(_, open) => toggle(item.anchor, open)}
                disableGutters
                slotProps={{ heading: { component: 'h3' }, transition: { unmountOnExit: true } }}
                sx={{ scrollMarginTop: 80 }}
              >
                <AccordionSummary
                  expandIcon={<ExpandMoreOutlined />}
                  id={`${item.anchor}-question`}
                  aria-controls={`${item.anchor}-answer`}
                >
                  <Typography sx={{ fontWeight: 600 }}>{item.q}</Typography>
                </AccordionSummary>
                <AccordionDetails>
                  <AnswerText text={item.a} />
                  {item.key === 'scheduleHow' && (
                    <Box sx={{ mb: 1 }}>
                      <Button component={RouterLink} to={paths.scheduleScan} variant="outlined" size="small">
                        {t('targets.links.faqSchedules')}
                      </Button>
                    </Box>
                  )}
                  <MuiLink
                    href={`#${item.anchor}`}
                    variant="body2"
                    onClick={(e) => {
                      e.preventDefault();
                      void navigate({ hash: item.anchor }, { replace: true });
                    }}
                    sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}
                  >
                    <LinkOutlined fontSize="small" aria-hidden />
                    {t('faq.linkToAnswer')}
                  </MuiLink>
                </AccordionDetails>
              </Accordion>
            ))}
          </Box>
        ))}
      </Stack>
    </Box>
  );
}
