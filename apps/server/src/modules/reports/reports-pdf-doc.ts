import { SEVERITIES, type TReport, type TReportFinding, type TSeverity } from '@perimeter/contracts';
import type { Content, TDocumentDefinitions } from 'pdfmake/interfaces';
import { SEVERITY_COLORS } from './reports-fns.ts';
import { partialBox, restrictedBox, severityChart, simpleTable } from './reports-pdf-blocks.ts';
import { oobInteractionsBlock } from './reports-pdf-oob.ts';
import { scanNotes } from './reports-pdf-scan-notes.ts';
import { REPORT_TEXTS, type ReportTexts } from './reports-texts.ts';

/** Findings shown with every section; the rest go in a compact table (the CSV/JSON keep everything). */
export const DETAILED_FINDINGS = 200;
/** Findings listed in the compact table after the detailed ones. */
export const COMPACT_FINDINGS = 1500;
/** Rows of the change lists in the PDF. */
const CHANGE_ROWS = 100;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
/** A date as the account reads it: in its time zone, named after the time. */
export const dateTime = (iso: string | null, lang: string, timeZone: string) =>
  iso
    ? `${new Date(iso).toLocaleString(lang === 'ru' ? 'ru-RU' : 'en-GB', { timeZone, timeZoneName: 'short' })}`
    : '—';
const labelOf = (map: Record<string, string>, v: string) => map[v] ?? v;

function labelled(label: string, value: string | null): Content[] {
  if (!value) return [];
  return [
    { text: label, bold: true, fontSize: 9, margin: [0, 4, 0, 1] },
    { text: value, fontSize: 9 },
  ];
}

function findingBlock(f: TReportFinding, t: ReportTexts, restricted: boolean): Content {
  const cls = f.classification
    ? Object.entries(f.classification)
        .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
        .join(' · ')
    : null;
  const repro = f.how_to_reproduce;
  return {
    stack: [
      {
        columns: [
          { text: f.name, bold: true, fontSize: 11, width: '*' },
          {
            text: t.severity[f.severity],
            color: SEVERITY_COLORS[f.severity],
            bold: true,
            fontSize: 10,
            width: 90,
            alignment: 'right',
          },
        ],
      },
      {
        text: `${t.host}: ${f.host} · ${t.status}: ${labelOf(t.findingStatus, f.status)}${f.resolved ? ` (${t.resolved})` : ''}`,
        fontSize: 8,
        color: '#555',
      },
      ...(restricted
        ? [
            {
              text: t.hiddenSection,
              italics: true,
              fontSize: 9,
              color: '#e65100',
              margin: [0, 4, 0, 0],
            } as Content,
          ]
        : []),
      ...labelled(t.description, f.description),
      ...labelled(t.impact, f.impact),
      ...labelled(t.howToResolve, f.how_to_resolve),
      ...(repro
        ? [
            { text: t.howToReproduce, bold: true, fontSize: 9, margin: [0, 4, 0, 1] } as Content,
            {
              table: {
                widths: ['*'],
                body: [
                  [
                    {
                      text: clip(repro.curl, 1200),
                      fontSize: 7.5,
                      fillColor: '#f5f5f5',
                      margin: [4, 3, 4, 3],
                    },
                  ],
                ],
              },
              layout: 'noBorders',
            } as Content,
            ...(repro.response ? labelled(t.evidence, clip(repro.response, 600)) : []),
            ...oobInteractionsBlock(repro, t),
          ]
        : []),
      ...(f.references.length ? labelled(t.references, f.references.slice(0, 8).join('\n')) : []),
      ...labelled(t.classification, cls),
    ],
    margin: [0, 6, 0, 8],
    unbreakable: false,
  };
}

