import { dataEnvelope, ZLateInteractions, ZScanProgressQuery } from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { notFound } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import { lateInteractions } from './oob-repo.ts';

const LATE_LISTED = 50;

export async function oobRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/main/get_abstract_scan_late_interactions', {
    onRequest: [app.requireUser],
    schema: {
      operationId: 'getAbstractScanLateInteractions',
      description:
        'Out-of-band call-backs that reached the interaction server after the scan ended (docs/oob.md), newest first.',
      tags: ['scans'],
      querystring: ZScanProgressQuery,
      response: { 200: dataEnvelope(ZLateInteractions) },
    },
    handler: async (request) => {
      const late = await lateInteractions(ctx.db, currentUser(request).userId, request.query.id, LATE_LISTED);
      if (!late) throw notFound('Scan not found.');
      return {
        data: {
          count: late.count,
          items: late.items.map((i) => ({
            id: i.fullId,
            protocol: i.protocol as 'dns' | 'http' | 'smtp' | 'ldap',
            remote_address: i.remoteAddress,
            at: i.at.toISOString(),
            raw_request: i.rawRequest,
            raw_response: i.rawResponse,
            q_type: i.qType,
          })),
        },
      };
    },
  });
}
