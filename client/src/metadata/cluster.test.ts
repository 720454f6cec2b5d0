import type { MetadataResponse } from '@sluice/core/rpc'
import { describe, expect, it } from 'vitest'
import { Cluster } from './cluster.js'

const node = (nodeId: number) => ({
  nodeId,
  host: '127.0.0.1',
  port: 9000 + nodeId,
  listeners: null,
  rack: null,
})
const bucket = (bucketId: number, leaderId: number | null) => ({
  bucketId,
  leaderId,
  replicaId: [1, 2],
  leaderEpoch: 3,
  isrId: [] as number[],
})

const response: MetadataResponse = {
  coordinatorServer: node(0),
  tabletServers: [node(1), node(2)],
  tableMetadata: [
    {
      tablePath: { databaseName: 'db', tableName: 't' },
      tableId: 10,
      schemaId: 2,
      tableJson: Buffer.alloc(0),
      bucketMetadata: [bucket(0, 1), { ...bucket(1, 2), isrId: [2] }, bucket(2, null)],
      createdTime: 0,
      modifiedTime: 0,
    },
    {
      tablePath: { databaseName: 'db', tableName: 'p' },
      tableId: 11,
      schemaId: 1,
      tableJson: Buffer.alloc(0),
      bucketMetadata: [],
      createdTime: 0,
      modifiedTime: 0,
    },
  ],
  partitionMetadata: [{ tableId: 11, partitionName: '2024', partitionId: 7, bucketMetadata: [bucket(0, 2)] }],
}

describe('Cluster', () => {
  const cluster = Cluster.EMPTY.withMetadata(response)

  it('knows servers, tables, partitions and bucket leaders from a metadata answer', () => {
    expect(cluster.coordinator).toEqual({ id: 0, host: '127.0.0.1', port: 9000, role: 'coordinator' })
    expect(cluster.node(2)).toMatchObject({ port: 9002, role: 'tablet' })
    expect(cluster.tableId({ databaseName: 'db', tableName: 't' })).toBe(10)
    expect(cluster.schemaId({ databaseName: 'db', tableName: 't' })).toBe(2)
    expect(cluster.tablePath(11)).toEqual({ databaseName: 'db', tableName: 'p' })
    expect(cluster.leaderFor({ tableId: 10, bucket: 1 })?.id).toBe(2)
    expect(cluster.bucketLocation({ tableId: 10, bucket: 0 })).toEqual({
      bucket: 0,
      leader: 1,
      leaderEpoch: 3,
      replicas: [1, 2],
    })
    // The ISR when the server sends it (Sluice), nothing when it does not (Fluss).
    expect(cluster.bucketLocation({ tableId: 10, bucket: 1 })).toEqual({
      bucket: 1,
      leader: 2,
      leaderEpoch: 3,
      replicas: [1, 2],
      isr: [2],
    })
    expect(cluster.leaderFor({ tableId: 10, bucket: 2 })).toBeUndefined()
    expect(cluster.availableBuckets(10)).toEqual([0, 1])
    expect(cluster.partitionId(11, '2024')).toBe(7)
    expect(cluster.partitionName(7)).toBe('2024')
    expect(cluster.leaderFor({ tableId: 11, partitionId: 7, bucket: 0 })?.id).toBe(2)
    expect(cluster.availableBuckets(11, 7)).toEqual([0])
    expect(cluster.availableBuckets(11)).toEqual([])
  })

  it('forgets bucket locations, tables and keeps the rest', () => {
    const withoutT = cluster.withoutBuckets(10)
    expect(withoutT.leaderFor({ tableId: 10, bucket: 0 })).toBeUndefined()
    expect(withoutT.tableId({ databaseName: 'db', tableName: 't' })).toBe(10)
    expect(withoutT.leaderFor({ tableId: 11, partitionId: 7, bucket: 0 })?.id).toBe(2)
    const withoutPartition = cluster.withoutBuckets(11, 7)
    expect(withoutPartition.leaderFor({ tableId: 11, partitionId: 7, bucket: 0 })).toBeUndefined()
    expect(withoutPartition.partitionId(11, '2024')).toBe(7)
    const dropped = cluster.withoutTable({ databaseName: 'db', tableName: 'p' })
    expect(dropped.partitionId(11, '2024')).toBeUndefined()
    expect(dropped.tableId({ databaseName: 'db', tableName: 'p' })).toBeUndefined()
    // The original snapshot is unchanged.
    expect(cluster.leaderFor({ tableId: 10, bucket: 0 })?.id).toBe(1)
  })

  it('keeps the known servers when an answer lists none, and ignores leaders not among them', () => {
    const next = cluster.withMetadata({
      ...response,
      coordinatorServer: null,
      tabletServers: [],
      tableMetadata: [],
      partitionMetadata: [],
    })
    expect(next.tabletServers.size).toBe(2)
    expect(next.coordinator?.id).toBe(0)
    const shrunk = cluster.withMetadata({ ...response, tabletServers: [node(1)] })
    expect(shrunk.leaderFor({ tableId: 10, bucket: 1 })).toBeUndefined()
    expect(shrunk.availableBuckets(10)).toEqual([0])
  })
})
