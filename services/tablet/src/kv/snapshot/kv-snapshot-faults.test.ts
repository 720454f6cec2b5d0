import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import { afterEach, describe, expect, it } from 'vitest'
import { rowsOfKv, rowsOfRocksDb, SNAPSHOT_TEST_BUCKET, SnapshotTestBed } from '../../testing/kv-snapshot.js'

let bed: SnapshotTestBed
let scratch: string | undefined

afterEach(async () => {
  await bed?.close()
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true })
  scratch = undefined
})

async function restoredRows(): Promise<string[]> {
  scratch ??= await mkdtemp(join(tmpdir(), 'sluice-kv-restore-'))
  const dir = join(scratch, `kv-${Math.random()}`)
  await bed.store.restoreLatest(SNAPSHOT_TEST_BUCKET, dir)
  return (await rowsOfRocksDb(dir)).rows
}

/** Registry and BlobStore agree: every object is listed by a committed snapshot, and every listed file exists. */
async function expectConsistent(): Promise<void> {
  const committed = await bed.committed()
  const listed = new Set(committed.flatMap(s => s.files.map(f => f.key)))
  expect(new Set(await bed.blobKeys())).toEqual(listed)
  expect(await bed.registry.listIds(SNAPSHOT_TEST_BUCKET)).toEqual(committed.map(s => s.snapshotId))
}

const HOUR_MS = 3_600_000

