import { dataEnvelope, ZIntelDatabase } from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../server/context.ts';
import { isSyncScheduled } from './intel-fns.ts';
import { databaseInfo } from './intel-service.ts';

/** The state of the shared CVE database (no per-user data): the UI warns when it is empty or stale. */
export async function intelRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get('/intel/database', {
    onRequest: [app.requireUser],
    schema: {
      operationId: 'getIntelDatabase',
      tags: ['intel'],
      security: [{ bearer: [] }],
      response: { 200: dataEnvelope(ZIntelDatabase) },
    },
    handler: async () => {
      const info = await databaseInfo(ctx);
      return {
        data: {
          state: info.state,
          cve_records: info.cveRecords,
          kev_records: info.kevRecords,
          epss_records: info.epssRecords,
          last_success_at: info.lastSuccessAt?.toISOString() ?? null,
          stale_after_days: info.staleAfterDays,
          sync_scheduled: isSyncScheduled(ctx.config.env),
        },
      };
    },
  });
}
