import type { TLanguage, TScanPartial } from '@perimeter/contracts';
import { type RenderedMail, renderActionMail } from '../mail/mail-templates.ts';
import { countsBySeverity } from './notifications-fns.ts';

export interface ScanMailFacts {
  name: string;
  targets: string;
  link: string;
  counts: Record<string, number>;
  newCriticalHigh: Array<{ name: string; severity: string; host: string }>;
  /** Set when the scan did not run everything it planned. */
  partial?: TScanPartial | null;
}

/** Honest completion in a mail: which stages were cut or skipped work, and why (a few lines). */
function partialText(lang: TLanguage, partial: TScanPartial | null | undefined): string {
  if (!partial?.stages.length) return '';
  const lines = partial.stages.map((s) => {
    const ran =
      s.planned !== null
        ? lang === 'ru'
          ? `, выполнено ${s.ran ?? 0} из ${s.planned}`
          : `, ran ${s.ran ?? 0} of ${s.planned}`
        : '';
    const skipped = s.skipped
      .slice(0, 3)
      .map((k) => `${k.reason} (${k.count})`)
      .join('; ');
    return `• ${s.stage}: ${s.reason ?? s.status}${ran}${skipped ? ` — ${skipped}` : ''}`;
  });
  return lang === 'ru'
    ? `\n\nСканирование частичное: выполнено не всё запланированное. Находки, которые не удалось проверить, сохраняют своё состояние.\n${lines.join('\n')}`
    : `\n\nThe scan is partial: not everything planned ran. Findings it could not check keep their state.\n${lines.join('\n')}`;
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
          subject: `Сканирование ${f.targets} завершено${f.partial ? ' (частично)' : ''}`,
          greeting: (n) => `Здравствуйте, ${n}!`,
          body: `Сканирование ${f.targets} завершено. ${counts ? `Находки: ${counts}.` : 'Уязвимостей не найдено.'}${partialText(lang, f.partial)}`,
          action: 'Открыть отчёт',
          footer: 'Уведомления можно отключить в настройках учётной записи.',
        },
        f.name,
        f.link,
      )
    : renderActionMail(
        {
          subject: `Scan of ${f.targets} finished${f.partial ? ' (partial)' : ''}`,
          greeting: (n) => `Hello ${n},`,
          body: `The scan of ${f.targets} has finished. ${counts ? `Findings: ${counts}.` : 'No findings.'}${partialText(lang, f.partial)}`,
          action: 'Open the report',
          footer: 'You can turn these notifications off in your account settings.',
        },
        f.name,
        f.link,
      );
}

/** A scan that could not be run to its end (its retries used up): what happened and what was kept. */
export function scanFailedMail(lang: TLanguage, f: ScanMailFacts & { reason: string }): RenderedMail {
  const counts = countsLine(lang, f.counts);
  return lang === 'ru'
    ? renderActionMail(
        {
          subject: `Сканирование ${f.targets} не завершено`,
          greeting: (n) => `Здравствуйте, ${n}!`,
          body: `Сканирование ${f.targets} остановлено с ошибкой и не выполнено до конца. Причина (на английском): ${f.reason} ${counts ? `Найденное до остановки сохранено: ${counts}.` : 'До остановки ничего не найдено.'} Запустите сканирование снова, чтобы завершить проверку.`,
          action: 'Открыть сканирование',
          footer: 'Уведомления можно отключить в настройках учётной записи.',
        },
        f.name,
        f.link,
      )
    : renderActionMail(
        {
          subject: `Scan of ${f.targets} failed`,
          greeting: (n) => `Hello ${n},`,
          body: `The scan of ${f.targets} stopped with an error and did not run to its end. Reason: ${f.reason} ${counts ? `What it found before is kept: ${counts}.` : 'It found nothing before it stopped.'} Start it again to complete the check.`,
          action: 'Open the scan',
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
