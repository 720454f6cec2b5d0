import { describe, expect, it } from 'vitest'
import type { FlussError } from '../errors/index.js'
import { databaseDescriptor, resolvedPartitionSpec } from '../metadata/index.js'
import {
  kvSnapshotHeadKey,
  kvSnapshotKey,
  lakeKey,
  MemoryMetaStore,
  remoteLogKey,
  tableItemsPk,
} from '../metastore/index.js'
import type { ApiRequest } from '../rpc/index.js'
import { testLogTable } from '../testing/test-tables.js'
import { readOnlyAdminHandlers } from './admin-handlers.js'
import { Catalog } from './catalog.js'
import { deletePartitionItems } from './item-cleanup.js'
import { decodeLakeOffsets, fileSystemSecurityToken, readLakeOffsets } from './lake-offsets.js'
import { createPartition } from './partition-ddl.js'
import { queryAll } from './query-all.js'
import { createDatabase, createTable } from './table-ddl.js'
import type { TableRecord } from './table-items.js'

async function setup(cacheTtlMs = 0) {
  const store = new MemoryMetaStore()
  const writer = new Catalog(store)
  await createDatabase(writer, 'db', databaseDescriptor(), false)
  const created = await createTable(writer, {
    tablePath: { databaseName: 'db', tableName: 't' },
    descriptor: testLogTable(2, 1, ['dt']),
    coordinatorEpoch: 1,
    ignoreIfExists: false,
  })
  const table = created?.table as TableRecord
  const reader = new Catalog(store, { cacheTtlMs, cacheMaxEntries: 100 })
  return { store, writer, reader, table }
}

const tablePath = { databaseName: 'db', tableName: 't' }
const lakeRequest = (
  extra: Partial<ApiRequest<'GET_LAKE_SNAPSHOT'>> = {},
): ApiRequest<'GET_LAKE_SNAPSHOT'> => ({
  tablePath,
  snapshotId: null,
  readable: null,
  ...extra,
})

async function codeOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'ok',
    (e: FlussError) => e.errorName,
  )
}

describe('GET_LAKE_SNAPSHOT from the tiering item', () => {
  it('answers LAKE_SNAPSHOT_NOT_EXIST before the first tiering round', async () => {
    const { reader } = await setup()
    const handlers = readOnlyAdminHandlers(reader)
    expect(await codeOf(handlers.GET_LAKE_SNAPSHOT(lakeRequest(), {} as never) as Promise<unknown>)).toBe(
      'LAKE_SNAPSHOT_NOT_EXIST',
    )
  })

  it('answers table id, snapshot id and each bucket tiered end offset; other snapshot ids do not exist', async () => {
    const { store, reader, table } = await setup()
    const { pk, sk } = lakeKey(table.tableId)
    await store.put(
      pk,
      sk,
      {
        format: 1,
        tieringEpoch: 3,
        lastSnapshotId: '9007199254740993',
        tieredOffsets: [
          { partitionId: 7, partitionName: '2024', bucket: 0, offset: 120 },
          { partitionId: 7, partitionName: '2024', bucket: 1, offset: 0 },
        ],
      },
      { version: 'absent' },
    )
    const offsets = await readLakeOffsets(store, table.tableId)
    expect(offsets.snapshotId).toBe(9007199254740993n)
    const handlers = readOnlyAdminHandlers(reader)
    await store.put(
      pk,
      sk,
      { format: 1, lastSnapshotId: '42', tieredOffsets: offsets.tieredOffsets.map(o => ({ ...o })) },
      { version: 1 },
    )
    expect(await handlers.GET_LAKE_SNAPSHOT(lakeRequest(), {} as never)).toEqual({
      tableId: table.tableId,
      snapshotId: 42,
      bucketSnapshots: [
        { bucketId: 0, logOffset: 120, partitionId: 7 },
        { bucketId: 1, logOffset: 0, partitionId: 7 },
      ],
    })
    expect(await handlers.GET_LAKE_SNAPSHOT(lakeRequest({ snapshotId: 42 }), {} as never)).toMatchObject({
      snapshotId: 42,
    })
    expect(
      await codeOf(
        Promise.resolve().then(() =>
          handlers.GET_LAKE_SNAPSHOT(lakeRequest({ snapshotId: 41 }), {} as never),
        ),
      ),
    ).toBe('LAKE_SNAPSHOT_NOT_EXIST')
    expect(
      await codeOf(
        Promise.resolve().then(() =>
          handlers.GET_LAKE_SNAPSHOT(lakeRequest({ snapshotId: 42, readable: true }), {} as never),
        ),
      ),
    ).toBe('INVALID_REQUEST')
    expect(
      await codeOf(
        Promise.resolve().then(() =>
          handlers.GET_LAKE_SNAPSHOT(
            lakeRequest({ tablePath: { databaseName: 'db', tableName: 'nope' } }),
            {} as never,
          ),
        ),
      ),
    ).toBe('TABLE_NOT_EXIST')
  })

  it('refuses a corrupt tiering item with a typed error', async () => {
    const { store, table } = await setup()
    const { pk, sk } = lakeKey(table.tableId)
    await store.put(pk, sk, { format: 1, lastSnapshotId: 'x1', tieredOffsets: [] }, { version: 'absent' })
    expect(await codeOf(readLakeOffsets(store, table.tableId))).toBe('CORRUPT_MESSAGE')
    const item = { pk, sk, version: 1, value: { format: 1, tieredOffsets: [{ bucket: -1, offset: 2 }] } }
    expect(() => decodeLakeOffsets(item)).toThrow(/invalid entry/)
  })
})