/** A JSON-only document definition: it crosses to the rendering worker thread as is. */
export function reportDocDefinition(report: TReport): TDocumentDefinitions {
  const t = REPORT_TEXTS[report.language];
  const restricted = report.restricted !== null;
  const h1 = (text: string, pageBreak = true): Content => ({
    text,
    fontSize: 16,
    bold: true,
    margin: [0, 0, 0, 8],
    ...(pageBreak ? { pageBreak: 'before' as const } : {}),
  });
  const targets =
    report.scan.targets.map((x) => `${x.target} (${labelOf(t.targetType, x.target_type)})`).join(', ') || '—';
  const tz = report.time_zone;

  const cover: Content[] = [
    { text: t.title, fontSize: 26, bold: true, margin: [0, 160, 0, 16] },
    { text: targets, fontSize: 14, margin: [0, 0, 0, 24] },
    simpleTable(
      ['', ''],
      [
        [t.scanDate, dateTime(report.scan.started_at ?? report.scan.created_at, report.language, tz)],
        [t.duration, report.scan.duration_seconds === null ? '—' : t.seconds(report.scan.duration_seconds)],
        [t.scanType, labelOf(t.scanTypes, report.scan.scan_type)],
        [t.completeness, report.scan.partial ? t.partialShort : t.complete],
        [
          t.templateSets,
          report.scan.template_sets
            .map(
              (x) => `${x.name}${x.version ? ` ${x.version}` : ''} (${x.hash.slice(0, 12)}, ${x.templates})`,
            )
            .join('\n') || '—',
        ],
        [t.plan, labelOf(t.planName, report.plan)],
        [t.generated, dateTime(report.generated_at, report.language, tz)],
        [t.timeZone, tz],
        ['ID', report.scan.id],
      ],
      [140, '*'],
    ),
  ];

  const summary: Content[] = [
    h1(t.summary),
    ...restrictedBox(report, t),
    ...partialBox(report, t),
    { text: t.totalFindings(report.summary.total), fontSize: 12, bold: true },
    { text: t.hosts(report.summary.hosts), fontSize: 10, margin: [0, 2, 0, 0] },
    ...(report.summary.notices ?? []).map(
      (n): Content => ({ text: t.notices[n], fontSize: 10, color: '#e65100', margin: [0, 4, 0, 0] }),
    ),
    ...scanNotes(report, t),
    severityChart(report, t),
  ];

  const changeList = (title: string, list: TReport['changes']['new']): Content[] => [
    { text: `${title}: ${list.length}`, bold: true, fontSize: 11, margin: [0, 8, 0, 2] },
    ...(list.length
      ? [
          simpleTable(
            [t.severityLabel, t.name, t.host],
            list.slice(0, CHANGE_ROWS).map((c) => [t.severity[c.severity], c.name, c.host]),
            [70, '*', 150],
          ),
          ...(list.length > CHANGE_ROWS
            ? [{ text: t.andMore(list.length - CHANGE_ROWS), fontSize: 8 } as Content]
            : []),
        ]
      : []),
  ];
  const changes: Content[] = [
    { text: t.changes, fontSize: 14, bold: true, margin: [0, 12, 0, 4] },
    {
      text: report.changes.previous_scan_id ? t.previous(report.changes.previous_scan_id) : t.noPrevious,
      fontSize: 9,
      color: '#555',
    },
    ...changeList(t.changeNew, report.changes.new),
    ...changeList(t.changeFixed, report.changes.fixed),
    ...changeList(t.changeRegressed, report.changes.regressed),
  ];

  const findings: Content[] = [h1(t.findings)];
  if (report.findings.length === 0) findings.push({ text: t.noFindings, fontSize: 10 });
  let shown = 0;
  let compact = 0;
  for (const sev of SEVERITIES) {
    const group = report.findings.filter((f) => f.severity === sev);
    if (group.length === 0) continue;
    const detailed = group.slice(0, Math.max(0, DETAILED_FINDINGS - shown));
    const rest = group.slice(detailed.length, detailed.length + Math.max(0, COMPACT_FINDINGS - compact));
    const omitted = group.length - detailed.length - rest.length;
    shown += detailed.length;
    compact += rest.length;
    findings.push({
      text: `${t.severity[sev as TSeverity]} (${group.length})`,
      fontSize: 13,
      bold: true,
      color: SEVERITY_COLORS[sev],
      margin: [0, 10, 0, 4],
    });
    for (const f of detailed) findings.push(findingBlock(f, t, restricted));
    if (rest.length) {
      findings.push({ text: t.compactRest(rest.length), fontSize: 8, italics: true, margin: [0, 4, 0, 2] });
      findings.push(
        simpleTable(
          [t.name, t.host, t.status],
          rest.map((f) => [clip(f.name, 120), clip(f.host, 60), labelOf(t.findingStatus, f.status)]),
          ['*', 150, 60],
        ),
      );
    }
    if (omitted > 0)
      findings.push({ text: t.andMore(omitted), fontSize: 8, italics: true, margin: [0, 2, 0, 6] });
  }

  const cveRows = report.cves.map((c) => [
    [
      c.cve,
      c.kev ? t.kev(c.kev_ransomware, c.kev_due_date) : null,
      c.epss_score === null ? null : t.epss(c.epss_score, c.epss_percentile),
    ]
      .filter(Boolean)
      .join('\n'),
    `${t.severity[c.severity]}${c.cvss_score === null ? '' : ` (${c.cvss_score})`}`,
    `${c.tech} ${c.version}`,
    c.port ? `${c.host}:${c.port}` : c.host,
    [c.version_start, c.version_end].filter(Boolean).join(' – ') || '—',
    c.latest_version ?? '—',
    [
      c.homepage,
      c.source_repository,
      c.downloads_per_month === null ? null : `${t.downloadsPerMonth}: ${c.downloads_per_month}`,
      c.match_confidence && c.match_confidence !== 'high' ? t.confidence[c.match_confidence] : null,
      c.backport_note,
    ]
      .filter(Boolean)
      .join('\n') || '—',
  ]);
  const cveSection: Content[] = [
    h1(t.cveTable),
    ...(restricted
      ? [{ text: t.hiddenSection, italics: true, fontSize: 9, color: '#e65100' } as Content]
      : []),
    cveRows.length
      ? simpleTable(
          [
            'CVE',
            t.severityLabel,
            t.techInfo,
            t.host,
            t.versions,
            t.latestVersion,
            `${t.homepage} / ${t.sourceRepository}`,
          ],
          cveRows,
          [62, 52, 70, 70, 60, 45, '*'],
        )
      : { text: t.noFindings, fontSize: 10 },
  ];

  const leakSection: Content[] = [
    h1(t.leakTable),
    ...(restricted
      ? [{ text: t.hiddenSection, italics: true, fontSize: 9, color: '#e65100' } as Content]
      : []),
    report.leaks.length
      ? restricted
        ? simpleTable(
            [t.email, t.leakDate],
            report.leaks.map((l) => [l.email, l.leak_date ?? '—']),
            ['*', 90],
          )
        : simpleTable(
            [t.email, t.password, t.leakDate, t.leakSources],
            report.leaks.map((l) => [l.email, l.password, l.leak_date ?? '—', l.sources.join(', ')]),
            ['*', 90, 60, 130],
          )
      : { text: t.noFindings, fontSize: 10 },
  ];

  const scopeSection: Content[] = [
    h1(t.scopeAppendix),
    report.scope.length
      ? simpleTable(
          [t.name, t.ipAddresses, t.openedPorts, t.technologies],
          report.scope.map((s) => [
            s.name,
            s.ip_addresses.join(', '),
            s.opened_ports.join(', '),
            s.technologies.join(', '),
          ]),
          ['*', 90, 80, 140],
        )
      : { text: t.none, fontSize: 10 },
  ];

  return {
    info: { title: t.title, creator: 'Perimeter', subject: targets },
    pageSize: 'A4',
    pageMargins: [40, 40, 40, 50],
    defaultStyle: { font: 'Roboto', fontSize: 10, lineHeight: 1.15 },
    content: [...cover, ...summary, ...changes, ...findings, ...cveSection, ...leakSection, ...scopeSection],
  };
}

export function footerTemplate(report: TReport): string {
  return REPORT_TEXTS[report.language].footer;
}
