import { FlussError } from '../errors/index.js'
import type { TableDescriptor } from '../metadata/index.js'
import { isMetaStoreConflict, schemaKey, tableIdKey } from '../metastore/index.js'
import type { Catalog } from './catalog.js'
import { decodeSchema, schemaItemValue, type TableRecord, tableItemValue } from './table-items.js'

/**
 * Stores a table's next schema version (ALTER TABLE column changes) as two single-item conditional
 * writes, the second one the commit point:
 *
 *   1. TABLE#<id> / SCHEMA#<n+1>: the new schema                 (version absent)
 *   2. TABLE#<id> / TABLE: the descriptor with the new schema,
 *      schemaId n+1                                               (version read)   <- COMMIT POINT
 *
 * Readers learn schema ids only from the table item (clients from metadata, servers from table
 * info, batches name ids their writers read there), so a schema item above the table's schema id
 * is never read: one left by an attempt that lost step 2 (or crashed before it) is overwritten by
 * the next attempt, conditioned on the version it has. A lost step 2 is METASTORE_CONFLICT (the
 * table changed meanwhile; retriable) and leaves the table as it was.
 */
export async function storeNextSchema(
  catalog: Catalog,
  table: TableRecord,
  descriptor: TableDescriptor,
): Promise<TableRecord> {
  const schemaId = table.schemaId + 1
  const key = schemaKey(table.tableId, schemaId)
  const value = schemaItemValue(descriptor.schema)
  try {
    await catalog.store.put(key.pk, key.sk, value, { version: 'absent' })
  } catch (e) {
    if (!isMetaStoreConflict(e)) throw e
    const orphan = await catalog.store.get(key.pk, key.sk, { consistent: true })
    if (orphan === undefined) throw e
    await catalog.store.put(key.pk, key.sk, value, { version: orphan.version })
  }
  const next: TableRecord = {
    ...table,
    descriptor,
    schemaId,
    state: 'READY',
    modifiedTimeMs: catalog.nowMs(),
  }
  const { pk, sk } = tableIdKey(table.tableId)
  const version = await catalog.store.put(pk, sk, tableItemValue(next), { version: table.version })
  return { ...next, version }
}

/**
 * Every schema version of a table, oldest first, up to its current schema id (items above it are
 * uncommitted attempts and are left out).
 */
export async function listSchemaVersions(
  catalog: Catalog,
  table: TableRecord,
): Promise<{ schemaId: number; schema: TableDescriptor['schema'] }[]> {
  const items = await catalog.listSchemaItems(table.tableId)
  const out = items
    .map(({ schemaId, item }) => decodeSchema(table.tableId, schemaId, item))
    .filter(s => s.schemaId <= table.schemaId)
    .map(s => ({ schemaId: s.schemaId, schema: s.schema }))
  if (out.length === 0 || out[out.length - 1].schemaId !== table.schemaId) {
    throw new FlussError(
      'SCHEMA_NOT_EXIST',
      `Schema ${table.schemaId} of the table with id ${table.tableId} does not exist.`,
    )
  }
  return out
}
