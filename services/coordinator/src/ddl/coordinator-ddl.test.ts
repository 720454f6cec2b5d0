import type { FlussError } from '@sluice/core/errors'
import { schemaFromJson, tableDescriptorFromJson, tableDescriptorToJson } from '@sluice/core/metadata'
import { tableItemsPk } from '@sluice/core/metastore'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CoordinatorServer } from '../server/coordinator-server.js'
import { TestingCluster } from '../testing/testing-cluster.js'

let cluster: TestingCluster
let coordinator: CoordinatorServer
let client: ClientConnection

const path = (tableName: string, databaseName = 'db') => ({ databaseName, tableName })
const json = (value: unknown) => Buffer.from(JSON.stringify(value))
const column = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  data_type: { type, ...extra },
})

/** A CreateTable table_json as a Fluss client sends it. */
function tableJson(
  options: {
    buckets?: number
    pk?: boolean
    partitionKeys?: string[]
    properties?: Record<string, string>
  } = {},
) {
  return json({
    version: 1,
    schema: {
      version: 1,
      columns: [
        column('id', 'INTEGER', { nullable: false }),
        column('dt', 'STRING', { nullable: false }),
        column('v', 'STRING'),
      ],
      ...(options.pk ? { primary_key: ['id', ...(options.partitionKeys ?? [])] } : {}),
    },
    partition_key: options.partitionKeys ?? [],
    ...(options.buckets === undefined ? {} : { bucket_key: [], bucket_count: options.buckets }),
    properties: options.properties ?? {},
    custom_properties: {},
  })
}

async function failure(p: Promise<unknown>): Promise<FlussError> {
  return p.then(
    () => {
      throw new Error('expected an error response')
    },
    e => e as FlussError,
  )
}

beforeEach(async () => {
  cluster = new TestingCluster()
  await cluster.addTabletServers([null, null, null])
  coordinator = await cluster.startCoordinator('c1')
  client = await cluster.connect(coordinator)
  await client.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
})

afterEach(() => cluster.close())

describe('database DDL over RPC', () => {
  it('creates, lists, describes and drops databases with the ignore flags', async () => {
    const descriptor = json({ version: 1, comment: 'c', custom_properties: { a: 'b' } })
    await client.request('CREATE_DATABASE', {
      databaseName: 'second',
      ignoreIfExists: false,
      databaseJson: descriptor,
    })
    expect((await client.request('LIST_DATABASES', {})).databaseName).toEqual(['db', 'second'])
    expect((await client.request('DATABASE_EXISTS', { databaseName: 'second' })).exists).toBe(true)
    const info = await client.request('GET_DATABASE_INFO', { databaseName: 'second' })
    expect(JSON.parse(info.databaseJson.toString())).toEqual({
      version: 1,
      comment: 'c',
      custom_properties: { a: 'b' },
    })
    const dup = await failure(
      client.request('CREATE_DATABASE', { databaseName: 'second', ignoreIfExists: false }),
    )
    expect(dup.errorName).toBe('DATABASE_ALREADY_EXIST')
    await client.request('CREATE_DATABASE', { databaseName: 'second', ignoreIfExists: true })
    await client.request('DROP_DATABASE', {
      databaseName: 'second',
      ignoreIfNotExists: false,
      cascade: false,
    })
    const gone = await failure(
      client.request('DROP_DATABASE', { databaseName: 'second', ignoreIfNotExists: false, cascade: false }),
    )
    expect(gone.errorName).toBe('DATABASE_NOT_EXIST')
    await client.request('DROP_DATABASE', { databaseName: 'second', ignoreIfNotExists: true, cascade: false })
    const bad = await failure(
      client.request('CREATE_DATABASE', { databaseName: 'a.b', ignoreIfExists: false }),
    )
    expect(bad.errorName).toBe('INVALID_DATABASE_EXCEPTION')
  })

  it('refuses to drop a database with tables unless cascading, which drops the tables', async () => {
    await client.request('CREATE_TABLE', {
      tablePath: path('t'),
      tableJson: tableJson({ buckets: 1 }),
      ignoreIfExists: false,
    })
    const e = await failure(
      client.request('DROP_DATABASE', { databaseName: 'db', ignoreIfNotExists: false, cascade: false }),
    )
    expect(e.errorName).toBe('DATABASE_NOT_EMPTY')
    await client.request('DROP_DATABASE', { databaseName: 'db', ignoreIfNotExists: false, cascade: true })
    await coordinator.settle()
    expect((await client.request('DATABASE_EXISTS', { databaseName: 'db' })).exists).toBe(false)
    expect((await cluster.store.query(tableItemsPk(0))).items).toEqual([])
  })
})

