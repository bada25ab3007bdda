import { Alert, Box, Card, CardContent, Chip, Grid, Stack, Typography } from '@mui/material';
import type { TOobInteraction, TScan } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { CodeBlock } from '../../../components/ui/code-block.tsx';
import { useDateFormat } from '../../auth/index.ts';
import { useGetLateInteractionsQuery } from '../api/get-late-interactions.ts';

function Interaction({ i }: { i: TOobInteraction }) {
  const { t } = useTranslation();
  const dateFmt = useDateFormat({ dateStyle: 'short', timeStyle: 'short' });
  return (
    <Box data-testid="oob-interaction">
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 0.5 }}>
        <Chip
          size="small"
          label={i.q_type ? `${i.protocol.toUpperCase()} ${i.q_type}` : i.protocol.toUpperCase()}
        />
        <Typography variant="body2" dir="ltr">
          {t('oob.from', { address: i.remote_address })}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          <span dir="ltr">{dateFmt.format(new Date(i.at))}</span>
        </Typography>
      </Stack>
      <CodeBlock label={t('oob.rawRequest')} maxHeight={200} fontSize={12}>
        {i.raw_request}
      </CodeBlock>
    </Box>
  );
}

/** The call-backs that proved an out-of-band finding (details dialog). */
export function OobInteractions({
  interactions,
  late,
}: {
  interactions?: TOobInteraction[];
  late?: boolean;
}) {
  const { t } = useTranslation();
  if (!interactions?.length) return null;
  return (
    <Box data-testid="oob-interactions">
      <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }}>
        {t('oob.interactions')}
      </Typography>
      {late && (
        <Alert severity="info" sx={{ mb: 1 }}>
          {t('oob.late')}
        </Alert>
      )}
      {interactions.map((i) => (
        <Interaction key={`${i.id}-${i.at}-${i.protocol}`} i={i} />
      ))}
    </Box>
  );
}

/** Call-backs that reached the interaction server after the scan ended: a full-width row of the scan detail grid, or nothing. */
export function LateInteractionsCard({ scan }: { scan: TScan }) {
  const { t } = useTranslation();
  const ended = scan.status === 'done' || scan.status === 'canceled';
  const { data } = useGetLateInteractionsQuery(scan.id, { skip: !ended });
  if (!data?.count) return null;
  return (
    <Grid size={12}>
      <Card variant="outlined" data-testid="late-interactions">
        <CardContent>
          <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
            {t('oob.lateTitle', { count: data.count })}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {t('oob.lateText')}
          </Typography>
          {data.items.map((i) => (
            <Interaction key={`${i.id}-${i.at}-${i.protocol}`} i={i} />
          ))}
        </CardContent>
      </Card>
    </Grid>
  );
}
