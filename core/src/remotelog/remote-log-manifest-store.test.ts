import { beforeEach, describe, expect, it } from 'vitest'
import { MemoryBlobStore } from '../blobstore/index.js'
import { tableBucket } from '../metadata/index.js'
import { MemoryMetaStore, remoteLogKey } from '../metastore/index.js'
import { newRemoteId } from './remote-id.js'
import type { RemoteLogSegmentEntry } from './remote-log-manifest.js'
import { RemoteLogManifestStore } from './remote-log-manifest-store.js'

const NOW = 1_700_000_000_000
const BUCKET = tableBucket(7, 0)

function entry(baseOffset: number, endOffset: number): RemoteLogSegmentEntry {
  return {
    segmentId: newRemoteId(NOW),
    baseOffset,
    endOffset,
    maxTimestamp: NOW,
    sizeInBytes: 100,
    hasWriterSnapshot: true,
  }
}

let meta: MemoryMetaStore
let blob: MemoryBlobStore

function store(inlineBytesMax = 64 * 1024): RemoteLogManifestStore {
  return new RemoteLogManifestStore(meta, blob, { inlineBytesMax, nowMs: () => NOW })
}

async function blobKeys(): Promise<string[]> {
  return (await blob.list('')).items.map(i => i.key)
}

beforeEach(() => {
  meta = new MemoryMetaStore()
  blob = new MemoryBlobStore()
})

describe('RemoteLogManifestStore', () => {
  it('starts empty, commits inline and reads back what it committed', async () => {
    const s = store()
    const empty = await s.load(BUCKET)
    expect(empty).toMatchObject({ version: 'absent', leaderEpoch: -1, manifestKey: null })
    expect(empty.manifest.tabletPrefix).toBe('remote-log/7/_/0')
    const next = empty.manifest.withAppended([entry(0, 10), entry(10, 20)])
    const committed = await s.commit(BUCKET, empty, next, 3)
    expect(committed).toMatchObject({ version: 1, leaderEpoch: 3, manifestKey: null })
    const { pk, sk } = remoteLogKey(BUCKET)
    const item = await meta.get(pk, sk)
    expect(item?.value).toMatchObject({
      leaderEpoch: 3,
      remoteLogStartOffset: 0,
      remoteLogEndOffset: 20,
      segmentCount: 2,
      remoteSizeInBytes: 200,
    })
    const loaded = await s.load(BUCKET)
    expect(loaded.version).toBe(1)
    expect(loaded.manifest.segments).toEqual(next.segments)
    expect(await blobKeys()).toEqual([])
  })

  it('moves large bodies to the blob store and deletes nothing it still points to', async () => {
    const s = store(0)
    const first = await s.commit(
      BUCKET,
      await s.load(BUCKET),
      (await s.load(BUCKET)).manifest.withAppended([entry(0, 10)]),
      1,
    )
    expect(first.manifestKey).toMatch(/^remote-log\/7\/_\/0\/metadata\/[0-9a-f-]+\.manifest$/)
    expect(await blobKeys()).toEqual([first.manifestKey])
    const second = await s.commit(BUCKET, first, first.manifest.withAppended([entry(10, 20)]), 1)
    expect(second.manifestKey).not.toBe(first.manifestKey)
    const loaded = await s.load(BUCKET)
    expect(loaded.manifestKey).toBe(second.manifestKey)
    expect(loaded.manifest.segments.map(x => x.endOffset)).toEqual([10, 20])
  })

  it('refuses a commit on a stale version and deletes the body written for it', async () => {
    const s = store(0)
    const base = await s.load(BUCKET)
    await s.commit(BUCKET, base, base.manifest.withAppended([entry(0, 10)]), 1)
    const keysBefore = await blobKeys()
    await expect(s.commit(BUCKET, base, base.manifest.withAppended([entry(0, 5)]), 1)).rejects.toMatchObject({
      errorName: 'METASTORE_CONFLICT',
    })
    expect(await blobKeys()).toEqual(keysBefore)
  })

  it('fences a deposed leader: a lower epoch cannot commit even on the current version', async () => {
    const s = store()
    const base = await s.load(BUCKET)
    await s.commit(BUCKET, base, base.manifest.withAppended([entry(0, 10)]), 5)
    const current = await s.load(BUCKET)
    const err = await s
      .commit(BUCKET, current, current.manifest.withAppended([entry(10, 20)]), 4)
      .catch(e => e)
    expect(err).toMatchObject({ errorName: 'METASTORE_CONFLICT' })
    expect(err.current.value.leaderEpoch).toBe(5)
    expect((await s.load(BUCKET)).manifest.remoteLogEndOffset).toBe(10)
    await expect(
      s.commit(BUCKET, current, current.manifest.withAppended([entry(10, 20)]), 6),
    ).resolves.toMatchObject({ version: 2 })
  })

  it('reports corrupt items and missing bodies as LOG_STORAGE_EXCEPTION', async () => {
    const { pk, sk } = remoteLogKey(BUCKET)
    await meta.put(
      pk,
      sk,
      { formatVersion: 1, leaderEpoch: 1, tabletPrefix: 'remote-log/7/_/0', segments: [{ segmentId: 'x' }] },
      { version: 'absent' },
    )
    await expect(store().load(BUCKET)).rejects.toMatchObject({ errorName: 'LOG_STORAGE_EXCEPTION' })
    await meta.put(
      pk,
      sk,
      { formatVersion: 1, leaderEpoch: 1, manifestKey: 'remote-log/7/_/0/metadata/gone.manifest' },
      { version: 1 },
    )
    await expect(store().load(BUCKET)).rejects.toThrow(/missing/)
    await meta.put(
      pk,
      sk,
      { formatVersion: 1, leaderEpoch: 1, tabletPrefix: 'remote-log/8/_/0', segments: [] },
      { version: 2 },
    )
    await expect(store().load(BUCKET)).rejects.toThrow(/expected remote-log\/7\/_\/0/)
  })

  it('deletes the item on the version read', async () => {
    const s = store()
    const base = await s.load(BUCKET)
    const committed = await s.commit(BUCKET, base, base.manifest.withAppended([entry(0, 10)]), 1)
    await s.deleteItem(BUCKET, committed)
    expect((await s.load(BUCKET)).version).toBe('absent')
  })
})
