import Lock from '@mui/icons-material/Lock';
import {
  Box,
  Checkbox,
  FormControl,
  FormControlLabel,
  FormHelperText,
  FormLabel,
  Link as MuiLink,
  Radio,
  RadioGroup,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import {
  PLAN_NAMES,
  SEVERITIES,
  type TPlanKey,
  type TScanSubclass,
  type TSeverity,
  type TTemplateSelection,
} from '@perimeter/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { paths } from '../../../config/paths.ts';
import {
  customScanLock,
  PICKABLE_CLASSES,
  parseTags,
  subclassLock,
  type TScanChoice,
} from '../new-scan-fns.ts';

function LockReason({ id, text }: { id: string; text: string }) {
  const { t } = useTranslation();
  return (
    <Stack id={id} direction="row" spacing={0.5} sx={{ alignItems: 'center', color: 'text.secondary' }}>
      <Lock fontSize="inherit" aria-hidden />
      <Typography variant="caption">
        {text}{' '}
        <MuiLink component={Link} to={paths.accountPlanChoose}>
          {t('newScan.scanType.upgrade')}
        </MuiLink>
      </Typography>
    </Stack>
  );
}

/**
 * Which templates a custom scan runs: severities, and tags left out by default (as in nuclei:
 * dos, fuzz…) to bring back. Every severity ticked means no filter.
 */
function TemplateChoice({
  value,
  onChange,
}: {
  value: TTemplateSelection | undefined;
  onChange: (v: TTemplateSelection | undefined) => void;
}) {
  const { t } = useTranslation();
  const [tags, setTags] = useState((value?.include_tags ?? []).join(', '));
  const severities = value?.severities ?? [...SEVERITIES];
  const update = (next: { severities?: TSeverity[]; include_tags?: string[] }) => {
    const sev = next.severities ?? value?.severities;
    const inc = next.include_tags ?? value?.include_tags;
    const out: TTemplateSelection = {
      ...(sev && sev.length < SEVERITIES.length ? { severities: sev } : {}),
      ...(inc?.length ? { include_tags: inc } : {}),
    };
    onChange(Object.keys(out).length ? out : undefined);
  };
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }} data-testid="template-choice">
      <Typography component="legend" variant="subtitle1" sx={{ mb: 0.5 }}>
        {t('newScan.templates.title')}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {t('newScan.templates.severityHelp')}
      </Typography>
      <Stack direction="row" sx={{ flexWrap: 'wrap' }}>
        {SEVERITIES.map((s) => (
          <FormControlLabel
            key={s}
            control={
              <Checkbox
                checked={severities.includes(s)}
                onChange={(_, on) =>
                  update({
                    severities: on
                      ? SEVERITIES.filter((x) => x === s || severities.includes(x))
                      : severities.filter((x) => x !== s),
                  })
                }
              />
            }
            label={t(`newScan.templates.severity.${s}`)}
          />
        ))}
      </Stack>
      {severities.length === 0 && (
        <FormHelperText error role="alert">
          {t('newScan.templates.chooseSeverity')}
        </FormHelperText>
      )}
      <TextField
        label={t('newScan.templates.includeTags')}
        helperText={t('newScan.templates.includeTagsHelp')}
        value={tags}
        onChange={(e) => {
          setTags(e.target.value);
          update({ include_tags: parseTags(e.target.value) });
        }}
        size="small"
        fullWidth
        sx={{ mt: 1.5 }}
      />
    </Box>
  );
}