describe('KV snapshots under faults', () => {
  it('retries BlobStore errors with backoff and commits', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 200, 1n)
    await bed.acknowledge()
    bed.blobStore.faults.inject({ ops: ['upload'], times: 3 })
    const snapshotter = bed.snapshotter()
    const result = await snapshotter.snapshotNow()
    expect(result.status).toBe('committed')
    expect(snapshotter.stats().retries).toBe(3)
    await expectConsistent()
    expect(await restoredRows()).toEqual(bed.expectedRows())
  })

  it('fails the run (not puts or lookups) while the BlobStore is down, discards its uploads, and recovers', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 200, 1n)
    await bed.acknowledge()
    bed.blobStore.faults.inject({ ops: ['upload'], skip: 1 })
    const snapshotter = bed.snapshotter({ retry: { maxAttempts: 2 } })
    const failing = snapshotter.snapshotNow()
    await bed.upsert(200, 260, 2n)
    await bed.acknowledge()
    expect(await bed.kv.lookup([bed.batches.key(['k210', null, null])])).not.toEqual([null])
    const result = await failing
    expect(result.status).toBe('failed')
    expect(result.error?.code).toBe(new FlussError('STORAGE_EXCEPTION', '').code)
    expect(snapshotter.stats()).toMatchObject({ failures: 1, committed: 0 })
    expect(snapshotter.stats().lastError).toMatch(/injected failure of upload/)
    expect(await bed.blobKeys()).toEqual([])
    bed.blobStore.faults.clear()
    expect((await snapshotter.snapshotNow()).status).toBe('committed')
    await expectConsistent()
    expect(await restoredRows()).toEqual(bed.expectedRows())
    expect(await rowsOfKv(bed.kv)).toEqual(bed.expectedRows())
  })

  it('fences a deposed leader: its commit fails, its uploads and item are deleted', async () => {
    bed = await SnapshotTestBed.open()
    const fencedBy: string[] = []
    const old = bed.snapshotter({ leaderEpoch: 3, onFenced: e => fencedBy.push(e.message) })
    await bed.upsert(0, 100, 1n)
    await bed.acknowledge()
    expect((await old.snapshotNow()).status).toBe('committed')
    // A new leader (epoch 4) takes over and snapshots; the old one still runs with its cached head.
    await bed.upsert(100, 150, 2n)
    await bed.acknowledge()
    const leader = bed.snapshotter({ leaderEpoch: 4 })
    expect((await leader.snapshotNow()).status).toBe('committed')
    await bed.upsert(150, 200, 3n)
    await bed.acknowledge()
    const result = await old.snapshotNow()
    expect(result.status).toBe('fenced')
    expect(result.error?.is('FENCED_LEADER_EPOCH_EXCEPTION')).toBe(true)
    expect(fencedBy).toHaveLength(1)
    expect(old.stats().fenced).toBe(true)
    expect((await old.snapshotNow()).status).toBe('skipped')
    const committed = await bed.committed()
    expect(committed.map(s => [s.snapshotId, s.leaderEpoch])).toEqual([
      [0, 3],
      [1, 4],
    ])
    await expectConsistent()
  })

  it('fences a deposed leader at claim time, before it uploads anything', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 100, 1n)
    await bed.acknowledge()
    expect((await bed.snapshotter({ leaderEpoch: 5 }).snapshotNow()).status).toBe('committed')
    await bed.upsert(100, 120, 1n)
    await bed.acknowledge()
    const uploads = bed.blobStore.faults.count('upload')
    const result = await bed.snapshotter({ leaderEpoch: 4 }).snapshotNow()
    expect(result.status).toBe('fenced')
    expect(bed.blobStore.faults.count('upload')).toBe(uploads)
    await expectConsistent()
  })

  it('after a kill during an upload, the next leader sweeps the partial upload and commits', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 300, 1n)
    await bed.acknowledge()
    expect((await bed.snapshotter().snapshotNow()).status).toBe('committed')
    await bed.upsert(300, 400, 2n)
    await bed.acknowledge()
    // The process dies while uploading the second file: nothing after that point ever runs.
    const uploads = bed.blobStore.faults.count('upload')
    bed.blobStore.faults.inject({ ops: ['upload'], skip: 1, mode: 'hang' })
    void bed.snapshotter({ transferConcurrency: 1 }).snapshotNow()
    await until(() => bed.blobStore.faults.count('upload') >= uploads + 2)
    bed.blobStore.faults.clear()
    const leftovers = (await bed.blobKeys()).length
    bed.nowMs += 2 * HOUR_MS
    const next = bed.snapshotter({ leaderEpoch: 2 })
    expect((await next.snapshotNow()).status).toBe('committed')
    expect(next.stats().orphansDeleted).toBeGreaterThan(0)
    expect(leftovers).toBeGreaterThan(0)
    await expectConsistent()
    expect(await restoredRows()).toEqual(bed.expectedRows())
  })

  it('after a kill between the snapshot item and the head commit, the item and its files are deleted', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 300, 1n)
    await bed.acknowledge()
    expect((await bed.snapshotter().snapshotNow()).status).toBe('committed')
    await bed.upsert(300, 350, 2n)
    await bed.acknowledge()
    const puts = bed.metaStore.faults.count('put')
    bed.metaStore.faults.inject({ ops: ['put'], keyIncludes: 'KVSNAPHEAD', mode: 'hang' })
    void bed.snapshotter().snapshotNow()
    await until(() => bed.metaStore.faults.count('put') >= puts + 2)
    bed.metaStore.faults.clear()
    expect(await bed.registry.listIds(SNAPSHOT_TEST_BUCKET)).toEqual([0, 1])
    expect((await bed.committed()).map(s => s.snapshotId)).toEqual([0])
    const next = bed.snapshotter({ leaderEpoch: 2 })
    const result = await next.snapshotNow()
    expect(result.status).toBe('committed')
    expect(result.snapshot?.snapshotId).toBe(2)
    await expectConsistent()
    expect(await restoredRows()).toEqual(bed.expectedRows())
  })

  it('a head write that timed out after landing counts as committed', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 100, 1n)
    await bed.acknowledge()
    const snapshotter = bed.snapshotter()
    expect((await snapshotter.snapshotNow()).status).toBe('committed')
    await bed.upsert(100, 120, 1n)
    await bed.acknowledge()
    bed.metaStore.faults.inject({
      ops: ['put'],
      keyIncludes: 'KVSNAPHEAD',
      mode: 'apply-then-fail',
      times: 1,
    })
    const result = await snapshotter.snapshotNow()
    expect(result.status).toBe('committed')
    expect((await bed.committed()).map(s => s.snapshotId)).toEqual([0, 1])
    await expectConsistent()
  })

  it('a snapshot item write that timed out after landing is recognised as its own', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 100, 1n)
    await bed.acknowledge()
    bed.metaStore.faults.inject({ ops: ['put'], keyIncludes: 'KVSNAP#', mode: 'apply-then-fail', times: 1 })
    const result = await bed.snapshotter().snapshotNow()
    expect(result.status).toBe('committed')
    await expectConsistent()
  })

  it('deletes every snapshot of a dropped bucket, also after an interrupted delete', async () => {
    bed = await SnapshotTestBed.open()
    const snapshotter = bed.snapshotter()
    for (const v of [1n, 2n, 3n]) {
      await bed.upsert(0, 100, v)
      await bed.acknowledge()
      await snapshotter.snapshotNow()
    }
    await snapshotter.stop()
    bed.metaStore.faults.inject({
      ops: ['delete'],
      keyIncludes: 'KVSNAP#',
      skip: 1,
      error: () => new FlussError('INVALID_REQUEST', 'boom'),
    })
    await expect(bed.store.deleteAll(SNAPSHOT_TEST_BUCKET)).rejects.toThrow(/boom/)
    bed.metaStore.faults.clear()
    expect(await bed.blobKeys()).toEqual([])
    await bed.store.deleteAll(SNAPSHOT_TEST_BUCKET)
    expect(await bed.registry.listIds(SNAPSHOT_TEST_BUCKET)).toEqual([])
    expect(await bed.registry.loadHead(SNAPSHOT_TEST_BUCKET)).toBeNull()
    expect(await bed.store.latest(SNAPSHOT_TEST_BUCKET)).toBeNull()
  })
})

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise(resolve => setTimeout(resolve, 10))
  expect(condition()).toBe(true)
}
