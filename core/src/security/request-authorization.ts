import { FlussError } from '../errors/index.js'
import type { TablePath } from '../metadata/index.js'
import type { ApiName, ApiRequest, RequestContext, RequestGuard } from '../rpc/index.js'
import { clusterResource, databaseResource, type OperationType, type Resource, tableResource } from './acl.js'
import type { Authorizer, SessionLike } from './authorizer.js'

/** The path of a table id; rejects (TABLE_NOT_EXIST, ...) for unknown ids. Cached by the guard. */
export type TablePathResolver = (tableId: number) => Promise<TablePath>

type Check = { readonly operation: OperationType; readonly resource: Resource }
type Resolve = (id: number) => Promise<Resource>
type Checks = (
  request: never,
  resolve: Resolve,
) => Check | readonly Check[] | Promise<Check | readonly Check[]>

/**
 * What every API needs. `checks` run before the handler (all must pass); `filter` APIs answer
 * only with what the principal may DESCRIBE; `internal` APIs are for servers (internal listener)
 * and super users; `anyAuthenticated` APIs need only a completed authentication; `self` APIs
 * authorize inside their handler (ACL administration).
 */
type Rule =
  | { readonly kind: 'checks'; readonly checks: Checks }
  | { readonly kind: 'filter' | 'internal' | 'anyAuthenticated' | 'self' }

/** APIs with an authorization rule: every served API but the handshake ones. */
export type AuthorizedApi = Exclude<ApiName, 'API_VERSIONS' | 'AUTHENTICATE'>
type Served = AuthorizedApi

const path = (p: { databaseName: string; tableName: string }): TablePath => ({
  databaseName: p.databaseName,
  tableName: p.tableName,
})
const checks = <K extends Served>(fn: (r: ApiRequest<K>, resolve: Resolve) => ReturnType<Checks>): Rule => ({
  kind: 'checks',
  checks: fn as Checks,
})
const tableById = (operation: OperationType) =>
  checks<'PRODUCE_LOG'>((r, resolve) => resolve(r.tableId).then(resource => ({ operation, resource })))
const tableByPath = (operation: OperationType) =>
  checks<'GET_TABLE_INFO'>(r => ({ operation, resource: tableResource(path(r.tablePath)) }))
const FILTER: Rule = { kind: 'filter' }
const INTERNAL: Rule = { kind: 'internal' }

/**
 * Fluss 0.9.1's operation per API (RpcServiceBase, CoordinatorService, TabletService), one entry
 * per served API so that a new API cannot go unchecked.
 */
