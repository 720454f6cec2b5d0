import {
  type TableInfo,
  type TablePath,
  validateDatabaseName,
  validateTableName,
} from '@sluice/core/metadata'
import type { Clock } from '@sluice/core/util'
import type { BackendContext, GatewayBackend } from '../backend/gateway-backend.js'
import type { IdempotencyStore } from '../http/idempotency-store.js'
import type { RouteRuntime } from '../http/pipeline.js'
import type { GatewayLifecycle } from '../lifecycle.js'
import type { GatewayLimits } from '../limits.js'
import type { ParamSpec } from '../openapi/registry.js'
import type { Logger } from '../types.js'
import type { CachedTableInfo, TableInfoCache } from './table-info-cache.js'

/** What route modules are built from. */
export interface RouteDeps {
  readonly runtime: RouteRuntime
  readonly backend: GatewayBackend
  readonly limits: GatewayLimits
  readonly clock: Clock
  readonly logger: Logger
  readonly lifecycle: GatewayLifecycle
  readonly idempotency: IdempotencyStore
  /** Table infos kept for the write and lookup routes (see TableInfoCache for how stale they may be). */
  readonly tableInfo: TableInfoCache
}

export const NAME_SCHEMA = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9_-]+$',
} as const

export const DATABASE_PARAM: Record<string, ParamSpec> = {
  database: { description: 'Database name.', schema: NAME_SCHEMA },
}

export const TABLE_PARAMS: Record<string, ParamSpec> = {
  ...DATABASE_PARAM,
  table: { description: 'Table name.', schema: NAME_SCHEMA },
}

export const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } } as const

/** The database named in the path, validated like Fluss validates names (400 otherwise). */
export function databaseOf(params: Readonly<Record<string, string>>): string {
  validateDatabaseName(params.database)
  return params.database
}

export function tablePathOf(params: Readonly<Record<string, string>>): TablePath {
  const databaseName = databaseOf(params)
  validateTableName(params.table)
  return { databaseName, tableName: params.table }
}

export function loadTable(
  deps: RouteDeps,
  ctx: BackendContext,
  params: Readonly<Record<string, string>>,
): Promise<TableInfo> {
  return deps.backend.getTableInfo(ctx, tablePathOf(params))
}

/** Like `loadTable`, through the table info cache (write and lookup routes); `fresh` loads it again. */
export function loadCachedTable(
  deps: RouteDeps,
  ctx: BackendContext,
  params: Readonly<Record<string, string>>,
  fresh = false,
): Promise<CachedTableInfo> {
  const path = tablePathOf(params)
  if (fresh) deps.tableInfo.invalidate(path)
  return deps.tableInfo.get(path, () => deps.backend.getTableInfo(ctx, path))
}
