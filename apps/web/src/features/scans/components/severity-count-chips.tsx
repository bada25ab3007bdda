import { Chip } from '@mui/material';
import { SEVERITIES, type TSeverity } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { SEVERITY_COLOR } from '../../../components/ui/severity-color.ts';

/** "High: 3" chips, most severe first, for the severities that have findings. */
export function SeverityCountChips({ counts }: { counts: Record<TSeverity, number> }) {
  const { t } = useTranslation();
  return SEVERITIES.filter((s) => counts[s] > 0).map((s) => (
    <Chip
      key={s}
      size="small"
      color={SEVERITY_COLOR[s]}
      label={`${t(`dashboard.severity.${s}`)}: ${counts[s]}`}
    />
  ));
}
