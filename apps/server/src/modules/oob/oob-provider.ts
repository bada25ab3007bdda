import type { OobInteraction, OobProtocol, OobProvider } from '@perimeter/engine';
import type { Db } from '../../db/client.ts';
import { CORRELATION_LENGTH, ID_LENGTH, NONCE_LENGTH, newCorrelationId, randomToken } from './oob-fns.ts';
import { type InteractionRow, interactionsOf, registerCorrelation } from './oob-repo.ts';

export const toInteraction = (r: InteractionRow): OobInteraction => ({
  id: r.fullId,
  protocol: r.protocol as OobProtocol,
  remoteAddress: r.remoteAddress,
  at: r.at.toISOString(),
  rawRequest: r.rawRequest,
  rawResponse: r.rawResponse,
  ...(r.qType ? { qType: r.qType } : {}),
});

/**
 * The engine's view of the interaction server for one scan run: ids under the run's correlation,
 * polled from PostgreSQL (the listeners may run in another process). `poll` reads only this
 * correlation's rows, so one scan never sees another's interactions.
 */
export class PgOobProvider implements OobProvider {
  private constructor(
    private readonly db: Db,
    readonly domain: string,
    readonly correlationId: string,
  ) {}

  /** Registers a fresh correlation for the scan run. */
  static async register(
    db: Db,
    o: { domain: string; scanId: string; userId: string; retentionHours: number },
  ): Promise<PgOobProvider> {
    const id = newCorrelationId();
    await registerCorrelation(db, {
      id,
      scanId: o.scanId,
      userId: o.userId,
      retentionHours: o.retentionHours,
    });
    return new PgOobProvider(db, o.domain, id);
  }

  newId(): string {
    return this.correlationId + randomToken(NONCE_LENGTH);
  }

  async poll(ids: readonly string[]): Promise<OobInteraction[]> {
    const mine = [
      ...new Set(
        ids
          .map((id) => id.toLowerCase())
          .filter((id) => id.length === ID_LENGTH && id.slice(0, CORRELATION_LENGTH) === this.correlationId),
      ),
    ];
    return (await interactionsOf(this.db, this.correlationId, mine)).map(toInteraction);
  }
}
