import { describe, expect, it } from 'vitest'
import {
  decodeKvSnapshot,
  decodeKvSnapshotHead,
  encodeKvSnapshot,
  encodeKvSnapshotHead,
  type KvSnapshot,
} from './kv-snapshot-types.js'

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
