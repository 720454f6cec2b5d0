import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FlussError } from '../errors/index.js'
import {
  databaseDescriptor,
  resolvedPartitionSpec,
  schemaFromJson,
  tableDescriptorFromJson,
} from '../metadata/index.js'
import { MemoryMetaStore } from '../metastore/index.js'
import { ClientConnection, RpcServer } from '../rpc/index.js'
import { testLogTable, testPkTable } from '../testing/test-tables.js'
import { readOnlyAdminHandlers } from './admin-handlers.js'
import { withNewLeader } from './bucket-item.js'
import { updateBucketAsCoordinator } from './bucket-writes.js'
import { Catalog } from './catalog.js'
import { parseListeners } from './endpoints.js'
import { acquireCoordinatorLease, registerTabletServer } from './lease-ops.js'
import { createPartition } from './partition-ddl.js'
import { createDatabase, createTable } from './table-ddl.js'
import type { TableRecord } from './table-items.js'

const now = 1_000_000
const catalog = new Catalog(new MemoryMetaStore(), { nowMs: () => now })
let server: RpcServer
let client: ClientConnection
let partitioned: TableRecord

async function seed() {
  await createDatabase(catalog, 'db', databaseDescriptor({}, 'first'), false)
  await createDatabase(catalog, 'other', databaseDescriptor(), false)
  const log = await createTable(catalog, {
    tablePath: { databaseName: 'db', tableName: 'log' },
    descriptor: testLogTable(2, 2),
    assignment: [
      [1, 2],
      [2, 1],
    ],
    coordinatorEpoch: 4,
    ignoreIfExists: false,
  })
  const logId = log?.table.tableId as number
  await updateBucketAsCoordinator(catalog, { tableId: logId, bucket: 1 }, 4, l =>
    withNewLeader(l, null, l.isr, 4),
  )
  await createTable(catalog, {
    tablePath: { databaseName: 'db', tableName: 'pk' },
    descriptor: testPkTable(3),
    assignment: [[1], [2], [1]],
    coordinatorEpoch: 4,
    ignoreIfExists: false,
  })
  const p = await createTable(catalog, {
    tablePath: { databaseName: 'db', tableName: 'part' },
    descriptor: testLogTable(1, 1, ['dt']),
    coordinatorEpoch: 4,
    ignoreIfExists: false,
  })
  partitioned = p?.table as TableRecord
  for (const dt of ['2024', '2025']) {
    await createPartition(catalog, {
      table: partitioned,
      spec: resolvedPartitionSpec(['dt'], [dt]),
      assignment: [[2]],
      coordinatorEpoch: 4,
      ignoreIfExists: false,
      maxPartitionNum: 10,
      maxBucketNum: 10,
    })
  }
  const lease = {
    host: '10.0.0.9',
    port: 9123,
    listeners: parseListeners('FLUSS://10.0.0.9:9123,CLIENT://c.example:19123'),
  }
  await acquireCoordinatorLease(catalog, { coordinatorId: 'c1', ...lease, leaseExpiresAtMs: now + 10_000 })
  for (const [serverId, rack, expiresAt] of [
    [1, 'az1', now + 10_000],
    [2, null, now + 10_000],
    [3, null, now - 1],
  ] as const) {
    await registerTabletServer(catalog, {
      serverId,
      host: `10.0.0.${serverId}`,
      port: 9124,
      rack,
      listeners: parseListeners(`FLUSS://10.0.0.${serverId}:9124`),
      leaseExpiresAtMs: expiresAt,
      incarnation: `i${serverId}`,
    })
  }
}

beforeAll(async () => {
  await seed()
  server = new RpcServer({ role: 'tablet' }).registerAll(readOnlyAdminHandlers(catalog))
  const { port } = await server.start()
  client = await ClientConnection.connect({ host: '127.0.0.1', port })
})

afterAll(async () => {
  client.close()
  await server.close(100)
})

async function failure(p: Promise<unknown>): Promise<FlussError> {
  return p.then(
    () => {
      throw new Error('expected an error response')
    },
    e => e as FlussError,
  )
}

const path = (tableName: string) => ({ databaseName: 'db', tableName })

describe('database and table reads', () => {
  it('lists databases, with summaries on request', async () => {
    expect((await client.request('LIST_DATABASES', {})).databaseName).toEqual(['db', 'other'])
    const summaries = await client.request('LIST_DATABASES', { includeSummary: true })
    expect(summaries.databaseSummary).toEqual([
      { databaseName: 'db', createdTime: now, tableCount: 3 },
      { databaseName: 'other', createdTime: now, tableCount: 0 },
    ])
  })

  it('answers existence and database info; unknown databases are DATABASE_NOT_EXIST', async () => {
    expect((await client.request('DATABASE_EXISTS', { databaseName: 'db' })).exists).toBe(true)
    expect((await client.request('DATABASE_EXISTS', { databaseName: 'nope' })).exists).toBe(false)
    const info = await client.request('GET_DATABASE_INFO', { databaseName: 'db' })
    expect(JSON.parse(info.databaseJson.toString())).toEqual({
      version: 1,
      comment: 'first',
      custom_properties: {},
    })
    expect((await failure(client.request('GET_DATABASE_INFO', { databaseName: 'nope' }))).errorName).toBe(
      'DATABASE_NOT_EXIST',
    )
    expect((await client.request('LIST_TABLES', { databaseName: 'db' })).tableName).toEqual([
      'log',
      'part',
      'pk',
    ])
    expect((await failure(client.request('LIST_TABLES', { databaseName: 'nope' }))).errorName).toBe(
      'DATABASE_NOT_EXIST',
    )
  })

  it('returns table info and schema JSON that parse back', async () => {
    expect((await client.request('TABLE_EXISTS', { tablePath: path('pk') })).exists).toBe(true)
    expect((await client.request('TABLE_EXISTS', { tablePath: path('zz') })).exists).toBe(false)
    const info = await client.request('GET_TABLE_INFO', { tablePath: path('pk') })
    const descriptor = tableDescriptorFromJson(info.tableJson)
    expect([info.schemaId, descriptor.bucketCount, descriptor.schema.primaryKeyColumnNames]).toEqual([
      1,
      3,
      ['id'],
    ])
    const schema = await client.request('GET_TABLE_SCHEMA', { tablePath: path('pk') })
    expect(schemaFromJson(schema.schemaJson).columnNames).toEqual(['id', 'v'])
    expect((await client.request('GET_TABLE_SCHEMA', { tablePath: path('pk'), schemaId: 1 })).schemaId).toBe(
      1,
    )
    const noSchema = await failure(client.request('GET_TABLE_SCHEMA', { tablePath: path('pk'), schemaId: 7 }))
    expect(noSchema.errorName).toBe('SCHEMA_NOT_EXIST')
    const noTable = await failure(client.request('GET_TABLE_INFO', { tablePath: path('zz') }))
    expect([noTable.errorName, noTable.message]).toEqual(['TABLE_NOT_EXIST', "Table 'db.zz' does not exist."])
  })
})