describe('table DDL over RPC', () => {
  it('creates a table with defaults applied, assigns and announces its buckets', async () => {
    await client.request('CREATE_TABLE', {
      tablePath: path('t'),
      tableJson: tableJson({ buckets: 3, properties: { 'table.replication.factor': '2' } }),
      ignoreIfExists: false,
    })
    expect((await client.request('LIST_TABLES', { databaseName: 'db' })).tableName).toEqual(['t'])
    expect((await client.request('TABLE_EXISTS', { tablePath: path('t') })).exists).toBe(true)
    const info = await client.request('GET_TABLE_INFO', { tablePath: path('t') })
    const descriptor = tableDescriptorFromJson(info.tableJson)
    expect([info.tableId, info.schemaId, descriptor.bucketCount]).toEqual([0, 1, 3])
    expect(tableDescriptorToJson(descriptor)).toBe(info.tableJson.toString())
    const schema = await client.request('GET_TABLE_SCHEMA', { tablePath: path('t') })
    expect(schemaFromJson(schema.schemaJson).columnIds).toEqual([0, 1, 2])
    const metadata = await client.request('GET_METADATA', { tablePath: [path('t')] })
    expect(metadata.coordinatorServer?.port).toBe(coordinator.endpoints[0].port)
    expect(metadata.tabletServers.map(s => s.nodeId)).toEqual([1, 2, 3])
    const buckets = metadata.tableMetadata[0].bucketMetadata.map(b => [
      b.bucketId,
      b.leaderId,
      b.replicaId,
      b.leaderEpoch,
    ])
    expect(buckets).toEqual([
      [0, 1, [1, 2], 0],
      [1, 2, [2, 3], 0],
      [2, 3, [3, 1], 0],
    ])
    await coordinator.settle()
    const announced = cluster.server(1).notifications.flatMap(n => n.notifyBucketsLeaderReq)
    expect(
      announced.map(b => [b.tableBucket.bucketId, b.leader, b.replicas, b.isr, b.leaderEpoch, b.bucketEpoch]),
    ).toEqual([
      [0, 1, [1, 2], [1, 2], 0, 0],
      [2, 3, [3, 1], [3, 1], 0, 0],
    ])
    expect(announced[0].physicalTablePath).toMatchObject({
      databaseName: 'db',
      tableName: 't',
      partitionName: null,
    })
    expect(cluster.server(1).notifications[0].coordinatorEpoch).toBe(1)
  })

  it('applies default.bucket.number and default.replication.factor', async () => {
    await client.request('CREATE_TABLE', {
      tablePath: path('d'),
      tableJson: tableJson({ pk: true }),
      ignoreIfExists: false,
    })
    const info = await client.request('GET_TABLE_INFO', { tablePath: path('d') })
    const d = tableDescriptorFromJson(info.tableJson)
    expect([d.bucketCount, d.properties['table.replication.factor'], d.bucketKeys]).toEqual([1, '1', ['id']])
  })

  it('answers every failure with its typed error', async () => {
    const create = (
      tablePath: { databaseName: string; tableName: string },
      body: Buffer,
      ignoreIfExists = false,
    ) => failure(client.request('CREATE_TABLE', { tablePath, tableJson: body, ignoreIfExists }))
    await client.request('CREATE_TABLE', {
      tablePath: path('t'),
      tableJson: tableJson({ buckets: 1 }),
      ignoreIfExists: false,
    })
    expect((await create(path('t'), tableJson({ buckets: 1 }))).errorName).toBe('TABLE_ALREADY_EXIST')
    await client.request('CREATE_TABLE', {
      tablePath: path('t'),
      tableJson: tableJson({ buckets: 1 }),
      ignoreIfExists: true,
    })
    expect((await create(path('t', 'nodb'), tableJson({ buckets: 1 }))).errorName).toBe('DATABASE_NOT_EXIST')
    expect((await create(path('x'), Buffer.from('{not json'))).errorName).toBe('INVALID_TABLE_EXCEPTION')
    expect((await create(path('x'), tableJson({ properties: { 'table.nope': '1' } }))).errorName).toBe(
      'INVALID_CONFIG_EXCEPTION',
    )
    const rf = await create(path('x'), tableJson({ properties: { 'table.replication.factor': '4' } }))
    expect([rf.errorName, rf.message]).toEqual([
      'INVALID_REPLICATION_FACTOR',
      'Replication factor: 4 larger than available tablet servers: 3.',
    ])
    const nestedBucketKey = json({
      version: 1,
      schema: { version: 1, columns: [column('a', 'ARRAY', { element_type: { type: 'INTEGER' } })] },
      bucket_key: ['a'],
      properties: {},
      custom_properties: {},
    })
    expect(await create(path('x'), nestedBucketKey)).toMatchObject({
      errorName: 'INVALID_TABLE_EXCEPTION',
      message: expect.stringContaining("Bucket key column 'a' has unsupported data type ARRAY<INT>."),
    })
    expect((await create(path('bad.name'), tableJson())).errorName).toBe('INVALID_TABLE_EXCEPTION')
    expect((await failure(client.request('GET_TABLE_INFO', { tablePath: path('x') }))).errorName).toBe(
      'TABLE_NOT_EXIST',
    )
    expect(
      (await failure(client.request('DROP_TABLE', { tablePath: path('x'), ignoreIfNotExists: false })))
        .errorName,
    ).toBe('TABLE_NOT_EXIST')
    await client.request('DROP_TABLE', { tablePath: path('x'), ignoreIfNotExists: true })
    expect((await client.request('LIST_TABLES', { databaseName: 'db' })).tableName).toEqual(['t'])
  })

  it('refuses table options Sluice does not implement by name, and creates nothing', async () => {
    const refused: [string, string, boolean][] = [
      ['table.datalake.auto-compaction', 'true', false],
      ['table.datalake.auto-expire-snapshot', 'true', false],
      ['table.datalake.historical-partition.enabled', 'true', true],
      ['table.kv.standby-replica.enabled', 'true', true],
      ['table.statistics.columns', '*', false],
    ]
    for (const [key, value, pk] of refused) {
      const error = await failure(
        client.request('CREATE_TABLE', {
          tablePath: path('refused'),
          tableJson: tableJson({ pk, properties: { [key]: value } }),
          ignoreIfExists: false,
        }),
      )
      expect([error.errorName, error.message], key).toEqual([
        'INVALID_CONFIG_EXCEPTION',
        expect.stringContaining(`'${key}' = '${value}' is not supported by Sluice`),
      ])
      expect((await client.request('TABLE_EXISTS', { tablePath: path('refused') })).exists).toBe(false)
    }
    expect((await client.request('LIST_TABLES', { databaseName: 'db' })).tableName).toEqual([])
    await client.request('CREATE_TABLE', {
      tablePath: path('accepted'),
      tableJson: tableJson({
        pk: true,
        properties: {
          'table.datalake.auto-compaction': 'false',
          'table.kv.standby-replica.enabled': 'false',
          'table.log.local-ttl': '1h',
        },
      }),
      ignoreIfExists: false,
    })
    expect((await client.request('TABLE_EXISTS', { tablePath: path('accepted') })).exists).toBe(true)
  })

  it('drops a table: StopReplica(delete) to every replica, then its items are gone', async () => {
    await client.request('CREATE_TABLE', {
      tablePath: path('t'),
      tableJson: tableJson({ buckets: 2, properties: { 'table.replication.factor': '3' } }),
      ignoreIfExists: false,
    })
    await client.request('DROP_TABLE', { tablePath: path('t'), ignoreIfNotExists: false })
    expect((await client.request('TABLE_EXISTS', { tablePath: path('t') })).exists).toBe(false)
    await coordinator.settle()
    for (const server of cluster.servers.values()) {
      const stopped = server.stops.flatMap(s => s.stopReplicasReq)
      expect(stopped.map(s => [s.tableBucket.bucketId, s.delete])).toEqual([
        [0, true],
        [1, true],
      ])
    }
    expect((await cluster.store.query(tableItemsPk(0))).items).toEqual([])
  })

  it('alters table properties and refuses mixed changes and non-alterable options', async () => {
    await client.request('CREATE_TABLE', {
      tablePath: path('t'),
      tableJson: tableJson({ buckets: 1 }),
      ignoreIfExists: false,
    })
    const alter = (configChanges: { configKey: string; configValue?: string; opType: number }[], more = {}) =>
      client.request('ALTER_TABLE', {
        tablePath: path('t'),
        ignoreIfNotExists: false,
        configChanges,
        ...more,
      })
    await alter([
      { configKey: 'table.log.ttl', configValue: '2h', opType: 0 },
      { configKey: 'owner', configValue: 'me', opType: 0 },
    ])
    let d = tableDescriptorFromJson(
      (await client.request('GET_TABLE_INFO', { tablePath: path('t') })).tableJson,
    )
    expect([d.properties['table.log.ttl'], d.customProperties.owner]).toEqual(['2h', 'me'])
    await alter([{ configKey: 'owner', opType: 1 }])
    d = tableDescriptorFromJson((await client.request('GET_TABLE_INFO', { tablePath: path('t') })).tableJson)
    expect(d.customProperties).toEqual({})
    expect(
      (await failure(alter([{ configKey: 'table.log.format', configValue: 'INDEXED', opType: 0 }])))
        .errorName,
    ).toBe('INVALID_ALTER_TABLE_EXCEPTION')
    const addColumn = {
      addColumns: [{ columnName: 'x', dataTypeJson: json({ type: 'INTEGER' }), columnPositionType: 0 }],
    }
    const mixed = await failure(alter([{ configKey: 'owner', configValue: 'x', opType: 0 }], addColumn))
    expect([mixed.errorName, mixed.message]).toEqual([
      'INVALID_ALTER_TABLE_EXCEPTION',
      'Table alteration can only be applied to one of the following: table properties or table schema.',
    ])
    // This cluster has no lake format: a table cannot enable the lake.
    const lake = await failure(
      alter([{ configKey: 'table.datalake.enabled', configValue: 'true', opType: 0 }]),
    )
    expect([lake.errorName, lake.message]).toEqual([
      'INVALID_ALTER_TABLE_EXCEPTION',
      "'table.datalake.enabled' is enabled for the table, but the Fluss cluster doesn't enable datalake tables.",
    ])
    const missing = client.request('ALTER_TABLE', {
      tablePath: path('zz'),
      ignoreIfNotExists: false,
      configChanges: [],
    })
    expect((await failure(missing)).errorName).toBe('TABLE_NOT_EXIST')
  })
})

