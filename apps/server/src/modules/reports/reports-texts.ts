import type {
  TLanguage,
  TReportNotice,
  TScanMessageCode,
  TSeverity,
  TSkippedHostCode,
} from '@perimeter/contracts';
import { SCAN_MESSAGE_TEXTS } from '../../lib/scan-messages.ts';

/** A message's parameters as text (a `plan` already in the report's language). */
type TParams = Record<string, string>;

export interface ReportTexts {
  title: string;
  targets: string;
  scanDate: string;
  generated: string;
  duration: string;
  scanType: string;
  plan: string;
  summary: string;
  totalFindings: (n: number) => string;
  hosts: (n: number) => string;
  severity: Record<TSeverity, string>;
  severityLabel: string;
  changes: string;
  noPrevious: string;
  previous: (id: string) => string;
  changeNew: string;
  changeFixed: string;
  changeRegressed: string;
  andMore: (n: number) => string;
  findings: string;
  noFindings: string;
  description: string;
  impact: string;
  howToResolve: string;
  howToReproduce: string;
  evidence: string;
  /** Out-of-band call-backs of a finding (docs/oob.md). */
  oobInteractions: string;
  oobLate: string;
  references: string;
  classification: string;
  status: string;
  host: string;
  compactRest: (n: number) => string;
  cveTable: string;
  techInfo: string;
  version: string;
  versions: string;
  latestVersion: string;
  homepage: string;
  downloadsPerMonth: string;
  sourceRepository: string;
  leakTable: string;
  email: string;
  password: string;
  leakDate: string;
  leakSources: string;
  scopeAppendix: string;
  name: string;
  ipAddresses: string;
  openedPorts: string;
  technologies: string;
  hiddenTitle: string;
  hiddenBody: string;
  completeness: string;
  complete: string;
  partialShort: string;
  partialTitle: string;
  partialBody: string;
  partialStage: (stage: string, status: string, ran: number | null, planned: number | null) => string;
  partialSkipped: (count: number, reason: string, examples: string[]) => string;
  templateSets: string;
  hiddenSection: string;
  footer: string;
  none: string;
  cveName: (cve: string, tech: string, version: string) => string;
  /** CISA KEV line of a CVE (known exploited; ransomware use; CISA's due date). */
  kev: (ransomware: boolean, due: string | null) => string;
  epss: (score: number, percentile: number | null) => string;
  confidence: Record<'high' | 'medium' | 'low', string>;
  notices: Record<TReportNotice, string>;
  cveImpact: (score: number | null) => string;
  cveResolve: (tech: string, latest: string | null) => string;
  leakName: (email: string) => string;
  leakDescription: (sources: string[], date: string | null) => string;
  leakImpact: string;
  leakResolve: string;
  /** Values the report would otherwise show raw ("domain", "full", "business", "open"). */
  targetType: Record<string, string>;
  scanTypes: Record<string, string>;
  planName: Record<string, string>;
  /** The scan's message (why it ended early, or what its plan limited) by code. */
  scanMessageTitle: string;
  scanMessage: Record<TScanMessageCode, (p: TParams) => string>;
  skippedHostsTitle: (n: number) => string;
  reason: string;
  skippedReason: Record<TSkippedHostCode, (p: TParams) => string>;
  findingStatus: Record<string, string>;
  resolved: string;
  seconds: (n: number) => string;
  timeZone: string;
}

