import DownloadOutlined from '@mui/icons-material/DownloadOutlined';
import { Button, ButtonGroup } from '@mui/material';
import { REPORT_FORMATS } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { useReportDownload } from '../hooks/use-report-download.ts';

/** PDF, CSV and JSON of the scan's report; each file keeps the name the server gives it. */
export function ScanReportDownloads({ scanId }: { scanId: string }) {
  const { t } = useTranslation();
  const { download, isLoading, format } = useReportDownload();
  return (
    <ButtonGroup variant="outlined" size="small" aria-label={t('scans.report.downloads')}>
      {REPORT_FORMATS.map((f) => (
        <Button
          key={f}
          startIcon={<DownloadOutlined />}
          disabled={isLoading}
          aria-busy={isLoading && format === f}
          onClick={() => void download(scanId, f)}
        >
          {t(`scans.report.format.${f}`)}
        </Button>
      ))}
    </ButtonGroup>
  );
}
