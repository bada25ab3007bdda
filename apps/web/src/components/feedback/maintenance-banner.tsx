import { Alert } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useGetMaintenanceQuery } from '../../features/system/api/get-maintenance.ts';

export async function sanitizeMessage(html: string): Promise<string> {
  // Loaded only when there is a message to show: keeps DOMPurify out of the initial bundle.
  const { default: DOMPurify } = await import('dompurify');
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS: ['b', 'strong', 'i', 'em', 'u', 'a', 'br', 'p', 'span', 'ul', 'ol', 'li', 'code'],
    ALLOWED_ATTR: ['href', 'title', 'target', 'rel'],
  });
}

/** Shown only when maintenance mode is on and a message exists; the operator's HTML is sanitized. */
export function MaintenanceBanner() {
  const { t } = useTranslation();
  const { data } = useGetMaintenanceQuery(undefined, { pollingInterval: 60_000 });
  const [html, setHtml] = useState('');
  const message = data?.maintenance_mode ? data.message : null;

  useEffect(() => {
    let alive = true;
    if (!message) {
      setHtml('');
      return;
    }
    void sanitizeMessage(message).then((clean) => {
      if (alive) setHtml(clean);
    });
    return () => {
      alive = false;
    };
  }, [message]);

  if (!message || !html) return null;
  return (
    <Alert severity="warning" variant="filled" sx={{ borderRadius: 0 }} aria-label={t('maintenance.label')}>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by DOMPurify above */}
      <span data-testid="maintenance-message" dangerouslySetInnerHTML={{ __html: html }} />
    </Alert>
  );
}
