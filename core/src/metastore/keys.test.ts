import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import {
  autoIncrementKey,
  bucketKey,
  bucketSkPrefix,
  COUNTERS,
  coordinatorKey,
  counterKey,
  databaseKey,
  kvSnapshotKey,
  kvSnapshotSkPrefix,
  lakeKey,
  parseBucketSk,
  parseDatabaseName,
  parseKvSnapshotSk,
  parsePartitionName,
  parseSchemaId,
  parseServerId,
  parseTableId,
  parseTableName,
  partitionKey,
  remoteLogKey,
  schemaKey,
  serverKey,
  tableIdKey,
  tablePathKey,
} from './keys.js'

function code(f: () => unknown): string | undefined {
  try {
    f()
  } catch (e) {
    return e instanceof FlussError ? e.errorName : String(e)
  }
  return undefined
}

describe('keys', () => {
  it('builds the documented shapes', () => {
    expect(coordinatorKey()).toEqual({ pk: 'CLUSTER', sk: 'COORDINATOR' })
    expect(serverKey(3)).toEqual({ pk: 'CLUSTER', sk: 'SERVER#0000000003' })
    expect(counterKey(COUNTERS.tableId)).toEqual({ pk: 'CLUSTER', sk: 'COUNTER#table-id' })
    expect(databaseKey('fluss')).toEqual({ pk: 'CATALOG', sk: 'DB#fluss' })
    expect(tablePathKey('fluss', 'orders')).toEqual({ pk: 'DB#fluss', sk: 'TABLE#orders' })
    expect(tableIdKey(42)).toEqual({ pk: 'TABLE#00000000000000000042', sk: 'TABLE' })
    expect(schemaKey(42, 2)).toEqual({ pk: 'TABLE#00000000000000000042', sk: 'SCHEMA#0000000002' })
    expect(partitionKey(42, '2024$01')).toEqual({ pk: 'TABLE#00000000000000000042', sk: 'PARTITION#2024$01' })
    expect(bucketKey({ tableId: 42, bucket: 7 }).sk).toBe('BUCKET#_#0000000007')
    expect(bucketKey({ tableId: 42, partitionId: 5, bucket: 7 }).sk).toBe(
      'BUCKET#00000000000000000005#0000000007',
    )
    expect(bucketSkPrefix(5)).toBe('BUCKET#00000000000000000005#')
    expect(kvSnapshotKey({ tableId: 1, bucket: 0 }, 9).sk).toBe('KVSNAP#_#0000000000#00000000000000000009')
    expect(kvSnapshotSkPrefix({ tableId: 1, partitionId: null, bucket: 0 })).toBe('KVSNAP#_#0000000000#')
    expect(remoteLogKey({ tableId: 1, partitionId: 2, bucket: 3 }).sk).toBe(
      'REMOTELOG#00000000000000000002#0000000003',
    )
    expect(lakeKey(1)).toEqual({ pk: 'TABLE#00000000000000000001', sk: 'LAKE' })
    expect(autoIncrementKey(1, 3)).toEqual({ pk: 'TABLE#00000000000000000001', sk: 'AUTOINC#0000000003' })
  })

  it('pads numbers so that key order is numeric order', () => {
    const buckets = [10, 2, 2 ** 31 - 1, 0, 100]
    const sks = buckets.map(bucket => bucketKey({ tableId: 1, bucket }).sk).sort()
    expect(sks.map(sk => parseBucketSk(sk).bucket)).toEqual([0, 2, 10, 100, 2 ** 31 - 1])
    const tables = [10, 9, Number.MAX_SAFE_INTEGER, 123_456_789_012].map(t => tableIdKey(t).pk).sort()
    expect(tables.map(parseTableId)).toEqual([9, 10, 123_456_789_012, Number.MAX_SAFE_INTEGER])
  })

  it('parses what it builds', () => {
    expect(parseServerId(serverKey(12).sk)).toBe(12)
    expect(parseDatabaseName(databaseKey('db_1').sk)).toBe('db_1')
    expect(parseTableName(tablePathKey('db', 't-1').sk)).toBe('t-1')
    expect(parseSchemaId(schemaKey(1, 3).sk)).toBe(3)
    expect(parsePartitionName(partitionKey(1, 'p=1').sk)).toBe('p=1')
    expect(parseBucketSk(bucketKey({ tableId: 1, partitionId: 4, bucket: 2 }).sk)).toEqual({
      partitionId: 4,
      bucket: 2,
    })
    expect(parseKvSnapshotSk(kvSnapshotKey({ tableId: 1, bucket: 5 }, 77).sk)).toEqual({
      partitionId: null,
      bucket: 5,
      snapshotId: 77,
    })
  })

  it('refuses ids and names that would break the key order', () => {
    expect(code(() => serverKey(-1))).toBe('INVALID_REQUEST')
    expect(code(() => serverKey(1.5))).toBe('INVALID_REQUEST')
    expect(code(() => serverKey(2 ** 31))).toBe('INVALID_REQUEST')
    expect(code(() => tableIdKey(2 ** 53))).toBe('INVALID_REQUEST')
    expect(code(() => bucketKey({ tableId: 1, partitionId: -3, bucket: 0 }))).toBe('INVALID_REQUEST')
    expect(code(() => tablePathKey('db', 'a#b'))).toBe('INVALID_REQUEST')
    expect(code(() => databaseKey(''))).toBe('INVALID_REQUEST')
    expect(code(() => parseBucketSk('BUCKET#x#0000000001'))).toBe('INVALID_REQUEST')
    expect(code(() => parseBucketSk('SCHEMA#0000000001'))).toBe('INVALID_REQUEST')
    expect(code(() => parseKvSnapshotSk('KVSNAP#_#0000000000'))).toBe('INVALID_REQUEST')
    expect(code(() => parseServerId('SERVER#'))).toBe('INVALID_REQUEST')
  })
})