describe('GET_METADATA', () => {
  it('names the active coordinator and the live tablet servers only', async () => {
    const m = await client.request('GET_METADATA', {})
    const c = m.coordinatorServer
    expect([c?.nodeId, c?.host, c?.port, c?.rack]).toEqual([1, '10.0.0.9', 9123, null])
    expect(m.tabletServers.map(s => [s.nodeId, s.host, s.rack])).toEqual([
      [1, '10.0.0.1', 'az1'],
      [2, '10.0.0.2', null],
    ])
    expect([m.tableMetadata, m.partitionMetadata]).toEqual([[], []])
  })

  it('describes the buckets of named tables, with no leader id while there is none', async () => {
    const m = await client.request('GET_METADATA', { tablePath: [path('log')] })
    const [t] = m.tableMetadata
    expect(tableDescriptorFromJson(t.tableJson).bucketCount).toBe(2)
    expect(t.bucketMetadata.map(b => [b.bucketId, b.leaderId, b.replicaId, b.leaderEpoch])).toEqual([
      [0, 1, [1, 2], 0],
      [1, null, [2, 1], 1],
    ])
  })

  it('resolves partitions by path and by id among the named tables', async () => {
    const [p2024, p2025] = await catalog.listPartitions(partitioned.tableId)
    const m = await client.request('GET_METADATA', {
      tablePath: [path('part')],
      partitionsPath: [{ ...path('part'), partitionName: '2024' }],
      partitionsId: [p2025.partitionId],
    })
    expect(m.tableMetadata[0].bucketMetadata).toEqual([])
    expect(
      m.partitionMetadata.map(p => [p.partitionName, p.partitionId, p.bucketMetadata[0].leaderId]),
    ).toEqual([
      ['2024', p2024.partitionId, 2],
      ['2025', p2025.partitionId, 2],
    ])
  })

  it('fails on unknown tables and partitions', async () => {
    expect((await failure(client.request('GET_METADATA', { tablePath: [path('zz')] }))).errorName).toBe(
      'TABLE_NOT_EXIST',
    )
    const byPath = await failure(
      client.request('GET_METADATA', { partitionsPath: [{ ...path('part'), partitionName: '1999' }] }),
    )
    expect([byPath.errorName, byPath.message]).toEqual([
      'PARTITION_NOT_EXISTS',
      "Table partition 'db.part(p=1999)' does not exist.",
    ])
    const byId = await failure(
      client.request('GET_METADATA', { tablePath: [path('log')], partitionsId: [999] }),
    )
    expect(byId.errorName).toBe('PARTITION_NOT_EXISTS')
  })
})

describe('partitions and KV snapshots', () => {
  it('lists partition infos, optionally filtered by a partial spec', async () => {
    const all = await client.request('LIST_PARTITION_INFOS', { tablePath: path('part') })
    expect(all.partitionsInfo.map(p => p.partitionSpec.partitionKeyValues)).toEqual([
      [{ key: 'dt', value: '2024' }],
      [{ key: 'dt', value: '2025' }],
    ])
    const some = await client.request('LIST_PARTITION_INFOS', {
      tablePath: path('part'),
      partialPartitionSpec: { partitionKeyValues: [{ key: 'dt', value: '2025' }] },
    })
    expect(some.partitionsInfo).toHaveLength(1)
    const notPartitioned = await failure(client.request('LIST_PARTITION_INFOS', { tablePath: path('log') }))
    expect(notPartitioned.errorName).toBe('TABLE_NOT_PARTITIONED_EXCEPTION')
  })

  it('lists every bucket of a primary-key table without a snapshot', async () => {
    const s = await client.request('GET_LATEST_KV_SNAPSHOTS', { tablePath: path('pk') })
    expect(s.partitionId).toBeNull()
    expect(s.latestSnapshots.map(b => [b.bucketId, b.snapshotId, b.logOffset])).toEqual([
      [0, null, null],
      [1, null, null],
      [2, null, null],
    ])
    const log = await failure(client.request('GET_LATEST_KV_SNAPSHOTS', { tablePath: path('log') }))
    expect(log.errorName).toBe('NON_PRIMARY_KEY_TABLE_EXCEPTION')
  })
})
