import { beforeEach, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { databaseDescriptor, resolvedPartitionSpec } from '../metadata/index.js'
import { MemoryMetaStore } from '../metastore/index.js'
import { testLogTable } from '../testing/test-tables.js'
import { Catalog } from './catalog.js'
import { deletePartitionItems } from './item-cleanup.js'
import { type CreatePartitionRequest, createPartition, dropPartition } from './partition-ddl.js'
import { createDatabase, createTable } from './table-ddl.js'
import type { TableRecord } from './table-items.js'

let catalog: Catalog
let table: TableRecord

async function rejects(p: Promise<unknown>): Promise<FlussError> {
  const e = await p.then(
    () => undefined,
    err => err,
  )
  if (!(e instanceof FlussError)) throw new Error(`expected a FlussError, got ${String(e)}`)
  return e
}

const spec = (dt: string) => resolvedPartitionSpec(['dt'], [dt])
const request = (dt: string, more: Partial<CreatePartitionRequest> = {}): CreatePartitionRequest => ({
  table,
  spec: spec(dt),
  assignment: [[1], [2]],
  coordinatorEpoch: 3,
  ignoreIfExists: false,
  maxPartitionNum: 10,
  maxBucketNum: 100,
  ...more,
})

beforeEach(async () => {
  catalog = new Catalog(new MemoryMetaStore(), { nowMs: () => 1 })
  await createDatabase(catalog, 'db', databaseDescriptor(), false)
  const created = await createTable(catalog, {
    tablePath: { databaseName: 'db', tableName: 'p' },
    descriptor: testLogTable(2, 1, ['dt']),
    coordinatorEpoch: 3,
    ignoreIfExists: false,
  })
  table = created?.table as TableRecord
})

describe('partition DDL', () => {
  it('creates a READY partition with its buckets; the table itself has none', async () => {
    const created = await createPartition(catalog, request('20240101'))
    expect(created?.partition).toMatchObject({ partitionName: '20240101', state: 'READY', partitionId: 0 })
    expect(created?.partition.spec).toEqual(spec('20240101'))
    expect(await catalog.listBuckets(table.tableId, null)).toEqual([])
    const buckets = await catalog.listBuckets(table.tableId, 0)
    expect(buckets.map(b => [b.ref, b.leaderAndIsr.leader])).toEqual([
      [{ tableId: table.tableId, partitionId: 0, bucket: 0 }, 1],
      [{ tableId: table.tableId, partitionId: 0, bucket: 1 }, 2],
    ])
    expect((await catalog.listPartitions(table.tableId)).map(p => p.partitionName)).toEqual(['20240101'])
  })

  it('refuses a duplicate unless ignored', async () => {
    await createPartition(catalog, request('a'))
    const e = await rejects(createPartition(catalog, request('a')))
    expect(e.errorName).toBe('PARTITION_ALREADY_EXISTS')
    expect(e.message).toBe("Partition 'dt=a' already exists for table db.p")
    expect(await createPartition(catalog, request('a', { ignoreIfExists: true }))).toBeUndefined()
  })

  it('enforces max.partition.num and the total bucket limit', async () => {
    await createPartition(catalog, request('a'))
    const tooMany = await rejects(createPartition(catalog, request('b', { maxPartitionNum: 1 })))
    expect(tooMany.errorName).toBe('PARTITION_MAX_NUM_EXCEPTION')
    const tooManyBuckets = await rejects(createPartition(catalog, request('b', { maxBucketNum: 3 })))
    expect(tooManyBuckets.errorName).toBe('BUCKET_MAX_NUM_EXCEPTION')
    expect(tooManyBuckets.message).toContain('would result in 4 total buckets')
  })

  it('drops a partition (invisible at once) and reuses the name for a new partition id', async () => {
    await createPartition(catalog, request('a'))
    const dropped = await dropPartition(catalog, table, spec('a'), false)
    expect(dropped?.state).toBe('DROPPED')
    expect(await catalog.listPartitions(table.tableId)).toEqual([])
    expect((await rejects(dropPartition(catalog, table, spec('a'), false))).errorName).toBe(
      'PARTITION_NOT_EXISTS',
    )
    expect(await dropPartition(catalog, table, spec('a'), true)).toBeUndefined()
    const again = await createPartition(catalog, request('a'))
    expect(again?.partition.partitionId).toBe(1)
    expect(again?.replaced?.partitionId).toBe(0)
    // The old partition's cleanup removes its buckets but leaves the reused item alone.
    await deletePartitionItems(catalog.store, again?.replaced as NonNullable<typeof dropped>, 2)
    expect(await catalog.listBuckets(table.tableId, 0)).toEqual([])
    expect((await catalog.listBuckets(table.tableId, 1)).length).toBe(2)
    expect((await catalog.getPartition(table.tableId, 'a'))?.partitionId).toBe(1)
  })
})
