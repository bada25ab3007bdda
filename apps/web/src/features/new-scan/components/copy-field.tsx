import ContentCopy from '@mui/icons-material/ContentCopy';
import { IconButton, InputAdornment, TextField, Tooltip } from '@mui/material';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A value to publish: a labelled read-only field (always left-to-right) with a copy button. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation();
  const id = useId();
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
    <TextField
      id={id}
      label={label}
      value={value}
      fullWidth
      helperText={copied ? t('newScan.copy.copiedLabel', { label }) : undefined}
      slotProps={{
        htmlInput: { readOnly: true, dir: 'ltr', spellCheck: false, sx: { fontFamily: 'monospace' } },
        formHelperText: { role: 'status' },
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <Tooltip title={copied ? t('newScan.copy.copied') : t('newScan.copy.copy')}>
                <IconButton
                  aria-label={t('newScan.copy.copyLabel', { label })}
                  onClick={() => void copy()}
                  onBlur={() => setCopied(false)}
                  edge="end"
                >
                  <ContentCopy fontSize="small" />
                </IconButton>
              </Tooltip>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}
