import type { REPORT_FORMATS } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useDownloadScanReportMutation } from '../api/download-scan-report.ts';

export type TReportFormat = (typeof REPORT_FORMATS)[number];

/** Hands an object URL to the browser as a file download under the given name, then releases it. */
export function saveFile(url: string, filename: string) {
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Let the browser start the download before the URL is released.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Downloads a scan's report in a format, named by the server (Content-Disposition). */
export function useReportDownload() {
  const { t, i18n } = useTranslation();
  const notify = useNotify();
  const [download, state] = useDownloadScanReportMutation();
  const run = async (id: string, format: TReportFormat) => {
    try {
      const language = i18n.language === 'ru' ? 'ru' : 'en';
      const file = await download({ id, format, options: { language } }).unwrap();
      saveFile(file.url, file.filename ?? `perimeter-report-${id}.${format}`);
    } catch (e) {
      notify({
        message: `${t('scans.report.downloadError')} ${apiErrorMessage(e, t)}`,
        alert: { color: 'error', variant: 'filled' },
      });
    }
  };
  return { download: run, isLoading: state.isLoading, format: state.originalArgs?.format };
}