describe('GET_FILESYSTEM_SECURITY_TOKEN', () => {
  it('names the remote scheme with an empty token and no expiry, as Fluss does without credentials', async () => {
    expect(fileSystemSecurityToken('file:///data/remote')).toEqual({
      schema: 'file',
      token: new Uint8Array(0),
      additionInfo: [],
    })
    expect(fileSystemSecurityToken('s3://bucket/prefix').schema).toBe('s3')
    expect(fileSystemSecurityToken('/plain/path').schema).toBe('file')
    const { reader } = await setup()
    const answer = await readOnlyAdminHandlers(reader, {
      remoteDataDir: 'S3://b',
    }).GET_FILESYSTEM_SECURITY_TOKEN({}, {} as never)
    expect(answer).toEqual({ schema: 's3', token: new Uint8Array(0), additionInfo: [] })
  })
})

describe('a cached catalog never reports a just-created table or partition missing', () => {
  it('finds a partition created after it cached the table and a miss', async () => {
    const { writer, reader, table } = await setup(60_000)
    expect(await reader.getTable(tablePath)).toBeDefined()
    expect(await reader.getPartition(table.tableId, '2024')).toBeUndefined()
    expect(await reader.listPartitions(table.tableId)).toEqual([])
    const created = await createPartition(writer, {
      table,
      spec: resolvedPartitionSpec(['dt'], ['2024']),
      assignment: [[1], [1]],
      coordinatorEpoch: 1,
      ignoreIfExists: false,
      maxPartitionNum: 10,
      maxBucketNum: 10,
    })
    expect((await reader.getPartition(table.tableId, '2024'))?.partitionId).toBe(
      created?.partition.partitionId,
    )
    const handlers = readOnlyAdminHandlers(reader)
    const listed = await handlers.LIST_PARTITION_INFOS({ tablePath, partialPartitionSpec: null }, {} as never)
    expect(listed.partitionsInfo?.map(p => p.partitionId)).toEqual([created?.partition.partitionId])
  })

  it('finds a table created after a miss', async () => {
    const { writer, reader } = await setup(60_000)
    const path = { databaseName: 'db', tableName: 'later' }
    expect(await reader.getTable(path)).toBeUndefined()
    await createTable(writer, {
      tablePath: path,
      descriptor: testLogTable(1, 1),
      coordinatorEpoch: 1,
      ignoreIfExists: false,
    })
    expect((await reader.getTable(path))?.tablePath).toEqual(path)
  })
})

describe('deletePartitionItems', () => {
  it('deletes the KV snapshot head with the snapshots, remote log and bucket items', async () => {
    const { store, writer, table } = await setup()
    const created = await createPartition(writer, {
      table,
      spec: resolvedPartitionSpec(['dt'], ['2025']),
      assignment: [[1], [1]],
      coordinatorEpoch: 1,
      ignoreIfExists: false,
      maxPartitionNum: 10,
      maxBucketNum: 10,
    })
    const partition = created?.partition as NonNullable<typeof created>['partition']
    for (const bucket of [0, 1]) {
      const ref = { tableId: table.tableId, partitionId: partition.partitionId, bucket }
      for (const key of [kvSnapshotHeadKey(ref), kvSnapshotKey(ref, 1), remoteLogKey(ref)])
        await store.put(key.pk, key.sk, { format: 1 }, { version: 'absent' })
    }
    await deletePartitionItems(store, partition, 2)
    const left = await queryAll(store, tableItemsPk(table.tableId), '')
    expect(left.map(i => i.sk).filter(sk => !sk.startsWith('TABLE') && !sk.startsWith('SCHEMA'))).toEqual([])
  })
})
