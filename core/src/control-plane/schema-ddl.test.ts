import { beforeEach, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import {
  applySchemaChanges,
  databaseDescriptor,
  type TableDescriptor,
  type TablePath,
} from '../metadata/index.js'
import { MemoryMetaStore, schemaKey } from '../metastore/index.js'
import { testPkTable } from '../testing/test-tables.js'
import { DataTypes } from '../types/index.js'
import { getTableSchema } from './admin-handlers.js'
import { Catalog } from './catalog.js'
import { listSchemaVersions, storeNextSchema } from './schema-ddl.js'
import { createDatabase, createTable } from './table-ddl.js'
import { schemaItemValue } from './table-items.js'

let store: MemoryMetaStore
let catalog: Catalog
const path: TablePath = { databaseName: 'db', tableName: 't' }

function withColumn(d: TableDescriptor, name: string): TableDescriptor {
  const next = applySchemaChanges(d, [{ kind: 'add', name, dataType: DataTypes.INT() }])
  if (next === undefined) throw new Error('no change')
  return next
}

beforeEach(async () => {
  store = new MemoryMetaStore()
  catalog = new Catalog(store)
  await createDatabase(catalog, 'db', databaseDescriptor(), false)
  await createTable(catalog, {
    tablePath: path,
    descriptor: testPkTable(1),
    assignment: [[1]],
    coordinatorEpoch: 1,
    ignoreIfExists: false,
  })
})

describe('storeNextSchema', () => {
  it('writes SCHEMA#n+1, then the table item with schema id n+1', async () => {
    const table = await catalog.getTableOrThrow(path)
    expect(table.schemaId).toBe(1)
    const stored = await storeNextSchema(catalog, table, withColumn(table.descriptor, 'x'))
    expect(stored.schemaId).toBe(2)
    const read = await catalog.getTableOrThrow(path)
    expect(read.schemaId).toBe(2)
    expect(read.descriptor.schema.columnNames).toEqual(['id', 'v', 'x'])
    expect((await catalog.getSchema(table.tableId, 2))?.schema.columnNames).toEqual(['id', 'v', 'x'])
    expect((await catalog.getSchema(table.tableId, 1))?.schema.columnNames).toEqual(['id', 'v'])
    const versions = await listSchemaVersions(catalog, read)
    expect(versions.map(v => [v.schemaId, v.schema.columnNames.length])).toEqual([
      [1, 2],
      [2, 3],
    ])
  })

  it('loses to a concurrent change of the table item and leaves the table as it was', async () => {
    const table = await catalog.getTableOrThrow(path)
    await storeNextSchema(catalog, table, withColumn(table.descriptor, 'x'))
    const e = await storeNextSchema(catalog, table, withColumn(table.descriptor, 'y')).catch(err => err)
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe('METASTORE_CONFLICT')
    const read = await catalog.getTableOrThrow(path)
    expect(read.schemaId).toBe(2)
    expect(read.descriptor.schema.columnNames).toEqual(['id', 'v', 'x'])
  })

  it('overwrites a schema item an earlier attempt left uncommitted, which nobody reads', async () => {
    const table = await catalog.getTableOrThrow(path)
    const orphan = schemaKey(table.tableId, 2)
    const orphanSchema = withColumn(table.descriptor, 'orphan').schema
    await store.put(orphan.pk, orphan.sk, schemaItemValue(orphanSchema), { version: 'absent' })
    expect((await listSchemaVersions(catalog, table)).map(v => v.schemaId)).toEqual([1])
    const request = { tablePath: path, schemaId: 2 }
    const missing = await getTableSchema(catalog, request).catch(e => e)
    expect((missing as FlussError).errorName).toBe('SCHEMA_NOT_EXIST')
    await storeNextSchema(catalog, table, withColumn(table.descriptor, 'real'))
    const answer = await getTableSchema(catalog, request)
    expect(answer.schemaId).toBe(2)
    expect(Buffer.from(answer.schemaJson).toString()).toContain('"real"')
  })
})
