import {
  type Catalog,
  type ReadOnlyAdminOptions,
  readOnlyAdminHandlers,
  toTablePath,
} from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import { type TablePath, tablePathToString, validateTablePath } from '@sluice/core/metadata'
import type { Handlers } from '@sluice/core/rpc'
import { alterTable } from '../ddl/alter-table.js'
import type { CoordinatorController } from './coordinator-controller.js'

/** The DDL APIs (Fluss's AdminGateway) this coordinator serves. */
export type DdlApi =
  | 'CREATE_DATABASE'
  | 'DROP_DATABASE'
  | 'CREATE_TABLE'
  | 'DROP_TABLE'
  | 'ALTER_TABLE'
  | 'CREATE_PARTITION'
  | 'DROP_PARTITION'

/** Called after DDL that may change a table's auto-partitioning (CREATE TABLE, ALTER TABLE). */
export interface CoordinatorServiceHooks {
  readonly onTableChanged?: (path: TablePath) => Promise<void>
}

/** Tablet server to coordinator APIs this coordinator serves. */
export type ServerApi = 'CONTROLLED_SHUTDOWN'

/** Runs one DDL operation on the coordinator's serial executor, only while it is active. */
export type DdlRunner = <T>(operation: () => Promise<T>) => Promise<T>

/**
 * The coordinator's RPC handlers: the read-only admin APIs (served by active and standby
 * coordinators alike, straight from the catalog) and the DDL APIs (active coordinator only; a
 * standby answers INVALID_COORDINATOR_EXCEPTION, the code Fluss 0.9.1 has for a coordinator that
 * may not act).
 */
export function coordinatorHandlers(
  catalog: Catalog,
  controller: CoordinatorController,
  ddl: DdlRunner,
  hooks: CoordinatorServiceHooks = {},
  adminOptions: ReadOnlyAdminOptions = {},
): Handlers<DdlApi | ServerApi> & ReturnType<typeof readOnlyAdminHandlers> {
  const { tables, partitions } = controller
  return {
    ...readOnlyAdminHandlers(catalog, adminOptions),
    CONTROLLED_SHUTDOWN: async req => {
      const remaining = await ddl(() => controller.controlledShutdown(req.tabletServerId))
      return {
        remainingLeaderBuckets: remaining.map(b => ({
          tableId: b.ref.tableId,
          partitionId: b.ref.partitionId,
          bucketId: b.ref.bucket,
        })),
      }
    },
    CREATE_DATABASE: req =>
      ddl(async () => {
        await tables.createDatabase(req.databaseName, req.databaseJson, req.ignoreIfExists)
        return {}
      }),
    DROP_DATABASE: req =>
      ddl(async () => {
        await tables.dropDatabase(req.databaseName, req.ignoreIfNotExists, req.cascade)
        return {}
      }),
    CREATE_TABLE: async req => {
      const path = toTablePath(req.tablePath)
      await ddl(() => tables.createTable(path, req.tableJson, req.ignoreIfExists))
      await hooks.onTableChanged?.(path)
      return {}
    },
    DROP_TABLE: req =>
      ddl(async () => {
        await tables.dropTable(toTablePath(req.tablePath), req.ignoreIfNotExists)
        return {}
      }),
    ALTER_TABLE: async req => {
      const path = toTablePath(req.tablePath)
      const altered = await ddl(async () => {
        validateTablePath(path)
        const table = await catalog.getTable(path)
        if (table === undefined) {
          if (req.ignoreIfNotExists) return false
          throw new FlussError('TABLE_NOT_EXIST', `Table '${tablePathToString(path)}' does not exist.`)
        }
        const next = alterTable(
          table,
          req,
          controller.tables.settings.maxBucketNum,
          controller.tables.settings.dataLakeFormat,
        )
        if (next?.kind === 'schema') await tables.storeSchema(table, next.descriptor)
        else if (next?.kind === 'properties') await tables.storeDescriptor(table, next.descriptor)
        return next !== undefined
      })
      if (altered) await hooks.onTableChanged?.(path)
      return {}
    },
    CREATE_PARTITION: req =>
      ddl(async () => {
        // The release names this flag "ignore_if_not_exists"; it means "ignore if it exists".
        await partitions.createPartition(toTablePath(req.tablePath), req.partitionSpec, req.ignoreIfNotExists)
        return {}
      }),
    DROP_PARTITION: req =>
      ddl(async () => {
        await partitions.dropPartition(toTablePath(req.tablePath), req.partitionSpec, req.ignoreIfNotExists)
        return {}
      }),
  }
}
