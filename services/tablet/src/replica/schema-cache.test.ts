import { Schema, TableDescriptor, TableInfo, tableDescriptorToJson, tablePath } from '@sluice/core/metadata'
import { testPkTable } from '@sluice/core/testing'
import { DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { updateSchemas } from '../server/update-metadata.js'
import { SchemaCache } from './schema-cache.js'

const path = tablePath('db', 'users')
const v1 = TableInfo.of(path, 3, 1, testPkTable(1), 0, 0)
const v2Schema = Schema.newBuilder().fromSchema(v1.schema).column('age', DataTypes.INT()).build()
const v2 = TableInfo.of(path, 3, 2, TableDescriptor.builder().schema(v2Schema).distributedBy(1).build(), 0, 0)

describe('SchemaCache', () => {
  it('shares one TableSchemas per table; a newer TableInfo makes its schema the latest', async () => {
    const asked: number[] = []
    const cache = new SchemaCache({
      getSchema: async (_tableId, schemaId) => {
        asked.push(schemaId)
        return v1.schema
      },
    })
    const first = cache.forTable(v1)
    expect(cache.forTable(v1)).toBe(first)
    expect(first.latest().physicalPrimaryKeys).toEqual(['id'])
    cache.forTable(v2)
    expect(first.latestId).toBe(2)
    expect(first.latest().schema).toBe(v2Schema)
    expect(first.rowType(1)).toBe(v1.rowType)
    expect(asked).toEqual([])
    cache.removeTable(3)
    expect(cache.forTable(v1)).not.toBe(first)
  })

  it("learns a hosted table's new schema from UPDATE_METADATA and ignores tables not hosted", async () => {
    const cache = new SchemaCache({ getSchema: async () => v1.schema })
    const schemas = cache.forTable(v1)
    const request = {
      tableMetadata: [v2, TableInfo.of(path, 9, 4, testPkTable(1), 0, 0)].map(info => ({
        tablePath: info.tablePath,
        tableId: info.tableId,
        schemaId: info.schemaId,
        tableJson: Buffer.from(tableDescriptorToJson(info.toTableDescriptor())),
        bucketMetadata: [],
        createdTime: 0,
        modifiedTime: 0,
      })),
      tabletServers: [],
      partitionMetadata: [],
      coordinatorServer: null,
      coordinatorEpoch: null,
    }
    updateSchemas(cache, request)
    expect(schemas.latestId).toBe(2)
    expect(schemas.latest().schema.columnNames).toEqual(['id', 'v', 'age'])
    // Table 9 is not hosted: it is not remembered.
    expect(cache.forTable(TableInfo.of(path, 9, 1, testPkTable(1), 0, 0)).latestId).toBe(1)
  })
})
