/** The FAQ's groups and their answers, in order; texts are under `faq.items.<key>` in locales/*\/faq.json. */
export const FAQ_GROUPS = [
  {
    id: 'verification',
    items: [
      'whyVerify',
      'verifyDomain',
      'verifyPeer',
      'verifyNetwork',
      'recheck',
      'privateAddresses',
      'unprovenAddresses',
    ],
  },
  {
    id: 'scanning',
    items: [
      'scanStages',
      'classResources',
      'classExploitScanner',
      'classExploitDb',
      'classLeakcheck',
      'fullVsCustom',
      'politeness',
      'lifecycle',
      'cancelScan',
    ],
  },
  {
    id: 'schedules',
    items: ['scheduleHow', 'defaultWindow', 'daylightSaving', 'missedRuns', 'scheduleLimits'],
  },
  { id: 'reports', items: ['reportFormats', 'reportSize', 'trialReport', 'notifications'] },
  { id: 'plans', items: ['plansOverview', 'limitsMeaning', 'changePlan', 'cards'] },
  {
    id: 'data',
    items: ['whatWeStore', 'leakedPasswords', 'accountSecurity', 'isolation', 'selfHosting'],
  },
] as const;

/** `verifyDomain` → `verify-domain`: the answer's anchor (`/faq#verify-domain`). */
export function anchorOf(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Every word of the query occurs in the text (case- and accent-insensitive). */
export function matchesQuery(text: string, query: string): boolean {
  const fold = (s: string) =>
    s
      .toLocaleLowerCase()
      .normalize('NFD')
      .replace(/[\u0300-\u036f`]/g, '')
      .replace(/ё/g, 'е');
  const haystack = fold(text);
  return fold(query)
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}