describe('schema changes over RPC', () => {
  const alter = (changes: Record<string, unknown>) =>
    client.request('ALTER_TABLE', {
      tablePath: path('t'),
      ignoreIfNotExists: false,
      configChanges: [],
      ...changes,
    })
  const schemaOf = async (schemaId?: number) => {
    const r = await client.request('GET_TABLE_SCHEMA', { tablePath: path('t'), schemaId: schemaId ?? null })
    return { schemaId: r.schemaId, schema: schemaFromJson(r.schemaJson) }
  }

  beforeEach(async () => {
    await client.request('CREATE_TABLE', {
      tablePath: path('t'),
      tableJson: tableJson({ buckets: 1, pk: true }),
      ignoreIfExists: false,
    })
  })

  it('stores each change as the next schema id, keeps the old ones, and tells the tablet servers', async () => {
    await alter({
      addColumns: [
        { columnName: 'x', dataTypeJson: json({ type: 'BIGINT' }), comment: 'new', columnPositionType: 0 },
      ],
    })
    const second = await schemaOf()
    expect(second.schemaId).toBe(2)
    expect(second.schema.columns.map(c => [c.name, c.columnId, c.comment ?? null])).toEqual([
      ['id', 0, null],
      ['dt', 1, null],
      ['v', 2, null],
      ['x', 3, 'new'],
    ])
    await alter({
      dropColumns: [{ columnName: 'v' }],
      renameColumns: [{ oldColumnName: 'x', newColumnName: 'y' }],
    })
    const third = await schemaOf()
    expect(third.schema.columns.map(c => `${c.name}#${c.columnId}`)).toEqual(['id#0', 'dt#1', 'y#3'])
    expect((await schemaOf(1)).schema.columnNames).toEqual(['id', 'dt', 'v'])
    const info = await client.request('GET_TABLE_INFO', { tablePath: path('t') })
    expect(info.schemaId).toBe(3)
    await coordinator.settle()
    for (const server of cluster.servers.values()) {
      const announced = server.metadataUpdates.flatMap(u => u.tableMetadata.map(t => t.schemaId))
      expect(announced).toContain(3)
    }
  })

  it('refuses unsafe changes with INVALID_ALTER_TABLE_EXCEPTION and changes nothing', async () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ dropColumns: [{ columnName: 'id' }] }, 'it is a primary key column'],
      [{ modifyColumns: [{ columnName: 'v', dataTypeJson: json({ type: 'INTEGER' }) }] }, 'only widening'],
      [
        {
          addColumns: [
            {
              columnName: 'n',
              dataTypeJson: json({ type: 'INTEGER', nullable: false }),
              columnPositionType: 0,
            },
          ],
        },
        'must be nullable',
      ],
      [
        { addColumns: [{ columnName: 'n', dataTypeJson: json({ type: 'INTEGER' }), columnPositionType: 1 }] },
        'Only support addColumn column at last now.',
      ],
      [{ renameColumns: [{ oldColumnName: 'v', newColumnName: 'dt' }] }, 'already exists'],
      [
        { modifyColumns: [{ columnName: 'v', defaultValue: 'x', dropDefault: true }] },
        'cannot be set and dropped',
      ],
    ]
    const before = await cluster.store.query(tableItemsPk(0))
    for (const [changes, message] of refusals) {
      const e = await failure(alter(changes))
      expect([e.errorName, e.message]).toEqual([
        'INVALID_ALTER_TABLE_EXCEPTION',
        expect.stringContaining(message),
      ])
    }
    expect(await cluster.store.query(tableItemsPk(0))).toEqual(before)
    expect((await schemaOf()).schemaId).toBe(1)
  })

  it('stores nothing for a change that changes nothing', async () => {
    await alter({ renameColumns: [{ oldColumnName: 'v', newColumnName: 'v' }] })
    expect((await schemaOf()).schemaId).toBe(1)
  })
})

