import { newRemoteId } from '@sluice/core/remotelog'
import { describe, expect, it } from 'vitest'
import {
  kvSnapshotTabletPrefix,
  parseKvSnapshotObjectKey,
  privateFileKey,
  sharedFileKey,
} from './kv-snapshot-paths.js'
import {
  decodeKvSnapshot,
  decodeKvSnapshotHead,
  encodeKvSnapshot,
  encodeKvSnapshotHead,
  type KvSnapshot,
} from './kv-snapshot-types.js'

const id = newRemoteId(1_700_000_000_000)

describe('KV snapshot object keys', () => {
  it('follow kv-snapshots/<tableId>/<partition|_>/<bucket>/{shared,<snapshotId>}/<uploadId>-<file>', () => {
    expect(kvSnapshotTabletPrefix({ tableId: 12, bucket: 3 })).toBe('kv-snapshots/12/_/3')
    const prefix = kvSnapshotTabletPrefix({ tableId: 12, partitionId: 40, bucket: 3 })
    expect(prefix).toBe('kv-snapshots/12/40/3')
    expect(sharedFileKey(prefix, id, '000009.sst')).toBe(`${prefix}/shared/${id}-000009.sst`)
    expect(privateFileKey(prefix, 5, id, 'CURRENT')).toBe(`${prefix}/5/${id}-CURRENT`)
  })

  it('parse back, and refuse keys that are not ours', () => {
    const prefix = 'kv-snapshots/1/_/0'
    expect(parseKvSnapshotObjectKey(prefix, `${prefix}/shared/${id}-000009.sst`)).toEqual({
      uploadId: id,
      fileName: '000009.sst',
      snapshotId: null,
    })
    expect(parseKvSnapshotObjectKey(prefix, `${prefix}/17/${id}-MANIFEST-000005`)).toEqual({
      uploadId: id,
      fileName: 'MANIFEST-000005',
      snapshotId: 17,
    })
    for (const key of [
      `kv-snapshots/1/_/1/shared/${id}-000009.sst`,
      `${prefix}/shared/not-a-uuid-000009.sst`,
      `${prefix}/shared/${id}`,
      `${prefix}/x1/${id}-CURRENT`,
      `${prefix}/1/2/${id}-CURRENT`,
      `${prefix}/shared/${id}_000009.sst`,
    ]) {
      expect(parseKvSnapshotObjectKey(prefix, key)).toBeNull()
    }
  })
})

const snapshot: KvSnapshot = {
  snapshotId: 3,
  logOffset: 1200,
  rowCount: 900,
  leaderEpoch: 2,
  createdAtMs: 1_700_000_000_000,
  files: [
    {
      key: 'kv-snapshots/1/_/0/shared/a-000009.sst',
      name: '000009.sst',
      size: 4096,
      crc32c: 77,
      role: 'shared',
    },
    { key: 'kv-snapshots/1/_/0/3/a-CURRENT', name: 'CURRENT', size: 16, crc32c: 5, role: 'private' },
  ],
}

describe('KV snapshot items', () => {
  it('round-trip', () => {
    expect(decodeKvSnapshot(encodeKvSnapshot(snapshot), 'x')).toEqual(snapshot)
    const head = { leaderEpoch: 4, nextSnapshotId: 9, retained: [7, 8] }
    expect(decodeKvSnapshotHead(encodeKvSnapshotHead(head), 'x')).toEqual(head)
  })

  it('refuse corrupt values with KV_STORAGE_EXCEPTION', () => {
    const good = encodeKvSnapshot(snapshot)
    const corrupt = [
      { ...good, logOffset: -1 },
      { ...good, snapshotId: 'x' },
      { ...good, files: 'none' },
      { ...good, files: [{ ...snapshot.files[0], role: 'other' }] },
      { ...good, files: [{ ...snapshot.files[0], name: '../etc' }] },
      { ...good, files: [{ ...snapshot.files[0], size: 1.5 }] },
      { ...good, files: [null] },
    ]
    for (const value of corrupt) {
      expect(() => decodeKvSnapshot(value as never, 'item')).toThrow(expect.objectContaining({ code: 11 }))
    }
    for (const head of [
      { leaderEpoch: 1, nextSnapshotId: 3, retained: [2, 1] },
      { leaderEpoch: 1, nextSnapshotId: 3, retained: [3] },
      { leaderEpoch: 1, nextSnapshotId: 3, retained: 'x' },
      { leaderEpoch: -1, nextSnapshotId: 3, retained: [] },
    ]) {
      expect(() => decodeKvSnapshotHead(head as never, 'head')).toThrow(/unreadable/)
    }
  })

  it('refuse a snapshot with more files than an item holds', () => {
    const files = Array.from({ length: 4000 }, (_, i) => ({
      ...snapshot.files[0],
      key: `${snapshot.files[0].key}-${i}`,
    }))
    expect(() => encodeKvSnapshot({ ...snapshot, files })).toThrow(/more than an item holds/)
  })
})