export const API_AUTHORIZATION: { readonly [K in Served]: Rule } = {
  CREATE_DATABASE: checks(() => ({ operation: 'CREATE', resource: clusterResource() })),
  DROP_DATABASE: checks<'DROP_DATABASE'>(r => ({
    operation: 'DROP',
    resource: databaseResource(r.databaseName),
  })),
  LIST_DATABASES: FILTER,
  DATABASE_EXISTS: FILTER,
  GET_DATABASE_INFO: checks<'GET_DATABASE_INFO'>(r => ({
    operation: 'DESCRIBE',
    resource: databaseResource(r.databaseName),
  })),
  CREATE_TABLE: checks<'CREATE_TABLE'>(r => ({
    operation: 'CREATE',
    resource: databaseResource(r.tablePath.databaseName),
  })),
  DROP_TABLE: tableByPath('DROP'),
  ALTER_TABLE: tableByPath('ALTER'),
  GET_TABLE_INFO: tableByPath('DESCRIBE'),
  GET_TABLE_SCHEMA: tableByPath('DESCRIBE'),
  LIST_PARTITION_INFOS: tableByPath('DESCRIBE'),
  GET_LATEST_KV_SNAPSHOTS: tableByPath('DESCRIBE'),
  GET_LAKE_SNAPSHOT: tableByPath('DESCRIBE'),
  GET_KV_SNAPSHOT_METADATA: tableById('DESCRIBE'),
  LIST_OFFSETS: tableById('DESCRIBE'),
  LIST_TABLES: FILTER,
  TABLE_EXISTS: FILTER,
  GET_METADATA: FILTER,
  CREATE_PARTITION: tableByPath('WRITE'),
  DROP_PARTITION: tableByPath('WRITE'),
  PRODUCE_LOG: tableById('WRITE'),
  PUT_KV: tableById('WRITE'),
  // insertIfNotExists writes missing keys: WRITE instead of READ.
  LOOKUP: checks<'LOOKUP'>((r, resolve) =>
    resolve(r.tableId).then(resource => ({
      operation: r.insertIfNotExists === true ? 'WRITE' : 'READ',
      resource,
    })),
  ),
  PREFIX_LOOKUP: tableById('READ'),
  LIMIT_SCAN: tableById('READ'),
  GET_TABLE_STATS: tableById('READ'),
  FETCH_LOG: checks<'FETCH_LOG'>((r, resolve) =>
    Promise.all(
      r.tablesReq.map(t => resolve(t.tableId).then(resource => ({ operation: 'READ' as const, resource }))),
    ),
  ),
  INIT_WRITER: checks<'INIT_WRITER'>(r =>
    r.tablePath.map(p => ({ operation: 'WRITE', resource: tableResource(path(p)) })),
  ),
  DESCRIBE_CLUSTER_CONFIGS: checks(() => ({ operation: 'DESCRIBE', resource: clusterResource() })),
  GET_FILESYSTEM_SECURITY_TOKEN: { kind: 'anyAuthenticated' },
  CREATE_ACLS: { kind: 'self' },
  LIST_ACLS: { kind: 'self' },
  DROP_ACLS: { kind: 'self' },
  UPDATE_METADATA: INTERNAL,
  NOTIFY_LEADER_AND_ISR: INTERNAL,
  STOP_REPLICA: INTERNAL,
  ADJUST_ISR: INTERNAL,
  COMMIT_KV_SNAPSHOT: INTERNAL,
  COMMIT_REMOTE_LOG_MANIFEST: INTERNAL,
  NOTIFY_REMOTE_LOG_OFFSETS: INTERNAL,
  NOTIFY_KV_SNAPSHOT_OFFSET: INTERNAL,
  COMMIT_LAKE_TABLE_SNAPSHOT: INTERNAL,
  NOTIFY_LAKE_TABLE_OFFSET: INTERNAL,
  LAKE_TIERING_HEARTBEAT: INTERNAL,
  CONTROLLED_SHUTDOWN: INTERNAL,
}

/** Resources of table ids, for `authorizeRequest`. */
export type ResourceResolver = (tableId: number) => Promise<Resource>

/**
 * Checks one request of API `api` for `session` by the API's rule (the same table for the RPC
 * listeners and the HTTP gateway); throws AUTHORIZATION_EXCEPTION. Filter and self-authorizing
 * APIs pass here: their answers are narrowed by the caller.
 */
export async function authorizeRequest(
  authorizer: Authorizer,
  session: SessionLike,
  api: Served,
  request: unknown,
  resolve: ResourceResolver,
): Promise<void> {
  const rule = API_AUTHORIZATION[api]
  if (rule === undefined) throw new FlussError('AUTHORIZATION_EXCEPTION', `${api} is not authorized`)
  if (rule.kind === 'internal') {
    if (session.internal || authorizer.isSuperUser(session.principal)) return
    throw new FlussError(
      'AUTHORIZATION_EXCEPTION',
      `${api} is a server-to-server API: it is served to the internal listener and super users only`,
    )
  }
  if (rule.kind !== 'checks') return
  if (api === 'FETCH_LOG' && (request as ApiRequest<'FETCH_LOG'>).followerServerId >= 0) {
    if (session.internal || authorizer.isSuperUser(session.principal)) return
    throw new FlussError(
      'AUTHORIZATION_EXCEPTION',
      'Follower fetches (follower_server_id >= 0) are served to the internal listener and super users only',
    )
  }
  const wanted = await rule.checks(request as never, resolve)
  for (const c of Array.isArray(wanted) ? wanted : [wanted as Check]) {
    authorizer.authorize(session, c.operation, c.resource)
  }
}

