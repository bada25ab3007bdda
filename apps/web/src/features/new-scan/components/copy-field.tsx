import ContentCopy from '@mui/icons-material/ContentCopy';
import { Box, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A value to publish, shown as code (always left-to-right), with a copy button. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <Stack spacing={0.5}>
      <Typography variant="subtitle2" component="span">
        {label}
      </Typography>
      <Stack
        direction="row"
        spacing={1}
        sx={{
          alignItems: 'center',
          border: 1,
          borderColor: 'divider',
          borderRadius: 1,
          paddingInlineStart: 1.5,
          paddingInlineEnd: 0.5,
        }}
      >
        <Box
          component="code"
          dir="ltr"
          sx={{ flex: 1, py: 1, fontFamily: 'monospace', wordBreak: 'break-all', textAlign: 'start' }}
        >
          {value}
        </Box>
        <Tooltip title={copied ? t('newScan.copy.copied') : t('newScan.copy.copy')}>
          <IconButton
            aria-label={t('newScan.copy.copyLabel', { label })}
            onClick={() => void copy()}
            onBlur={() => setCopied(false)}
          >
            <ContentCopy fontSize="small" />
          </IconButton>
        </Tooltip>
      </Stack>
      <Box
        component="span"
        role="status"
        sx={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' }}
      >
        {copied ? t('newScan.copy.copiedLabel', { label }) : ''}
      </Box>
    </Stack>
  );
}