describe('partition DDL over RPC', () => {
  const spec = (dt: string) => ({ partitionKeyValues: [{ key: 'dt', value: dt }] })

  it('creates, lists and drops partitions, each with its own buckets', async () => {
    await client.request('CREATE_TABLE', {
      tablePath: path('p'),
      tableJson: tableJson({ buckets: 2, partitionKeys: ['dt'] }),
      ignoreIfExists: false,
    })
    for (const dt of ['2024', '2025']) {
      await client.request('CREATE_PARTITION', {
        tablePath: path('p'),
        partitionSpec: spec(dt),
        ignoreIfNotExists: false,
      })
    }
    const infos = await client.request('LIST_PARTITION_INFOS', { tablePath: path('p') })
    expect(
      infos.partitionsInfo.map(p => [p.partitionId, p.partitionSpec.partitionKeyValues[0].value]),
    ).toEqual([
      [0, '2024'],
      [1, '2025'],
    ])
    const metadata = await client.request('GET_METADATA', { tablePath: [path('p')], partitionsId: [1] })
    expect(metadata.partitionMetadata[0].bucketMetadata.map(b => b.leaderId)).toEqual([1, 2])
    const dup = await failure(
      client.request('CREATE_PARTITION', {
        tablePath: path('p'),
        partitionSpec: spec('2024'),
        ignoreIfNotExists: false,
      }),
    )
    expect(dup.errorName).toBe('PARTITION_ALREADY_EXISTS')
    await client.request('DROP_PARTITION', {
      tablePath: path('p'),
      partitionSpec: spec('2024'),
      ignoreIfNotExists: false,
    })
    await coordinator.settle()
    expect(
      (await client.request('LIST_PARTITION_INFOS', { tablePath: path('p') })).partitionsInfo,
    ).toHaveLength(1)
    expect(
      cluster
        .server(1)
        .stops.flatMap(s => s.stopReplicasReq)
        .map(s => s.tableBucket.partitionId),
    ).toEqual([0])
    expect(await cluster.catalog.listBuckets(0, 0)).toEqual([])
  })

  it('refuses bad specs, unpartitioned tables and missing partitions', async () => {
    await client.request('CREATE_TABLE', {
      tablePath: path('p'),
      tableJson: tableJson({ partitionKeys: ['dt'] }),
      ignoreIfExists: false,
    })
    await client.request('CREATE_TABLE', {
      tablePath: path('t'),
      tableJson: tableJson(),
      ignoreIfExists: false,
    })
    const create = (tableName: string, partitionSpec: object) =>
      failure(
        client.request('CREATE_PARTITION', {
          tablePath: path(tableName),
          partitionSpec: partitionSpec as never,
          ignoreIfNotExists: false,
        }),
      )
    expect((await create('t', spec('a'))).errorName).toBe('TABLE_NOT_PARTITIONED_EXCEPTION')
    expect((await create('p', { partitionKeyValues: [{ key: 'x', value: 'a' }] })).errorName).toBe(
      'PARTITION_SPEC_INVALID_EXCEPTION',
    )
    expect((await create('p', spec('__reserved'))).errorName).toBe('PARTITION_SPEC_INVALID_EXCEPTION')
    expect((await create('zz', spec('a'))).errorName).toBe('TABLE_NOT_EXIST')
    const drop = failure(
      client.request('DROP_PARTITION', {
        tablePath: path('p'),
        partitionSpec: spec('a'),
        ignoreIfNotExists: false,
      }),
    )
    expect((await drop).errorName).toBe('PARTITION_NOT_EXISTS')
  })
})
