import type { SvgIconComponent } from '@mui/icons-material';
import AccountCircleOutlined from '@mui/icons-material/AccountCircleOutlined';
import BugReportOutlined from '@mui/icons-material/BugReportOutlined';
import CircleOutlined from '@mui/icons-material/CircleOutlined';
import DescriptionOutlined from '@mui/icons-material/DescriptionOutlined';
import EventRepeatOutlined from '@mui/icons-material/EventRepeatOutlined';
import HelpOutline from '@mui/icons-material/HelpOutlineOutlined';
import HomeOutlined from '@mui/icons-material/HomeOutlined';
import InsightsOutlined from '@mui/icons-material/InsightsOutlined';
import LanguageOutlined from '@mui/icons-material/LanguageOutlined';
import RadarOutlined from '@mui/icons-material/RadarOutlined';

/** Icon names the menu data may use; an unknown name gets a neutral dot. */
const ICONS: Record<string, SvgIconComponent> = {
  home: HomeOutlined,
  radar: RadarOutlined,
  description: DescriptionOutlined,
  bug: BugReportOutlined,
  analytics: InsightsOutlined,
  account: AccountCircleOutlined,
  schedule: EventRepeatOutlined,
  targets: LanguageOutlined,
  faq: HelpOutline,
};

export function menuIcon(name: string | undefined): SvgIconComponent | null {
  if (!name) return null;
  return ICONS[name] ?? CircleOutlined;
}
