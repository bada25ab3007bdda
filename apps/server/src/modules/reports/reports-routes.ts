import { dataEnvelope, ZDataReportQuery, ZFileReportBody, ZReport } from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import * as reports from './reports-service.ts';

const tags = ['reports'];
const security = [{ bearer: [] }];

export async function reportsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/main/get_user_events_file_report', {
    onRequest: [app.requireUser],
    schema: {
      operationId: 'getUserEventsFileReport',
      tags,
      security,
      body: ZFileReportBody,
      description:
        'The report of a scan as a PDF, CSV or JSON file (Content-Disposition carries the filename).',
    },
    handler: async (request, reply) => {
      const file = await reports.fileReport(ctx, currentUser(request).userId, request.body);
      return reply
        .header('content-type', file.contentType)
        .header(
          'content-disposition',
          `attachment; filename="${file.filename}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
        )
        .header('access-control-expose-headers', 'Content-Disposition')
        .header('cache-control', 'no-store')
        .send(file.body);
    },
  });

  r.get('/main/get_user_events_data_report', {
    onRequest: [app.requireUser],
    schema: {
      operationId: 'getUserEventsDataReport',
      tags,
      security,
      querystring: ZDataReportQuery,
      response: { 200: dataEnvelope(ZReport) },
    },
    handler: async (request) => ({
      data: await reports.dataReport(ctx, currentUser(request).userId, request.query.id),
    }),
  });
}
