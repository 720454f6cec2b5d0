import { join } from 'node:path'
import { MemoryLogRecords } from '@sluice/core/record'
import { afterEach, describe, expect, it } from 'vitest'
import type { LogTablet } from '../../log/log-tablet.js'
import { rowsOfKv, SNAPSHOT_TEST_BUCKET, SnapshotTestBed } from '../../testing/kv-snapshot.js'
import { RocksDbKv, SMALL_ROCKSDB_OPTIONS } from '../rocksdb-kv.js'
import { type OpenKvTabletWithRecoveryArgs, openKvTabletWithRecovery } from './kv-recovery-open.js'
import { type RemoteChangelogSource, withRemoteChangelog } from './remote-changelog.js'

let bed: SnapshotTestBed

afterEach(async () => {
  await bed?.close()
})

/** History: acknowledged rows, a snapshot, an acknowledged tail, then writes above the high watermark. */
async function historyWithSnapshot(
  rollAt: 'none' | 'middle' | 'snapshot' = 'none',
): Promise<{ snapshotOffset: number; tailRecords: number }> {
  bed = await SnapshotTestBed.open()
  await bed.upsert(0, 200, 1n)
  await bed.acknowledge()
  if (rollAt === 'middle') await bed.bucket.log.roll()
  await bed.upsert(200, 400, 1n)
  await bed.delete([3, 4])
  await bed.acknowledge()
  if (rollAt === 'snapshot') await bed.bucket.log.roll()
  const { snapshot } = await bed.snapshotter().snapshotNow()
  const snapshotOffset = snapshot?.logOffset ?? -1
  await bed.upsert(390, 420, 2n)
  await bed.delete([0])
  await bed.acknowledge()
  const tailRecords = bed.bucket.log.logEndOffset - snapshotOffset
  await bed.upsert(500, 510, 3n) // not acknowledged
  return { snapshotOffset, tailRecords }
}

/** The old leader dies; the new one opens the bucket in a fresh directory (or `dir`). */
async function recover(overrides: Partial<OpenKvTabletWithRecoveryArgs> = {}) {
  await bed.kv.close()
  const result = await openKvTabletWithRecovery({
    bucketDir: join(bed.bucket.dir, 'kv-new-leader'),
    tableBucket: SNAPSHOT_TEST_BUCKET,
    options: bed.bucket.options,
    snapshotStore: bed.store,
    ...overrides,
  })
  bed.bucket.kv = result.kv
  return result.report
}

