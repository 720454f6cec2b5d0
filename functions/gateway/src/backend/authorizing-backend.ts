import type { TableInfo, TablePath } from '@sluice/core/metadata'
import {
  type AuthorizedApi,
  type Authorizer,
  authorizeRequest,
  databaseResource,
  type SessionLike,
  tableResource,
  userPrincipal,
} from '@sluice/core/security'
import type { Principal } from '../types.js'
import type { BackendContext, GatewayBackend } from './gateway-backend.js'

/** The ACL session of a gateway caller: `User:<name>` of the principal the gateway authenticated. */
export function gatewaySession(principal: Principal): SessionLike {
  // Callers' addresses are not known here: only ACL entries for any host ('*') apply to gateway callers.
  return { principal: userPrincipal(principal.name), internal: false, clientAddress: '*' }
}

const pbPath = (p: TablePath) => ({ databaseName: p.databaseName, tableName: p.tableName })

/**
 * The gateway's backend behind the cluster's ACLs: every call is checked, for the caller's
 * principal, by the Fluss API it amounts to (the rule table the RPC listeners use, through the same
 * Authorizer class and the ACLs in the metadata store), before it reaches the cluster; listings
 * are narrowed to what the caller may describe. The wrapped backend connects as the gateway's own
 * service principal.
 */
export function authorizingBackend(inner: GatewayBackend, authorizer: Authorizer): GatewayBackend {
  const check = async (ctx: BackendContext, api: AuthorizedApi, request: unknown, table?: TableInfo) => {
    await authorizer.ensureFresh()
    await authorizeRequest(authorizer, gatewaySession(ctx.principal), api, request, async () =>
      tableResource((table as TableInfo).tablePath),
    )
  }
  const byId = (t: TableInfo) => ({ tableId: t.tableId })
  const may = (ctx: BackendContext, resource: Parameters<Authorizer['isAuthorized']>[2]) =>
    authorizer.isAuthorized(gatewaySession(ctx.principal), 'DESCRIBE', resource)
  const backend: GatewayBackend = {
    async listDatabases(ctx) {
      await authorizer.ensureFresh()
      return (await inner.listDatabases(ctx)).filter(db => may(ctx, databaseResource(db)))
    },
    async getDatabase(ctx, name) {
      await check(ctx, 'GET_DATABASE_INFO', { databaseName: name })
      return inner.getDatabase(ctx, name)
    },
    async createDatabase(ctx, name, descriptor, ignoreIfExists) {
      await check(ctx, 'CREATE_DATABASE', { databaseName: name })
      return inner.createDatabase(ctx, name, descriptor, ignoreIfExists)
    },
    async dropDatabase(ctx, name, ignoreIfNotExists, cascade) {
      await check(ctx, 'DROP_DATABASE', { databaseName: name })
      return inner.dropDatabase(ctx, name, ignoreIfNotExists, cascade)
    },
    async listTables(ctx, database) {
      await authorizer.ensureFresh()
      const tables = await inner.listTables(ctx, database)
      return tables.filter(t => may(ctx, tableResource({ databaseName: database, tableName: t })))
    },
    async getTableInfo(ctx, path) {
      await check(ctx, 'GET_TABLE_INFO', { tablePath: pbPath(path) })
      return inner.getTableInfo(ctx, path)
    },
    async createTable(ctx, path, descriptor, ignoreIfExists) {
      await check(ctx, 'CREATE_TABLE', { tablePath: pbPath(path) })
      return inner.createTable(ctx, path, descriptor, ignoreIfExists)
    },
    async dropTable(ctx, path, ignoreIfNotExists) {
      await check(ctx, 'DROP_TABLE', { tablePath: pbPath(path) })
      return inner.dropTable(ctx, path, ignoreIfNotExists)
    },
    async alterTable(ctx, path, changes, ignoreIfNotExists) {
      await check(ctx, 'ALTER_TABLE', { tablePath: pbPath(path) })
      return inner.alterTable(ctx, path, changes, ignoreIfNotExists)
    },
    async getTableSchemas(ctx, path) {
      await check(ctx, 'GET_TABLE_SCHEMA', { tablePath: pbPath(path) })
      return inner.getTableSchemas(ctx, path)
    },
    async listPartitions(ctx, path) {
      await check(ctx, 'LIST_PARTITION_INFOS', { tablePath: pbPath(path) })
      return inner.listPartitions(ctx, path)
    },
    async createPartition(ctx, path, spec, ignoreIfExists) {
      await check(ctx, 'CREATE_PARTITION', { tablePath: pbPath(path) })
      return inner.createPartition(ctx, path, spec, ignoreIfExists)
    },
    async dropPartition(ctx, path, spec, ignoreIfNotExists) {
      await check(ctx, 'DROP_PARTITION', { tablePath: pbPath(path) })
      return inner.dropPartition(ctx, path, spec, ignoreIfNotExists)
    },
    async append(ctx, table, rows) {
      await check(ctx, 'PRODUCE_LOG', byId(table), table)
      return inner.append(ctx, table, rows)
    },
    async upsert(ctx, table, rows, targetColumns) {
      await check(ctx, 'PUT_KV', byId(table), table)
      return inner.upsert(ctx, table, rows, targetColumns)
    },
    async delete(ctx, table, rows) {
      await check(ctx, 'PUT_KV', byId(table), table)
      return inner.delete(ctx, table, rows)
    },
    async lookup(ctx, table, keys) {
      await check(ctx, 'LOOKUP', byId(table), table)
      return inner.lookup(ctx, table, keys)
    },
    async prefixLookup(ctx, table, columns, prefixes, maxRows) {
      await check(ctx, 'PREFIX_LOOKUP', byId(table), table)
      return inner.prefixLookup(ctx, table, columns, prefixes, maxRows)
    },
    async scan(ctx, table, request) {
      await check(ctx, 'FETCH_LOG', { followerServerId: -1, tablesReq: [byId(table)] }, table)
      return inner.scan(ctx, table, request)
    },
    async snapshot(ctx, table, request) {
      await check(ctx, 'LIMIT_SCAN', byId(table), table)
      return inner.snapshot(ctx, table, request)
    },
    async unionRead(ctx, table, request) {
      await check(ctx, 'FETCH_LOG', { followerServerId: -1, tablesReq: [byId(table)] }, table)
      return inner.unionRead(ctx, table, request)
    },
    async tieringStatus(ctx, table) {
      await check(ctx, 'GET_LAKE_SNAPSHOT', { tablePath: pbPath(table.tablePath) }, table)
      return inner.tieringStatus(ctx, table)
    },
  }
  const prepare = inner.prepareBodyAppend?.bind(inner)
  if (prepare !== undefined) {
    backend.prepareBodyAppend = async (ctx, table, body, limits) => {
      await check(ctx, 'PRODUCE_LOG', byId(table), table)
      return prepare(ctx, table, body, limits)
    }
  }
  return backend
}
