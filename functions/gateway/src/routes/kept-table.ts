import type { TableInfo } from '@sluice/core/metadata'
import { TableChangedError } from '../backend/gateway-backend.js'
import { GatewayError } from '../errors/gateway-error.js'
import type { RouteInput } from '../http/pipeline.js'
import { loadCachedTable, type RouteDeps } from './route-deps.js'

/** Whether two infos describe the same table with the same schema. */
export function sameTable(a: TableInfo, b: TableInfo): boolean {
  return a.tableId === b.tableId && a.schemaId === b.schemaId
}

/** An error a request gets for not fitting the table (that a newer schema might fit). */
export function isRequestError(e: unknown): boolean {
  return e instanceof GatewayError && (e.code === 'invalid_argument' || e.code === 'failed_precondition')
}

/**
 * Serves a read (lookups) with the table's info, kept from an earlier request when there is one
 * (TableInfoCache), so that a stream of lookups does not load the table each time. A kept info is
 * checked against a fresh load whenever it could be what failed the request, and the read runs
 * once more with the fresh one: when the backend finds that the table it reads is no longer the
 * one the info describes (TableChangedError), and when the request does not fit the kept info
 * but the table has changed since. Any other failure forgets the kept info.
 */
export async function serveRead<T>(
  deps: RouteDeps,
  input: RouteInput,
  read: (table: TableInfo) => Promise<T>,
): Promise<T> {
  const target = await loadCachedTable(deps, input.ctx, input.params)
  try {
    return await read(target.info)
  } catch (e) {
    const changed = e instanceof TableChangedError
    if (!changed && (target.loaded || !isRequestError(e))) {
      deps.tableInfo.invalidate(target.info.tablePath)
      throw e
    }
    const fresh = await loadCachedTable(deps, input.ctx, input.params, true)
    if (!changed && sameTable(fresh.info, target.info)) throw e
    return read(fresh.info)
  }
}
