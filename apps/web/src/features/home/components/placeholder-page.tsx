import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/ui/page-title.tsx';

/** Scan-related routes exist now and show their title; later issues fill them. */
export function PlaceholderPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return <PageTitle title={t(titleKey)} />;
}
