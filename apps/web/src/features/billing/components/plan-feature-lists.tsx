import CheckIcon from '@mui/icons-material/Check';
import { List, ListItem, ListItemIcon, ListItemText, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { planText } from './plan-text.ts';

/** A plan's features and limitations, as the plan card (ticked) and the congratulations dialog show them. */
export function PlanFeatureLists({
  text,
  ticked = false,
}: {
  text: ReturnType<typeof planText>;
  ticked?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Typography variant="subtitle1" component="h3" sx={ticked ? { mt: 2 } : undefined}>
        {text.featuresTitle}
      </Typography>
      <List dense>
        {text.features.map((f) => (
          <ListItem key={f} disableGutters>
            {ticked && (
              <ListItemIcon sx={{ minWidth: 28 }}>
                <CheckIcon fontSize="small" color="success" />
              </ListItemIcon>
            )}
            <ListItemText primary={f} />
          </ListItem>
        ))}
      </List>
      <Typography variant={ticked ? 'subtitle2' : 'subtitle1'} component="h3">
        {t('billing.limitationsTitle')}
      </Typography>
      <List dense>
        {text.limitations.map((l) => (
          <ListItem key={l} disableGutters>
            <ListItemText primary={l} />
          </ListItem>
        ))}
      </List>
    </>
  );
}