/** Most table ids whose paths the guard remembers. */
const TABLE_PATH_CACHE_MAX = 10_000

/**
 * The authorization layer of a server's listeners: one check per request before its handler,
 * using the API's rule above, and the filtering of list answers. Table ids are resolved to paths
 * once and remembered (ids are never reused), so the produce, fetch and lookup paths make no
 * metadata-store call; the ACL check itself is in memory.
 */
export class AuthorizationGuard implements RequestGuard {
  readonly #paths = new Map<number, Promise<TablePath>>()

  constructor(
    readonly authorizer: Authorizer,
    private readonly tablePathOf: TablePathResolver,
  ) {}

  check(request: unknown, ctx: RequestContext): Promise<void> {
    return authorizeRequest(this.authorizer, ctx.connection.session, ctx.api.name as Served, request, id =>
      this.#resolve(id),
    )
  }

  filter(response: unknown, request: unknown, ctx: RequestContext): unknown {
    if (API_AUTHORIZATION[ctx.api.name as Served]?.kind !== 'filter') return response
    const session = ctx.connection.session
    const may = (r: Resource) => this.authorizer.isAuthorized(session, 'DESCRIBE', r)
    switch (ctx.api.name) {
      case 'LIST_DATABASES': {
        const res = response as { databaseName?: string[]; databaseSummary?: { databaseName: string }[] }
        return {
          ...res,
          databaseName: (res.databaseName ?? []).filter(d => may(databaseResource(d))),
          databaseSummary: (res.databaseSummary ?? []).filter(d => may(databaseResource(d.databaseName))),
        }
      }
      case 'DATABASE_EXISTS': {
        const db = (request as ApiRequest<'DATABASE_EXISTS'>).databaseName
        return may(databaseResource(db)) ? response : { exists: false }
      }
      case 'LIST_TABLES': {
        const db = (request as ApiRequest<'LIST_TABLES'>).databaseName
        const res = response as { tableName?: string[] }
        return {
          ...res,
          tableName: (res.tableName ?? []).filter(t =>
            may(tableResource({ databaseName: db, tableName: t })),
          ),
        }
      }
      case 'TABLE_EXISTS': {
        const p = (request as ApiRequest<'TABLE_EXISTS'>).tablePath
        return may(tableResource(path(p))) ? response : { exists: false }
      }
      case 'GET_METADATA': {
        const res = response as {
          tableMetadata?: { tablePath: { databaseName: string; tableName: string }; tableId: number }[]
          partitionMetadata?: { tableId: number }[]
        }
        const tables = (res.tableMetadata ?? []).filter(t => may(tableResource(path(t.tablePath))))
        const ids = new Set(tables.map(t => t.tableId))
        for (const t of tables) this.#remember(t.tableId, path(t.tablePath))
        return {
          ...res,
          tableMetadata: tables,
          partitionMetadata: (res.partitionMetadata ?? []).filter(
            p => ids.has(p.tableId) || this.#describable(p.tableId, may),
          ),
        }
      }
      default:
        return response
    }
  }

  #describable(tableId: number, may: (r: Resource) => boolean): boolean {
    const known = this.#known.get(tableId)
    return known !== undefined && may(tableResource(known))
  }

  readonly #known = new Map<number, TablePath>()

  #remember(tableId: number, p: TablePath): void {
    if (this.#known.size >= TABLE_PATH_CACHE_MAX)
      this.#known.delete(this.#known.keys().next().value as number)
    this.#known.set(tableId, p)
  }

  async #resolve(tableId: number): Promise<Resource> {
    const known = this.#known.get(tableId)
    if (known !== undefined) return tableResource(known)
    let pending = this.#paths.get(tableId)
    if (pending === undefined) {
      pending = this.tablePathOf(tableId)
      this.#paths.set(tableId, pending)
      pending.then(
        p => {
          this.#paths.delete(tableId)
          this.#remember(tableId, p)
        },
        () => this.#paths.delete(tableId),
      )
    }
    return tableResource(await pending)
  }
}