const en: ReportTexts = {
  title: 'Perimeter security report',
  targets: 'Targets',
  scanDate: 'Scan date and time',
  generated: 'Report generated',
  duration: 'Duration',
  scanType: 'Type',
  plan: 'Plan',
  summary: 'Executive summary',
  totalFindings: (n) => `${n} finding${n === 1 ? '' : 's'} in this scan`,
  hosts: (n) => `${n} host${n === 1 ? '' : 's'} in scope`,
  severityLabel: 'Severity',
  severity: {
    critical: 'Critical',
    high: 'High',
    medium: 'Medium',
    low: 'Low',
    informational: 'Informational',
    unknown: 'Unknown',
  },
  changes: 'What changed since the previous scan',
  noPrevious: 'This is the first finished scan of these targets: every finding is new.',
  previous: (id) => `Compared with scan ${id}.`,
  changeNew: 'New',
  changeFixed: 'Fixed',
  changeRegressed: 'Regressed (seen again after being fixed)',
  andMore: (n) => `… and ${n} more (see the CSV or JSON report).`,
  findings: 'Findings by severity',
  noFindings: 'No findings.',
  description: 'Description',
  impact: 'Impact',
  howToResolve: 'How to resolve',
  howToReproduce: 'How to reproduce',
  evidence: 'Evidence',
  oobInteractions: 'Out-of-band interactions (call-backs to Perimeter)',
  oobLate: 'The call-back arrived after the check’s wait; it was found when the stage ended.',
  references: 'Web references',
  classification: 'Classification',
  status: 'Status',
  host: 'Host',
  compactRest: (n) =>
    `The remaining ${n} findings are listed in compact form; the CSV and JSON reports carry every detail.`,
  cveTable: 'Known vulnerabilities (CVE) and technologies',
  techInfo: 'Technology info',
  version: 'Version',
  versions: 'Vulnerable versions',
  latestVersion: 'Latest version',
  homepage: 'Official homepage',
  downloadsPerMonth: 'Downloads per month',
  sourceRepository: 'Source repository',
  leakTable: 'Leaked credentials',
  email: 'E-mail',
  password: 'Password (masked)',
  leakDate: 'Leak date',
  leakSources: 'Leak sources',
  scopeAppendix: 'Appendix: scope of the scan',
  name: 'Name',
  ipAddresses: 'IP addresses',
  openedPorts: 'Opened ports',
  technologies: 'Technologies',
  completeness: 'Completeness',
  complete: 'Complete: every planned stage and check ran',
  partialShort: 'PARTIAL: not everything planned ran (see the summary)',
  partialTitle: 'Partial scan: not everything planned ran',
  partialBody:
    'Findings this scan could not check keep their earlier state; they are not marked fixed. A later complete scan decides them.',
  partialStage: (stage, status, ran, planned) =>
    `${stage}: ${
      {
        timeout: 'ended by its time limit',
        stalled: 'ended by the watchdog (no progress)',
        failed: 'failed',
      }[status] ?? 'finished, work skipped'
    }${planned !== null ? ` — ran ${ran ?? 0} of ${planned}` : ''}`,
  partialSkipped: (count, reason, examples) =>
    `${count} skipped: ${reason}${examples.length ? ` (e.g. ${examples.join(', ')})` : ''}`,
  templateSets: 'Template sets',
  hiddenTitle: 'Part of this report is hidden',
  hiddenBody:
    'On the Trial scan plan the report shows what was found but hides the details: descriptions, impact, how to resolve, how to reproduce and references of each finding, CVE descriptions, and the passwords and sources of leaked credentials. Any paid plan (Try it!, Starter, Business or Enterprise) unlocks the full report.',
  hiddenSection: 'Hidden on the Trial scan plan — upgrade to unlock.',
  footer: 'Perimeter · confidential · page {page} of {pages}',
  none: '—',
  cveName: (cve, tech, version) => `${cve} in ${tech} ${version}`,
  kev: (ransomware, due) =>
    `Known exploited (CISA KEV)${ransomware ? ', used by ransomware' : ''}${due ? `, fix by ${due}` : ''}`,
  epss: (score, pct) =>
    `EPSS ${(score * 100).toFixed(1)}%${pct === null ? '' : ` (percentile ${(pct * 100).toFixed(0)})`}`,
  confidence: {
    high: 'match: high confidence',
    medium: 'match: medium confidence',
    low: 'match: low confidence',
  },
  notices: {
    leak_check_not_configured:
      'Leak check not configured: no leak provider key is set and the local leak index is empty, so "no leaks" means nothing was checked.',
    cve_database_empty:
      'The CVE database was empty when this scan ran: no CVE could be matched. An operator loads it with `npm run cli -- intel sync` (or `cve import`).',
    cve_database_stale:
      'The CVE database was stale when this scan ran: recent CVEs may be missing. An operator updates it with `npm run cli -- intel sync`.',
    oob_not_configured:
      'Out-of-band checks not configured: templates that need a call-back (blind SSRF, Log4Shell, blind XXE) were skipped. An operator enables them with PERIMETER_OOB_DOMAIN (docs/oob.md).',
  },
  cveImpact: (score) =>
    score === null
      ? 'A published vulnerability affects this version.'
      : `A published vulnerability with CVSS score ${score} affects this version.`,
  cveResolve: (tech, latest) =>
    latest
      ? `Upgrade ${tech} to ${latest} or later.`
      : `Upgrade ${tech} to a version outside the vulnerable range.`,
  leakName: (email) => `Leaked credentials: ${email}`,
  leakDescription: (sources, date) =>
    `The address appears in ${sources.length} leak source${sources.length === 1 ? '' : 's'}${date ? ` (leak date ${date})` : ''}: ${sources.join(', ')}.`,
  leakImpact: 'Attackers try leaked passwords on your services (credential stuffing) to take over accounts.',
  leakResolve: 'Reset the password everywhere it was used, and turn on two-factor authentication.',
  targetType: { domain: 'domain', peer: 'host', network: 'network' },
  scanTypes: { full: 'full scan', custom: 'custom scan' },
  planName: {
    trial_scan: 'Trial scan',
    try_it: 'Try it!',
    starter: 'Starter',
    business: 'Business',
    enterprise: 'Enterprise',
  },
  scanMessageTitle: 'Note',
  // The English texts are the API's own (one table, lib/scan-messages.ts).
  scanMessage: SCAN_MESSAGE_TEXTS,
  skippedHostsTitle: (n) => `Hosts not scanned: ${n}`,
  reason: 'Reason',
  skippedReason: {
    host_limit: (p) => `the scan's limit of ${p.max} hosts was reached`,
    no_open_port: (p) => `no open port among the ${p.ports} scanned`,
    plan_subdomain_limit: (p) => `the ${p.plan} plan covers ${p.subdomains} subdomains per scan`,
  },
  findingStatus: { new: 'new', open: 'open', fixed: 'fixed', regressed: 'regressed' },
  resolved: 'resolved',
  seconds: (n) => `${n} s`,
  timeZone: 'Time zone',
};

