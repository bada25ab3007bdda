import type { TFileReportBody, TLanguage, TReport, TReportOptions } from '@perimeter/contracts';
import { notFound } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { reportToCsv } from './reports-csv.ts';
import { buildReport, reportFilename } from './reports-fns.ts';
import { renderReportPdf } from './reports-pdf.ts';
import * as repo from './reports-repo.ts';

/** The report of one of the user's scans (another user's scan id answers 404). */
export async function dataReport(
  ctx: AppContext,
  userId: string,
  scanId: string,
  options: TReportOptions = {},
): Promise<TReport> {
  const scan = await repo.findUserScan(ctx.db, userId, scanId);
  if (!scan) throw notFound('Scan not found.');
  const user = await repo.reportUser(ctx.db, userId);
  if (!user) throw notFound('Scan not found.');
  const targets = await repo.scanTargetList(ctx.db, scan.id);
  const [previous, seen, fixed, scope] = await Promise.all([
    repo.previousScanId(
      ctx.db,
      scan,
      targets.map((t) => t.id),
    ),
    repo.seenFindings(ctx.db, scan.id),
    repo.fixedByScan(ctx.db, userId, scan.id),
    repo.scopeOf(ctx.db, scan.id),
  ]);
  await yieldToLoop(); // the rows are parsed; let waiting requests run before the model is built
  return buildReport({
    scan,
    targets,
    plan: user.plan,
    language: options.language ?? (user.language === 'ru' ? 'ru' : ('en' as TLanguage)),
    timeZone: user.tz || 'UTC',
    previousScanId: previous,
    seen,
    fixed,
    scope,
    options,
    now: new Date(),
  });
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface ReportFile {
  filename: string;
  contentType: string;
  body: Buffer;
}

export async function fileReport(
  ctx: AppContext,
  userId: string,
  body: TFileReportBody,
): Promise<ReportFile> {
  const report = await dataReport(ctx, userId, body.id, body.options ?? {});
  const filename = reportFilename(report, body.format);
  await yieldToLoop();
  let file: ReportFile;
  if (body.format === 'pdf') {
    file = { filename, contentType: 'application/pdf', body: await renderReportPdf(report) };
  } else if (body.format === 'csv') {
    file = {
      filename,
      contentType: 'text/csv; charset=utf-8',
      body: Buffer.from(reportToCsv(report), 'utf8'),
    };
  } else {
    file = {
      filename,
      contentType: 'application/json; charset=utf-8',
      body: Buffer.from(JSON.stringify(report, null, 2), 'utf8'),
    };
  }
  await repo.recordReportFile(ctx.db, {
    userId,
    scanId: report.scan.id,
    format: body.format,
    options: body.options ?? {},
    filename,
    bytes: file.body.length,
  });
  return file;
}
