import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../lib/errors.ts';
import type { MaintenanceState } from '../../modules/system/system-service.ts';

const OPEN_DURING_MAINTENANCE = new Set([
  '/api/main/ping',
  '/api/main/message/maintenance_mode/',
  '/api/main/health/live',
  '/api/main/health/ready',
]);

/** While the operator has maintenance mode on, every API route but ping, health and the message itself answers 503. */
export const maintenancePlugin = fp(
  async (app: FastifyInstance, { maintenance }: { maintenance: MaintenanceState }) => {
    app.addHook('onRequest', async (request) => {
      const path = request.url.split('?')[0]!;
      if (!path.startsWith('/api/') || OPEN_DURING_MAINTENANCE.has(path)) return;
      const state = await maintenance.get();
      if (state.enabled) {
        throw new AppError(
          503,
          'maintenance',
          state.message ?? 'Server is under maintenance. Please try again later.',
        );
      }
    });
  },
);
