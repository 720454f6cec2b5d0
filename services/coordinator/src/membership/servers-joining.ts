import { FlussError, isFlussError } from '@sluice/core/errors'
import type { TabletServerMembership } from './membership.js'

/**
 * A replication factor above the live tablet servers is permanent only once every registered
 * server is live: while servers are still starting (registered, not yet seen live by the
 * membership poll) or none has started at all, the same request succeeds a moment later, so it is
 * NOT_ENOUGH_REPLICAS_EXCEPTION (retriable; 503 with Retry-After over HTTP) instead of
 * INVALID_REPLICATION_FACTOR. Returns the error to throw for `e`.
 */
export async function retriableWhileServersJoin(
  e: unknown,
  membership: TabletServerMembership,
): Promise<unknown> {
  if (!isFlussError(e, 'INVALID_REPLICATION_FACTOR')) return e
  const live = membership.live().length
  const registered = await membership.registeredCount().catch(() => live)
  if (live > 0 && registered <= live) return e
  const why =
    registered > live
      ? `${registered - live} more tablet server(s) registered and not yet available`
      : 'no tablet server has started yet'
  return new FlussError('NOT_ENOUGH_REPLICAS_EXCEPTION', `${e.message} (${why}; retry shortly)`, { cause: e })
}
