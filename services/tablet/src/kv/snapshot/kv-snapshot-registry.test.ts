import { Configuration } from '@sluice/core/config'
import { MemoryMetaStore } from '@sluice/core/metastore'
import { describe, expect, it } from 'vitest'
import { KvSnapshotRegistry } from './kv-snapshot-registry.js'
import type { KvSnapshot } from './kv-snapshot-types.js'
import { kvSnapshotSettings } from './kv-snapshotter-options.js'
import {
  ADVERTISE_KV_SNAPSHOTS_TO_CLIENTS,
  kvSnapshotMetadata,
  kvSnapshotsForClients,
  latestKvSnapshots,
} from './latest-kv-snapshots.js'

const bucket = { tableId: 3, bucket: 1 }

function snapshot(snapshotId: number, logOffset: number, leaderEpoch = 1): KvSnapshot {
  return {
    snapshotId,
    logOffset,
    rowCount: 10,
    leaderEpoch,
    createdAtMs: 1000,
    files: [
      {
        key: `kv-snapshots/3/_/1/shared/u-00000${snapshotId}.sst`,
        name: `00000${snapshotId}.sst`,
        size: 9,
        crc32c: 1,
        role: 'shared',
      },
      {
        key: `kv-snapshots/3/_/1/${snapshotId}/u-CURRENT`,
        name: 'CURRENT',
        size: 16,
        crc32c: 2,
        role: 'private',
      },
    ],
  }
}

async function commit(registry: KvSnapshotRegistry, snapshots: KvSnapshot[], retained: number[], epoch = 1) {
  for (const s of snapshots) await registry.put(bucket, s)
  const stored = await registry.loadHead(bucket)
  const next = Math.max(...snapshots.map(s => s.snapshotId)) + 1
  return registry.putHead(bucket, { leaderEpoch: epoch, nextSnapshotId: next, retained }, stored)
}

describe('KvSnapshotRegistry', () => {
  it('commits through the head: only listed items count', async () => {
    const registry = new KvSnapshotRegistry(new MemoryMetaStore())
    expect(await registry.latest(bucket)).toBeNull()
    await commit(registry, [snapshot(0, 100), snapshot(1, 200), snapshot(2, 300)], [0, 1])
    expect((await registry.latest(bucket))?.snapshotId).toBe(1)
    expect(await registry.listIds(bucket)).toEqual([0, 1, 2])
    const stored = await registry.loadHead(bucket)
    expect((await registry.retained(bucket, stored!.head)).map(s => s.logOffset)).toEqual([100, 200])
  })

  it('fences the head on version and leader epoch, and snapshot items on absence', async () => {
    const store = new MemoryMetaStore()
    const registry = new KvSnapshotRegistry(store)
    const first = await commit(registry, [snapshot(0, 100, 5)], [0], 5)
    const older = { leaderEpoch: 4, nextSnapshotId: 2, retained: [0] }
    await expect(registry.putHead(bucket, older, first)).rejects.toMatchObject({ code: 1000 })
    await expect(registry.putHead(bucket, older, null)).rejects.toMatchObject({ code: 1000 })
    const newer = await registry.putHead(bucket, { leaderEpoch: 6, nextSnapshotId: 1, retained: [0] }, first)
    await expect(
      registry.putHead(bucket, { leaderEpoch: 6, nextSnapshotId: 2, retained: [0] }, first),
    ).rejects.toMatchObject({ code: 1000 })
    expect(newer.version).toBe(first.version + 1)
    await expect(registry.put(bucket, snapshot(0, 999))).rejects.toMatchObject({ code: 1000 })
    expect((await registry.get(bucket, 0))?.logOffset).toBe(100)
  })

  it('deletes items whatever their version, and missing ones quietly', async () => {
    const registry = new KvSnapshotRegistry(new MemoryMetaStore())
    await registry.put(bucket, snapshot(4, 10))
    await registry.delete(bucket, 4)
    await registry.delete(bucket, 4)
    expect(await registry.listIds(bucket)).toEqual([])
  })

  it('reports a head that lists a missing item as KV_STORAGE_EXCEPTION', async () => {
    const registry = new KvSnapshotRegistry(new MemoryMetaStore())
    await registry.putHead(bucket, { leaderEpoch: 1, nextSnapshotId: 3, retained: [2] }, null)
    await expect(registry.latest(bucket)).rejects.toMatchObject({ code: 11, message: /lists snapshot 2/ })
  })
})

describe('GetLatestKvSnapshots and GetKvSnapshotMetadata data', () => {
  it('lists every bucket with its newest committed snapshot', async () => {
    const store = new MemoryMetaStore()
    const registry = new KvSnapshotRegistry(store)
    await commit(registry, [snapshot(0, 100), snapshot(1, 200)], [0])
    expect(await latestKvSnapshots(store, 3, null, 3)).toEqual([
      { bucketId: 0, snapshotId: null, logOffset: null },
      { bucketId: 1, snapshotId: 0, logOffset: 100 },
      { bucketId: 2, snapshotId: null, logOffset: null },
    ])
    expect(await latestKvSnapshots(store, 3, 77, 2)).toEqual([
      { bucketId: 0, snapshotId: null, logOffset: null },
      { bucketId: 1, snapshotId: null, logOffset: null },
    ])
  })

  it('does not advertise snapshot ids to clients', async () => {
    expect(ADVERTISE_KV_SNAPSHOTS_TO_CLIENTS).toBe(false)
    expect(kvSnapshotsForClients([{ bucketId: 1, snapshotId: 4, logOffset: 9 }])).toEqual([{ bucketId: 1 }])
  })

  it('gives the files of a committed snapshot under the remote data dir', async () => {
    const store = new MemoryMetaStore()
    const registry = new KvSnapshotRegistry(store)
    await commit(registry, [snapshot(0, 100), snapshot(1, 200)], [0])
    expect(await kvSnapshotMetadata(store, bucket, 0, 's3://data/root/')).toEqual({
      logOffset: 100,
      snapshotFiles: [
        { remotePath: 's3://data/root/kv-snapshots/3/_/1/shared/u-000000.sst', localFileName: '000000.sst' },
        { remotePath: 's3://data/root/kv-snapshots/3/_/1/0/u-CURRENT', localFileName: 'CURRENT' },
      ],
    })
    for (const id of [1, 5]) {
      await expect(kvSnapshotMetadata(store, bucket, id, 's3://data')).rejects.toMatchObject({ code: 41 })
    }
  })
})

describe('kvSnapshotSettings', () => {
  it('reads kv.snapshot.interval and kv.snapshot.num-retained (defaults 10 min and 2)', () => {
    expect(kvSnapshotSettings(new Configuration({}))).toEqual({ intervalMs: 600_000, numRetained: 2 })
    expect(
      kvSnapshotSettings(
        new Configuration({ 'kv.snapshot.interval': '30s', 'kv.snapshot.num-retained': '5' }),
      ),
    ).toEqual({
      intervalMs: 30_000,
      numRetained: 5,
    })
  })
})
