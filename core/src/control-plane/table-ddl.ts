import { FlussError } from '../errors/index.js'
import type { DatabaseDescriptor, TableDescriptor, TablePath } from '../metadata/index.js'
import {
  type AllocateIdOptions,
  allocateId,
  bucketKey,
  COUNTERS,
  databaseKey,
  isMetaStoreConflict,
  schemaKey,
  tableIdKey,
  tablePathKey,
} from '../metastore/index.js'
import { type BucketRecord, bucketItemValue, initialLeaderAndIsr } from './bucket-item.js'
import type { Catalog } from './catalog.js'
import { CLEANUP_CONCURRENCY, deleteItem, deleteTableItems } from './item-cleanup.js'
import { mapBounded } from './query-all.js'
import {
  databaseItemValue,
  schemaItemValue,
  type TableRecord,
  type TableRecordFields,
  type TableState,
  tableItemValue,
  tablePointerValue,
} from './table-items.js'

/**
 * Database and table DDL as sequences of single-item conditional writes (no transactions: the
 * DynamoDB emulators have none). Each sequence has one commit point; a crash before it leaves
 * invisible items that the coordinator's repair removes, a crash after it leaves a visible result
 * that the repair completes.
 *
 * Create table:
 *   1. allocate the table id (counter item)
 *   2. table item, state CREATING                      (version absent)
 *   3. schema item SCHEMA#1, bucket items (LeaderAndIsr) (version absent)
 *   4. path pointer DB#<db>/TABLE#<name> -> table id    (version absent)  <- COMMIT POINT
 *      a concurrent create of the same path loses here with TABLE_ALREADY_EXIST and deletes its
 *      own items again
 *   5. table item -> READY                              (version of step 2)
 *   Repair: CREATING without a pointer to it and older than a grace period -> delete its items;
 *   CREATING with its pointer -> mark READY. Readers treat a pointer as the table's existence.
 *
 * Drop table:
 *   1. delete the path pointer                          (version read)     <- COMMIT POINT
 *   2. table item -> DROPPED                            (version read)
 *   3. (coordinator) StopReplica(delete) to the replicas, then delete every item of the table id,
 *      the table item last.
 *   Repair: READY without a pointer to it, or DROPPED -> step 2/3 again.
 *
 * Drop database (cascade): drop each table as above, then delete the database item.
 */

export interface CreateTableRequest {
  readonly tablePath: TablePath
  /** The descriptor to store: defaults applied, validated, bucket count set. */
  readonly descriptor: TableDescriptor
  /** Replicas per bucket (first = preferred leader); omitted for partitioned tables. */
  readonly assignment?: readonly (readonly number[])[]
  readonly coordinatorEpoch: number
  readonly ignoreIfExists: boolean
  readonly idAllocation?: AllocateIdOptions
}

export interface CreatedTable {
  readonly table: TableRecord
  readonly buckets: readonly BucketRecord[]
}

const FIRST_SCHEMA_ID = 1
/** Re-reads of a path pointer that changed under a drop before giving up. */
const DROP_ATTEMPTS_MAX = 8

export async function createDatabase(
  catalog: Catalog,
  databaseName: string,
  descriptor: DatabaseDescriptor,
  ignoreIfExists: boolean,
): Promise<boolean> {
  const { pk, sk } = databaseKey(databaseName)
  const now = catalog.nowMs()
  try {
    await catalog.store.put(pk, sk, databaseItemValue(descriptor, now, now), { version: 'absent' })
    return true
  } catch (e) {
    if (!isMetaStoreConflict(e)) throw e
    if (ignoreIfExists) return false
    throw new FlussError('DATABASE_ALREADY_EXIST', `Database ${databaseName} already exists.`)
  }
}

/** Drops a database; returns the tables dropped with it (their cleanup is the caller's). */
export async function dropDatabase(
  catalog: Catalog,
  databaseName: string,
  options: { ignoreIfNotExists: boolean; cascade: boolean },
): Promise<{ dropped: boolean; tables: TableRecord[] }> {
  const db = await catalog.getDatabase(databaseName)
  if (db === undefined) {
    if (options.ignoreIfNotExists) return { dropped: false, tables: [] }
    throw new FlussError('DATABASE_NOT_EXIST', `Database ${databaseName} does not exist.`)
  }
  const names = await catalog.listTables(databaseName)
  if (!options.cascade && names.length > 0) {
    throw new FlussError('DATABASE_NOT_EMPTY', `Database ${databaseName} is not empty.`)
  }
  const tables: TableRecord[] = []
  for (const tableName of names) {
    const dropped = await dropTable(catalog, { databaseName, tableName }, true)
    if (dropped !== undefined) tables.push(dropped)
  }
  await deleteItem(catalog.store, databaseKey(databaseName))
  return { dropped: true, tables }
}