describe('openKvTabletWithRecovery', () => {
  it('restores the newest snapshot and replays only the changelog after it', async () => {
    const { snapshotOffset, tailRecords } = await historyWithSnapshot()
    const report = await recover()
    expect(report).toMatchObject({ path: 'snapshot', snapshotId: 0, replayFromOffset: snapshotOffset })
    // The tail: acknowledged records (some -U skipped) plus the 10 writes above the high watermark.
    expect(report.replayedRecords).toBeGreaterThan(10)
    expect(report.replayedRecords).toBeLessThanOrEqual(tailRecords + 10)
    expect(report.durationMs).toBeGreaterThanOrEqual(0)
    expect(await rowsOfKv(bed.kv)).toEqual(bed.expectedRows())
    expect(bed.kv.pendingWrites).toBe(10)
    await bed.acknowledge()
    expect(await rowsOfKv(bed.kv)).toEqual(bed.expectedRows())
    expect(bed.kv.rowCount).toBe(bed.expectedRows().length)
  })

  it('reuses a consistent local RocksDB after a restart', async () => {
    await historyWithSnapshot()
    const report = await recover({ bucketDir: join(bed.bucket.dir, 'kv') })
    expect(report.path).toBe('local')
    expect(report.snapshotId).toBeNull()
    expect(await rowsOfKv(bed.kv)).toEqual(bed.expectedRows())
  })

  it('falls back to the snapshot when the local RocksDB does not match the log', async () => {
    await historyWithSnapshot()
    const dir = join(bed.bucket.dir, 'kv-stale')
    const stale = await RocksDbKv.open(dir, SMALL_ROCKSDB_OPTIONS)
    await stale.write([], { flushedOffset: 1_000_000, rowCount: 0, anchor: null })
    await stale.close()
    const report = await recover({ bucketDir: dir })
    expect(report.path).toBe('snapshot')
    expect(report.notes[0]).toMatch(/does not match the log/)
    expect(await rowsOfKv(bed.kv)).toEqual(bed.expectedRows())
  })

  it('replays the whole log when there is no snapshot', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 100, 1n)
    await bed.acknowledge()
    const report = await recover()
    expect(report).toMatchObject({ path: 'full-replay', replayFromOffset: 0, snapshotId: null })
    expect(report.notes).toEqual(['no local RocksDB', 'no committed snapshot'])
    expect(await rowsOfKv(bed.kv)).toEqual(bed.expectedRows())
  })

  for (const rollAt of ['snapshot', 'middle'] as const) {
    it(`needs only the log from the snapshot offset: log start moved by retention (segment rolled at the ${rollAt})`, async () => {
      const { snapshotOffset } = await historyWithSnapshot(rollAt)
      await bed.bucket.log.deleteSegmentsBelow(snapshotOffset)
      expect(bed.bucket.log.logStartOffset).toBeGreaterThan(0)
      expect(bed.bucket.log.logStartOffset).toBeLessThanOrEqual(snapshotOffset)
      const report = await recover()
      expect(report).toMatchObject({ path: 'snapshot', replayFromOffset: snapshotOffset })
      expect(await rowsOfKv(bed.kv)).toEqual(bed.expectedRows())
    })
  }

  it('reads the changelog below the local log start from remote segments', async () => {
    const { snapshotOffset } = await historyWithSnapshot()
    await bed.bucket.log.roll()
    const remote = await remoteCopy(bed.bucket.log, snapshotOffset)
    await bed.upsert(600, 610, 4n)
    await bed.acknowledge()
    await bed.bucket.log.deleteSegmentsBelow(bed.bucket.log.logEndOffset)
    expect(bed.bucket.log.logStartOffset).toBeGreaterThan(snapshotOffset)
    const options = { ...bed.bucket.options, log: withRemoteChangelog(bed.bucket.log, remote) }
    const report = await recover({ options })
    expect(report).toMatchObject({ path: 'snapshot', replayFromOffset: snapshotOffset })
    expect(await rowsOfKv(bed.kv)).toEqual(bed.expectedRows())
  })

  it('refuses to recover when the log no longer reaches back to the newest snapshot', async () => {
    const { snapshotOffset } = await historyWithSnapshot()
    await bed.acknowledge()
    await bed.bucket.log.roll()
    await bed.bucket.log.deleteSegmentsBelow(bed.bucket.log.logEndOffset)
    expect(bed.bucket.log.logStartOffset).toBeGreaterThan(snapshotOffset)
    await expect(recover()).rejects.toMatchObject({ code: 11, message: /log \(local and remote\) starts at/ })
    bed.bucket.kv = await bed.bucket.reopenKv()
  })

  it('fails (rather than replaying a partial log) when a snapshot file is corrupt', async () => {
    await historyWithSnapshot()
    const [snapshot] = await bed.committed()
    const sst = snapshot.files.find(f => f.role === 'shared')
    const bytes = Buffer.from((await bed.blobStore.inner.get(sst?.key ?? '')) ?? [])
    bytes[bytes.length >> 1] ^= 0xff
    await bed.blobStore.inner.put(sst?.key ?? '', bytes)
    await expect(recover()).rejects.toMatchObject({ message: /CRC/ })
    bed.bucket.kv = await bed.bucket.reopenKv()
  })
})

/** A stand-in for remote segments: the log's batches from `from` up to its current end, in memory. */
async function remoteCopy(log: LogTablet, from: number): Promise<RemoteChangelogSource> {
  const end = log.logEndOffset
  const { records } = await log.read({
    fetchOffset: from,
    maxBytes: 64 << 20,
    isolation: 'LOG_END',
    minOneMessage: true,
  })
  const batches = [...new MemoryLogRecords(records).batches()].map(b => ({
    base: b.baseOffset,
    next: b.nextOffset,
    bytes: Buffer.from(b.bytes()),
  }))
  const start = batches[0]?.base ?? end
  return {
    canFetch: offset => offset >= start && offset < end,
    earliestOffset: local => Math.min(start, local),
    read: async ({ fetchOffset }) => ({
      records: Buffer.concat(batches.filter(b => b.next > fetchOffset).map(b => b.bytes)),
    }),
  }
}
