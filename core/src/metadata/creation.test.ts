import { describe, expect, it } from 'vitest'
import { expectFlussError } from '../testing/expect-error.js'
import { DataTypes } from '../types/data-type.js'
import {
  applySystemDefaults,
  checkTableCreationPermission,
  prepareTableForCreation,
  type TableCreationContext,
} from './creation.js'
import { tableDescriptorFromJson, tableDescriptorToJson } from './json.js'
import { Schema } from './schema.js'
import { TableDescriptor } from './table-descriptor.js'

const CTX: TableCreationContext = {
  defaultBucketNumber: 3,
  defaultReplicationFactor: 2,
  maxBucketNum: 128,
  aliveTabletServers: 3,
}

const pkSchema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('v', DataTypes.STRING())
  .primaryKey('id')
  .build()
const logSchema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('dt', DataTypes.STRING())
  .column('region', DataTypes.STRING())
  .build()

describe('applySystemDefaults', () => {
  it('fills bucket count and replication factor of a log table', () => {
    const d = applySystemDefaults(TableDescriptor.builder().schema(logSchema).build(), CTX)
    expect(d.bucketCount).toBe(3)
    expect(d.bucketKeys).toEqual([])
    expect(d.properties).toEqual({ 'table.replication.factor': '2' })
  })

  it('keeps what the table sets and adds the kv format version to primary-key tables', () => {
    const d = applySystemDefaults(
      TableDescriptor.builder()
        .schema(pkSchema)
        .distributedBy(5)
        .property('table.replication.factor', '1')
        .build(),
      CTX,
    )
    expect(d.bucketCount).toBe(5)
    expect(d.bucketKeys).toEqual(['id'])
    expect(d.properties).toEqual({ 'table.replication.factor': '1', 'table.kv.format-version': '2' })
  })

  it.each(['first_row', 'versioned', 'aggregation'])(
    'defaults deletes to IGNORE for the %s merge engine',
    engine => {
      const d = applySystemDefaults(
        TableDescriptor.builder().schema(pkSchema).property('table.merge-engine', engine).build(),
        CTX,
      )
      expect(d.properties['table.delete.behavior']).toBe('IGNORE')
      const explicit = TableDescriptor.builder()
        .schema(pkSchema)
        .property('table.merge-engine', engine)
        .property('table.delete.behavior', 'disable')
        .build()
      expect(applySystemDefaults(explicit, CTX).properties['table.delete.behavior']).toBe('disable')
    },
  )

  it('turns off pre-creation for multi-key auto-partitioned tables', () => {
    const d = TableDescriptor.builder()
      .schema(logSchema)
      .partitionedBy('dt', 'region')
      .property('table.auto-partition.enabled', 'true')
      .property('table.auto-partition.key', 'dt')
      .build()
    expect(applySystemDefaults(d, CTX).properties['table.auto-partition.num-precreate']).toBe('0')
  })

  it('sets the cluster lake format, and refuses a lake table without one', () => {
    const lake = TableDescriptor.builder()
      .schema(logSchema)
      .property('table.datalake.enabled', 'true')
      .build()
    expect(
      applySystemDefaults(lake, { ...CTX, dataLakeFormat: 'iceberg' }).properties['table.datalake.format'],
    ).toBe('iceberg')
    expectFlussError(
      () => applySystemDefaults(lake, CTX),
      'INVALID_TABLE_EXCEPTION',
      "'table.datalake.enabled' is enabled for the table, but the Fluss cluster doesn't enable datalake tables.",
    )
  })

  it('binds the lake format only to tables that enable the lake (key encoding stays Fluss otherwise)', () => {
    const plain = TableDescriptor.builder().schema(pkSchema).build()
    expect(applySystemDefaults(plain, { ...CTX, dataLakeFormat: 'iceberg' }).properties).not.toHaveProperty(
      'table.datalake.format',
    )
  })

  it('refuses a kv format version newer than supported', () => {
    const d = TableDescriptor.builder().schema(pkSchema).property('table.kv.format-version', '3').build()
    expectFlussError(() => applySystemDefaults(d, CTX), 'INVALID_CONFIG_EXCEPTION', 'table.kv.format-version')
  })

  it('returns a new descriptor and leaves the input unchanged', () => {
    const d = TableDescriptor.builder().schema(logSchema).build()
    applySystemDefaults(d, CTX)
    expect(d.bucketCount).toBeUndefined()
    expect(d.properties).toEqual({})
  })
})

describe('table creation', () => {
  it('honours allow.create.kv.tables and allow.create.log.tables', () => {
    const pk = TableDescriptor.builder().schema(pkSchema).build()
    const log = TableDescriptor.builder().schema(logSchema).build()
    expectFlussError(
      () => checkTableCreationPermission(pk, { ...CTX, allowCreateKvTables: false }),
      'INVALID_TABLE_EXCEPTION',
      'Creation of Primary Key Tables is disallowed in the cluster.',
    )
    expectFlussError(
      () => prepareTableForCreation(log, { ...CTX, allowCreateLogTables: false }),
      'INVALID_TABLE_EXCEPTION',
      'Creation of Log Tables is disallowed in the cluster.',
    )
    expect(() => checkTableCreationPermission(pk, { ...CTX, allowCreateLogTables: false })).not.toThrow()
  })

  it('prepares a table from client JSON: defaults applied, validated, serializable', () => {
    const fromClient = tableDescriptorFromJson(
      tableDescriptorToJson(TableDescriptor.builder().schema(pkSchema).build()),
    )
    const stored = prepareTableForCreation(fromClient, CTX)
    expect(tableDescriptorToJson(stored)).toContain(
      '"partition_key":[],"bucket_key":["id"],"bucket_count":3,"properties":{"table.replication.factor":"2","table.kv.format-version":"2"}',
    )
  })

  it('validates after applying defaults (the default replication factor meets the live servers check)', () => {
    const log = TableDescriptor.builder().schema(logSchema).build()
    expectFlussError(
      () => prepareTableForCreation(log, { ...CTX, aliveTabletServers: 1 }),
      'INVALID_REPLICATION_FACTOR',
      'Replication factor: 2 larger than available tablet servers: 1.',
    )
  })
})