/** Creates a table (see the protocol above); undefined when it exists and `ignoreIfExists`. */
export async function createTable(
  catalog: Catalog,
  req: CreateTableRequest,
): Promise<CreatedTable | undefined> {
  const { databaseName, tableName } = req.tablePath
  if (!(await catalog.databaseExists(databaseName))) {
    throw new FlussError('DATABASE_NOT_EXIST', `Database ${databaseName} does not exist.`)
  }
  if ((await catalog.getTablePointer(req.tablePath)) !== undefined) return alreadyExists(req)
  const tableId = await allocateId(catalog.store, COUNTERS.tableId, req.idAllocation)
  const now = catalog.nowMs()
  const fields: TableRecordFields = {
    tablePath: req.tablePath,
    descriptor: req.descriptor,
    schemaId: FIRST_SCHEMA_ID,
    state: 'CREATING',
    createdTimeMs: now,
    modifiedTimeMs: now,
    stateChangedTimeMs: now,
  }
  const table = tableIdKey(tableId)
  const creatingVersion = await catalog.store.put(table.pk, table.sk, tableItemValue(fields), {
    version: 'absent',
  })
  const schema = schemaKey(tableId, FIRST_SCHEMA_ID)
  await catalog.store.put(schema.pk, schema.sk, schemaItemValue(req.descriptor.schema), { version: 'absent' })
  const buckets = await writeNewBuckets(catalog, tableId, null, req.assignment ?? [], req.coordinatorEpoch)
  const pointer = tablePathKey(databaseName, tableName)
  try {
    await catalog.store.put(pointer.pk, pointer.sk, tablePointerValue(tableId), { version: 'absent' })
  } catch (e) {
    if (!isMetaStoreConflict(e)) throw e
    await deleteTableItems(catalog.store, tableId)
    return alreadyExists(req)
  }
  const ready = await setTableState(catalog, { ...fields, tableId, version: creatingVersion }, 'READY')
  return { table: ready, buckets }
}

function alreadyExists(req: CreateTableRequest): undefined {
  if (req.ignoreIfExists) return undefined
  const { databaseName, tableName } = req.tablePath
  throw new FlussError('TABLE_ALREADY_EXIST', `Table ${databaseName}.${tableName} already exists.`)
}

/** Writes the LeaderAndIsr items of new buckets (a table's or one partition's). */
export async function writeNewBuckets(
  catalog: Catalog,
  tableId: number,
  partitionId: number | null,
  assignment: readonly (readonly number[])[],
  coordinatorEpoch: number,
): Promise<BucketRecord[]> {
  return mapBounded(
    assignment.map((replicas, bucket) => ({ replicas, bucket })),
    CLEANUP_CONCURRENCY,
    async ({ replicas, bucket }) => {
      const ref = { tableId, partitionId, bucket }
      const leaderAndIsr = initialLeaderAndIsr(replicas, coordinatorEpoch)
      const { pk, sk } = bucketKey(ref)
      const version = await catalog.store.put(pk, sk, bucketItemValue(leaderAndIsr), { version: 'absent' })
      return { ref, leaderAndIsr, version }
    },
  )
}

/** Drops a table (see the protocol above); returns its DROPPED item, or undefined when ignored. */
export async function dropTable(
  catalog: Catalog,
  path: TablePath,
  ignoreIfNotExists: boolean,
  attempt = 1,
): Promise<TableRecord | undefined> {
  const pointer = await catalog.getTablePointer(path)
  if (pointer === undefined) {
    if (ignoreIfNotExists) return undefined
    throw new FlussError('TABLE_NOT_EXIST', `Table ${path.databaseName}.${path.tableName} does not exist.`)
  }
  const table = await catalog.getTableById(pointer.tableId)
  const key = tablePathKey(path.databaseName, path.tableName)
  try {
    await catalog.store.delete(key.pk, key.sk, { version: pointer.version })
  } catch (e) {
    if (!isMetaStoreConflict(e) || attempt >= DROP_ATTEMPTS_MAX) throw e
    return dropTable(catalog, path, ignoreIfNotExists, attempt + 1)
  }
  if (table === undefined || table.state === 'DROPPED') return table
  return setTableState(catalog, table, 'DROPPED')
}

/** Moves a table item to another state, conditioned on the version it was read at. */
export async function setTableState(
  catalog: Catalog,
  table: TableRecord,
  state: TableState,
): Promise<TableRecord> {
  const now = catalog.nowMs()
  const next: TableRecord = { ...table, state, stateChangedTimeMs: now }
  const { pk, sk } = tableIdKey(table.tableId)
  const version = await catalog.store.put(pk, sk, tableItemValue(next), { version: table.version })
  return { ...next, version }
}

/** Stores a changed descriptor (ALTER TABLE), conditioned on the version the table was read at. */
export async function updateTableDescriptor(
  catalog: Catalog,
  table: TableRecord,
  descriptor: TableDescriptor,
): Promise<TableRecord> {
  const next: TableRecord = { ...table, descriptor, state: 'READY', modifiedTimeMs: catalog.nowMs() }
  const { pk, sk } = tableIdKey(table.tableId)
  const version = await catalog.store.put(pk, sk, tableItemValue(next), { version: table.version })
  return { ...next, version }
}