/** Step 3: full scan, or a custom choice of classes and subclasses; what the plan lacks is locked. */
export function ScanTypeStep({
  plan,
  choice,
  onChange,
  showEmptyError,
}: {
  plan: TPlanKey;
  choice: TScanChoice;
  onChange: (choice: TScanChoice) => void;
  showEmptyError: boolean;
}) {
  const { t } = useTranslation();
  const planName = PLAN_NAMES[plan];
  const customLock = customScanLock(plan);
  const chosen = choice.scanType === 'custom' ? choice.subclasses : [];
  const templates = choice.scanType === 'custom' ? choice.templates : undefined;
  const setChosen = (subclasses: TScanSubclass[]) =>
    onChange({ scanType: 'custom', subclasses, ...(templates ? { templates } : {}) });
  const allowed = (s: TScanSubclass) => !subclassLock(plan, s).locked;

  return (
    <Stack spacing={3}>
      <FormControl>
        <FormLabel id="new-scan-kind-label">{t('newScan.scanType.label')}</FormLabel>
        <RadioGroup
          aria-labelledby="new-scan-kind-label"
          value={choice.scanType}
          onChange={(_, v) =>
            onChange(v === 'custom' ? { scanType: 'custom', subclasses: [] } : { scanType: 'full' })
          }
        >
          <FormControlLabel
            value="full"
            control={<Radio slotProps={{ input: { 'aria-describedby': 'new-scan-full-help' } }} />}
            label={t('newScan.scanType.full')}
          />
          <FormHelperText id="new-scan-full-help" sx={{ mt: -0.5, mb: 1, marginInlineStart: 4 }}>
            {t('newScan.scanType.fullHelp', { plan: planName })}
          </FormHelperText>
          <FormControlLabel
            value="custom"
            disabled={customLock.locked}
            control={
              <Radio
                slotProps={{
                  input: {
                    'aria-describedby': customLock.locked ? 'new-scan-custom-lock' : 'new-scan-custom-help',
                  },
                }}
              />
            }
            label={t('newScan.scanType.custom')}
          />
          <Box sx={{ marginInlineStart: 4 }}>
            {customLock.locked ? (
              <LockReason
                id="new-scan-custom-lock"
                text={t('newScan.scanType.customLocked', { plan: planName })}
              />
            ) : (
              <FormHelperText id="new-scan-custom-help" sx={{ mt: -0.5, mx: 0 }}>
                {t('newScan.scanType.customHelp')}
              </FormHelperText>
            )}
          </Box>
        </RadioGroup>
      </FormControl>

      <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }} aria-describedby="new-scan-classes-help">
        <Typography component="legend" variant="subtitle1" sx={{ mb: 0.5 }}>
          {t('newScan.scanType.classesTitle')}
        </Typography>
        <Typography id="new-scan-classes-help" variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {choice.scanType === 'full'
            ? t('newScan.scanType.classesFullHelp')
            : t('newScan.scanType.classesCustomHelp')}
        </Typography>
        <Stack spacing={1.5}>
          <Box>
            <FormControlLabel
              control={<Checkbox checked disabled />}
              label={t('newScan.class.class_resources')}
            />
            <FormHelperText sx={{ mt: -0.5, marginInlineStart: 4 }}>
              {t('newScan.scanType.resourcesAlways')}
            </FormHelperText>
          </Box>
          {PICKABLE_CLASSES.map(({ cls, subclasses }) => {
            const open = subclasses.filter(allowed);
            const classLocked = open.length === 0;
            const inFull = choice.scanType === 'full';
            const checkedCount = inFull ? open.length : subclasses.filter((s) => chosen.includes(s)).length;
            return (
              <Box key={cls}>
                <FormControlLabel
                  control={
                    <Checkbox
                      checked={checkedCount > 0 && checkedCount === open.length && !classLocked}
                      indeterminate={checkedCount > 0 && checkedCount < open.length}
                      disabled={inFull || classLocked}
                      onChange={(_, on) =>
                        setChosen(
                          on
                            ? [...new Set([...chosen, ...open])]
                            : chosen.filter((s) => !subclasses.includes(s)),
                        )
                      }
                    />
                  }
                  label={t(`newScan.class.${cls}`)}
                />
                <Stack sx={{ marginInlineStart: 4 }} spacing={0.5}>
                  {subclasses.map((s) => {
                    const lock = subclassLock(plan, s);
                    const lockId = `new-scan-lock-${s}`;
                    return (
                      <Box key={s}>
                        <FormControlLabel
                          control={
                            <Checkbox
                              checked={!lock.locked && (inFull || chosen.includes(s))}
                              disabled={inFull || lock.locked}
                              onChange={(_, on) =>
                                setChosen(on ? [...chosen, s] : chosen.filter((x) => x !== s))
                              }
                              slotProps={{
                                input: { 'aria-describedby': lock.locked ? lockId : `new-scan-help-${s}` },
                              }}
                            />
                          }
                          label={t(`newScan.subclass.${s}.name`)}
                        />
                        <Box sx={{ marginInlineStart: 4, mt: -0.5 }}>
                          {lock.locked ? (
                            <LockReason
                              id={lockId}
                              text={t('newScan.scanType.subclassLocked', { plan: planName })}
                            />
                          ) : (
                            <Typography id={`new-scan-help-${s}`} variant="caption" color="text.secondary">
                              {t(`newScan.subclass.${s}.help`)}
                            </Typography>
                          )}
                        </Box>
                      </Box>
                    );
                  })}
                </Stack>
              </Box>
            );
          })}
        </Stack>
        {showEmptyError && choice.scanType === 'custom' && chosen.length === 0 && (
          <FormHelperText error role="alert">
            {t('newScan.scanType.chooseOne')}
          </FormHelperText>
        )}
      </Box>
      {chosen.includes('exploit_scanner') && (
        <TemplateChoice
          value={templates}
          onChange={(v) =>
            onChange({ scanType: 'custom', subclasses: chosen, ...(v ? { templates: v } : {}) })
          }
        />
      )}
    </Stack>
  );
}
