import type { TLanguage } from '@perimeter/contracts';
import { type RenderedMail, renderActionMail } from '../mail/mail-templates.ts';
import { countsBySeverity } from './notifications-fns.ts';

export interface ScanMailFacts {
  name: string;
  targets: string;
  link: string;
  counts: Record<string, number>;
  newCriticalHigh: Array<{ name: string; severity: string; host: string }>;
}

const SEV: Record<TLanguage, Record<string, string>> = {
  en: {
    critical: 'critical',
    high: 'high',
    medium: 'medium',
    low: 'low',
    informational: 'informational',
    unknown: 'unknown',
  },
  ru: {
    critical: 'критических',
    high: 'высоких',
    medium: 'средних',
    low: 'низких',
    informational: 'информационных',
    unknown: 'неизвестных',
  },
};

/** A finding's severity as a label: "[critical]", "[критическая]". */
const SEV_LABEL: Record<TLanguage, Record<string, string>> = {
  en: SEV.en,
  ru: {
    critical: 'критическая',
    high: 'высокая',
    medium: 'средняя',
    low: 'низкая',
    informational: 'информационная',
    unknown: 'неизвестная',
  },
};

function countsLine(lang: TLanguage, counts: Record<string, number>): string {
  return countsBySeverity(counts)
    .map(([s, n]) => `${n} ${SEV[lang][s] ?? s}`)
    .join(', ');
}

export function scanFinishedMail(lang: TLanguage, f: ScanMailFacts): RenderedMail {
  const counts = countsLine(lang, f.counts);
  return lang === 'ru'
    ? renderActionMail(
        {
          subject: `Сканирование ${f.targets} завершено`,
          greeting: (n) => `Здравствуйте, ${n}!`,
          body: `Сканирование ${f.targets} завершено. ${counts ? `Находки: ${counts}.` : 'Уязвимостей не найдено.'}`,
          action: 'Открыть отчёт',
          footer: 'Уведомления можно отключить в настройках учётной записи.',
        },
        f.name,
        f.link,
      )
    : renderActionMail(
        {
          subject: `Scan of ${f.targets} finished`,
          greeting: (n) => `Hello ${n},`,
          body: `The scan of ${f.targets} has finished. ${counts ? `Findings: ${counts}.` : 'No findings.'}`,
          action: 'Open the report',
          footer: 'You can turn these notifications off in your account settings.',
        },
        f.name,
        f.link,
      );
}

export function newCriticalHighMail(lang: TLanguage, f: ScanMailFacts): RenderedMail {
  const list = f.newCriticalHigh
    .slice(0, 10)
    .map((x) => `• [${SEV_LABEL[lang][x.severity] ?? x.severity}] ${x.name} — ${x.host}`)
    .join('\n');
  const more = f.newCriticalHigh.length > 10 ? f.newCriticalHigh.length - 10 : 0;
  return lang === 'ru'
    ? renderActionMail(
        {
          subject: `Новые критические и высокие уязвимости: ${f.targets} (${f.newCriticalHigh.length})`,
          greeting: (n) => `Здравствуйте, ${n}!`,
          body: `Последнее сканирование ${f.targets} нашло новые уязвимости высокой и критической опасности:\n${list}${more ? `\n… и ещё ${more}` : ''}`,
          action: 'Посмотреть уязвимости',
          footer: 'Уведомления можно отключить в настройках учётной записи.',
        },
        f.name,
        f.link,
      )
    : renderActionMail(
        {
          subject: `New critical and high findings on ${f.targets} (${f.newCriticalHigh.length})`,
          greeting: (n) => `Hello ${n},`,
          body: `The latest scan of ${f.targets} found new critical or high findings:\n${list}${more ? `\n… and ${more} more` : ''}`,
          action: 'Review the findings',
          footer: 'You can turn these notifications off in your account settings.',
        },
        f.name,
        f.link,
      );
}