const ru: ReportTexts = {
  title: 'Отчёт Perimeter о безопасности',
  targets: 'Цели',
  scanDate: 'Дата и время сканирования',
  generated: 'Отчёт создан',
  duration: 'Длительность',
  scanType: 'Тип',
  plan: 'Тариф',
  summary: 'Краткое резюме',
  totalFindings: (n) => `Найдено уязвимостей: ${n}`,
  hosts: (n) => `Хостов в области сканирования: ${n}`,
  severityLabel: 'Опасность',
  severity: {
    critical: 'Критическая',
    high: 'Высокая',
    medium: 'Средняя',
    low: 'Низкая',
    informational: 'Информационная',
    unknown: 'Неизвестная',
  },
  changes: 'Что изменилось с прошлого сканирования',
  noPrevious: 'Это первое завершённое сканирование этих целей: все находки новые.',
  previous: (id) => `Сравнение со сканированием ${id}.`,
  changeNew: 'Новые',
  changeFixed: 'Исправленные',
  changeRegressed: 'Вернувшиеся (снова найдены после исправления)',
  andMore: (n) => `… и ещё ${n} (см. отчёт CSV или JSON).`,
  findings: 'Находки по степени опасности',
  noFindings: 'Ничего не найдено.',
  description: 'Описание',
  impact: 'Последствия',
  howToResolve: 'Как устранить',
  howToReproduce: 'Как воспроизвести',
  evidence: 'Доказательство',
  oobInteractions: 'Внеполосные взаимодействия (обратные вызовы на Perimeter)',
  oobLate: 'Обратный вызов пришёл после ожидания проверки; он найден при завершении этапа.',
  references: 'Ссылки',
  classification: 'Классификация',
  status: 'Статус',
  host: 'Хост',
  compactRest: (n) => `Остальные ${n} находок приведены кратко; все подробности — в отчётах CSV и JSON.`,
  cveTable: 'Известные уязвимости (CVE) и технологии',
  techInfo: 'Сведения о технологии',
  version: 'Версия',
  versions: 'Уязвимые версии',
  latestVersion: 'Последняя версия',
  homepage: 'Официальный сайт',
  downloadsPerMonth: 'Загрузок в месяц',
  sourceRepository: 'Репозиторий',
  leakTable: 'Утёкшие учётные данные',
  email: 'Почта',
  password: 'Пароль (скрыт)',
  leakDate: 'Дата утечки',
  leakSources: 'Источники утечки',
  scopeAppendix: 'Приложение: область сканирования',
  name: 'Имя',
  ipAddresses: 'IP-адреса',
  openedPorts: 'Открытые порты',
  technologies: 'Технологии',
  completeness: 'Полнота',
  complete: 'Полное: выполнены все запланированные этапы и проверки',
  partialShort: 'ЧАСТИЧНОЕ: выполнено не всё запланированное (см. сводку)',
  partialTitle: 'Частичное сканирование: выполнено не всё запланированное',
  partialBody:
    'Находки, которые это сканирование не смогло проверить, сохраняют прежнее состояние и не отмечаются исправленными. Их решит следующее полное сканирование.',
  partialStage: (stage, status, ran, planned) =>
    `${stage}: ${
      {
        timeout: 'остановлен по лимиту времени',
        stalled: 'остановлен сторожевым таймером (нет продвижения)',
        failed: 'завершился ошибкой',
      }[status] ?? 'завершён, часть работы пропущена'
    }${planned !== null ? ` — выполнено ${ran ?? 0} из ${planned}` : ''}`,
  partialSkipped: (count, reason, examples) =>
    `пропущено ${count}: ${reason}${examples.length ? ` (например: ${examples.join(', ')})` : ''}`,
  templateSets: 'Наборы шаблонов',
  hiddenTitle: 'Часть отчёта скрыта',
  hiddenBody:
    'На тарифе «Пробное сканирование» отчёт показывает, что найдено, но скрывает подробности: описание, последствия, способы устранения и воспроизведения и ссылки каждой находки, описания CVE, а также пароли и источники утечек учётных данных. Любой платный тариф («Попробуйте!», Starter, Business или Enterprise) открывает полный отчёт.',
  hiddenSection: 'Скрыто на тарифе «Пробное сканирование» — смените тариф, чтобы открыть.',
  footer: 'Perimeter · конфиденциально · страница {page} из {pages}',
  none: '—',
  cveName: (cve, tech, version) => `${cve} в ${tech} ${version}`,
  kev: (ransomware, due) =>
    `Эксплуатируется (CISA KEV)${ransomware ? ', используется вымогателями' : ''}${due ? `, устранить до ${due}` : ''}`,
  epss: (score, pct) =>
    `EPSS ${(score * 100).toFixed(1)}%${pct === null ? '' : ` (процентиль ${(pct * 100).toFixed(0)})`}`,
  confidence: {
    high: 'совпадение: высокая уверенность',
    medium: 'совпадение: средняя уверенность',
    low: 'совпадение: низкая уверенность',
  },
  notices: {
    leak_check_not_configured:
      'Проверка утечек не настроена: ключи поставщиков не заданы, а локальный индекс утечек пуст, поэтому «нет утечек» означает, что ничего не проверялось.',
    cve_database_empty:
      'База CVE была пуста во время сканирования: ни одна CVE не могла быть найдена. Оператор загружает её командой `npm run cli -- intel sync` (или `cve import`).',
    cve_database_stale:
      'База CVE устарела во время сканирования: новые CVE могут отсутствовать. Оператор обновляет её командой `npm run cli -- intel sync`.',
    oob_not_configured:
      'Внеполосные проверки не настроены: шаблоны, которым нужен обратный вызов (слепой SSRF, Log4Shell, слепой XXE), пропущены. Оператор включает их переменной PERIMETER_OOB_DOMAIN (docs/oob.md).',
  },
  cveImpact: (score) =>
    score === null
      ? 'Эта версия подвержена опубликованной уязвимости.'
      : `Эта версия подвержена опубликованной уязвимости с оценкой CVSS ${score}.`,
  cveResolve: (tech, latest) =>
    latest
      ? `Обновите ${tech} до версии ${latest} или новее.`
      : `Обновите ${tech} до версии вне уязвимого диапазона.`,
  leakName: (email) => `Утёкшие учётные данные: ${email}`,
  leakDescription: (sources, date) =>
    `Адрес встречается в источниках утечек (${sources.length})${date ? `, дата утечки ${date}` : ''}: ${sources.join(', ')}.`,
  leakImpact: 'Злоумышленники пробуют утёкшие пароли на ваших сервисах, чтобы захватить учётные записи.',
  leakResolve: 'Смените пароль везде, где он использовался, и включите двухфакторную аутентификацию.',
  targetType: { domain: 'домен', peer: 'узел', network: 'сеть' },
  scanTypes: { full: 'полное сканирование', custom: 'выборочное сканирование' },
  planName: {
    trial_scan: 'Пробное сканирование',
    try_it: 'Попробуйте!',
    starter: 'Starter',
    business: 'Business',
    enterprise: 'Enterprise',
  },
  scanMessageTitle: 'Примечание',
  scanMessage: {
    canceled_by_user: () => 'Отменено пользователем.',
    worker_lost: () => 'Обработчик этого сканирования перестал отвечать; сканирование будет повторено.',
    scan_failed: (p) =>
      `Сканирование завершилось ошибкой: ${p.reason} Найденное ранее сохранено; запустите сканирование снова, чтобы завершить его.`,
    plan_subdomain_limit: (p) =>
      `Ограничение тарифа: тариф «${p.plan}» охватывает ${p.subdomains} поддоменов за сканирование; просканированы первые ${p.subdomains} найденных, ещё ${p.skipped} — нет (см. пропущенные хосты).`,
    target_disabled: (p) => `Цель ${p.target} отключена.`,
    target_unverified: (p) =>
      `Цель ${p.target} не подтверждена. Опубликуйте проверочную запись и сначала проверьте подтверждение.`,
    ownership_unavailable: (p) => `Сейчас не удалось проверить владение целью ${p.target}: ${p.detail}`,
    ownership_lost: (p) =>
      `Владение целью ${p.target} больше не подтверждается, поэтому она снова не подтверждена и не может сканироваться. ${p.detail} Опубликуйте проверочную запись заново и проверьте подтверждение.`,
  },
  skippedHostsTitle: (n) => `Не просканировано хостов: ${n}`,
  reason: 'Причина',
  skippedReason: {
    host_limit: (p) => `достигнут предел сканирования — ${p.max} узлов`,
    no_open_port: (p) => `нет открытых портов среди ${p.ports} проверенных`,
    plan_subdomain_limit: (p) => `тариф «${p.plan}» охватывает ${p.subdomains} поддоменов за сканирование`,
  },
  findingStatus: { new: 'новая', open: 'открыта', fixed: 'устранена', regressed: 'вернулась' },
  resolved: 'закрыта',
  seconds: (n) => `${n} с`,
  timeZone: 'Часовой пояс',
};

export const REPORT_TEXTS: Record<TLanguage, ReportTexts> = { en, ru };
