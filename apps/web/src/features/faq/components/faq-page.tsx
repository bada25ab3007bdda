import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/ui/page-title.tsx';

/** Route entry; the page is being built (issue 7). */
export function FaqPage() {
  const { t } = useTranslation();
  return <PageTitle title={t('pages.faq')} />;
}
