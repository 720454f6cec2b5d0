import { readFile } from 'node:fs/promises'
import { remoteLogTabletPrefix } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import { RemoteLogManifestStore } from '@sluice/core/remotelog'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SealedSegment } from '../log/index.js'
import {
  appendHarnessBatches,
  failingDeletes,
  openRemoteLogHarness,
  type RemoteLogHarness,
} from '../testing/remote-log.js'

let h: RemoteLogHarness
let sealed: SealedSegment[]

/** The committed manifest, read straight from the (unwrapped) stores. */
async function committed() {
  return new RemoteLogManifestStore(h.metaStore.inner, h.blobStore.inner, {
    inlineBytesMax: 1 << 16,
    nowMs: () => 0,
  }).load(h.bucket)
}

async function remoteKeys(): Promise<string[]> {
  return (await h.blobStore.inner.list(`${remoteLogTabletPrefix(h.bucket)}/`)).items.map(i => i.key)
}

/** Every object under the prefix belongs to a committed segment, and no offset is uploaded twice. */
async function expectConsistent(): Promise<void> {
  const { manifest } = await committed()
  const ids = new Set(manifest.segments.map(s => s.segmentId))
  for (const key of await remoteKeys()) expect(ids.has(key.split('/')[4] as string)).toBe(true)
  for (let i = 1; i < manifest.segments.length; i++) {
    expect(manifest.segments[i]?.baseOffset).toBe(manifest.segments[i - 1]?.endOffset)
  }
}

beforeEach(async () => {
  h = await openRemoteLogHarness()
  await appendHarnessBatches(h, 24)
  sealed = await h.tablet.sealedSegments()
  expect(sealed.length).toBeGreaterThanOrEqual(5)
})

afterEach(async () => {
  await h.close()
})

describe('RemoteLogTask uploads', () => {
  it('uploads only sealed segments below the high watermark, byte for byte', async () => {
    const s1 = sealed[1] as SealedSegment
    const localBytes = await Promise.all(
      sealed.map(async s => [await readFile(s.logPath), await readFile(s.indexPath)]),
    )
    h.tablet.updateHighWatermark(s1.endOffset + 1)
    h.manager.startLeader(h.replica())
    const run = await h.manager.runOnce(h.bucket)
    expect(run).toMatchObject({ uploaded: 2, committed: true })
    expect(run?.error).toBeUndefined()
    const { manifest, leaderEpoch } = await committed()
    expect(leaderEpoch).toBe(1)
    expect(manifest.segments.map(s => [s.baseOffset, s.endOffset])).toEqual(
      sealed.slice(0, 2).map(s => [s.baseOffset, s.endOffset]),
    )
    for (const [i, s] of manifest.segments.entries()) {
      const keys = manifest.keysOf(s)
      expect(Buffer.from((await h.blobStore.inner.get(keys.log)) ?? [])).toEqual(localBytes[i]?.[0])
      expect(Buffer.from((await h.blobStore.inner.get(keys.index)) ?? [])).toEqual(localBytes[i]?.[1])
      expect(s.maxTimestamp).toBe(sealed[i]?.maxTimestamp)
    }
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ uploaded: sealed.length - 2 })
    expect((await committed()).manifest.remoteLogEndOffset).toBe(
      (sealed[sealed.length - 1] as SealedSegment).endOffset,
    )
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ uploaded: 0, committed: false })
    await expectConsistent()
  })

  it('uploads at most remote.log.task-max-upload-segments per run, oldest first', async () => {
    await h.restart({ maxUploadSegments: 2 })
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.manager.startLeader(h.replica())
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ uploaded: 2 })
    expect((await committed()).manifest.remoteLogEndOffset).toBe(sealed[1]?.endOffset)
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ uploaded: 2 })
    expect((await committed()).manifest.remoteLogEndOffset).toBe(sealed[3]?.endOffset)
  })

  it('deletes local segments only once committed, keeping table.log.tiered.local-segments', async () => {
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.tableOptions.localSegments = 3
    h.metaStore.faults.inject({ ops: ['put'] })
    h.manager.startLeader(h.replica())
    const failed = await h.manager.runOnce(h.bucket)
    expect(failed?.error?.errorName).toBe('STORAGE_EXCEPTION')
    expect(failed?.committed).toBe(false)
    expect(h.tablet.logStartOffset).toBe(0)
    expect(h.tablet.segmentCount).toBe(sealed.length + 1)
    h.metaStore.faults.clear()
    const ok = await h.manager.runOnce(h.bucket)
    expect(ok).toMatchObject({ committed: true, localDeleted: sealed.length - 2 })
    expect(h.tablet.segmentCount).toBe(3)
    expect(h.tablet.logStartOffset).toBe(sealed[sealed.length - 2]?.baseOffset)
  })

  it('deletes uploaded local segments older than table.log.local-ttl, whatever local-segments keeps', async () => {
    h.tableOptions.localSegments = 100
    h.tableOptions.localTtlMs = 60_000
    const uploadedEnd = (sealed[2] as SealedSegment).endOffset
    h.tablet.updateHighWatermark(uploadedEnd)
    h.manager.startLeader(h.replica())
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ uploaded: 3, localDeleted: 0 })
    expect(h.tablet.logStartOffset, 'younger than the local TTL: kept').toBe(0)
    h.clock.advance(60_001)
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ uploaded: 0, localDeleted: 3 })
    expect(h.tablet.logStartOffset, 'expired and uploaded: deleted; expired, not uploaded: kept').toBe(
      uploadedEnd,
    )
    expect(h.tablet.segmentCount).toBe(sealed.length - 3 + 1)
    expect((await committed()).manifest.remoteLogEndOffset).toBe(uploadedEnd)
  })

  it('keeps table.log.tiered.local-segments when no local TTL has passed', async () => {
    h.tableOptions.localSegments = 100
    h.tableOptions.localTtlMs = 0
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.manager.startLeader(h.replica())
    h.clock.advance(365 * 86_400_000)
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ uploaded: sealed.length, localDeleted: 0 })
    expect(h.tablet.segmentCount).toBe(sealed.length + 1)
  })

  it('never deletes local segments holding minRetainOffset or above', async () => {
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    const keep = (sealed[1] as SealedSegment).baseOffset + 1
    h.manager.startLeader(h.replica({ minRetainOffset: () => keep }))
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ localDeleted: 1 })
    expect(h.tablet.logStartOffset).toBe(sealed[1]?.baseOffset)
  })
})

describe('RemoteLogTask TTL', () => {
  it('drops expired remote segments from the manifest first, then deletes their objects', async () => {
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.manager.startLeader(h.replica())
    await h.manager.runOnce(h.bucket)
    const before = (await committed()).manifest
    const cut = before.segments[2]?.maxTimestamp as number
    h.tableOptions.logTtlMs = 60_000
    h.clock.ms = cut + 60_000 + 1
    const run = await h.manager.runOnce(h.bucket)
    expect(run).toMatchObject({ expired: 3, committed: true })
    const after = (await committed()).manifest
    expect(after.remoteLogStartOffset).toBe(before.segments[3]?.baseOffset)
    expect(h.manager.reader(h.bucket)?.earliestOffset(h.tablet.logStartOffset)).toBe(
      after.remoteLogStartOffset,
    )
    for (const s of before.segments.slice(0, 3))
      expect(await h.blobStore.inner.head(before.keysOf(s).log)).toBeUndefined()
    await expectConsistent()
  })

  it('keeps segments not yet in the lake', async () => {
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.manager.startLeader(h.replica({ lakeLogEndOffset: () => sealed[0]?.endOffset ?? 0 }))
    await h.manager.runOnce(h.bucket)
    h.tableOptions.logTtlMs = 1
    h.clock.advance(3_600_000)
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ expired: 1 })
  })
})

describe('RemoteLogTask after crashes', () => {
  it('cleans up a crash during an upload and uploads every segment exactly once', async () => {
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.blobStore.faults.inject({ ops: ['upload', 'put', 'delete'], skip: 6 })
    h.manager.startLeader(h.replica())
    const crashed = await h.manager.runOnce(h.bucket)
    expect(crashed?.error?.errorName).toBe('STORAGE_EXCEPTION')
    const partial = (await committed()).manifest
    expect(partial.segments.length).toBe(crashed?.uploaded)
    expect(partial.segments.length).toBeLessThan(sealed.length)
    const ids = new Set(partial.segments.map(s => s.segmentId))
    expect((await remoteKeys()).some(k => !ids.has(k.split('/')[4] as string))).toBe(true)
    h.blobStore.faults.clear()
    h.clock.advance(2 * 3_600_000)
    await h.restart()
    h.manager.startLeader(h.replica())
    const run = await h.manager.runOnce(h.bucket)
    expect(run?.orphansDeleted).toBeGreaterThan(0)
    expect((await committed()).manifest.segments.length).toBe(sealed.length)
    await expectConsistent()
  })

  it('cleans up a crash between upload and commit, once the safety window has passed', async () => {
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.metaStore.faults.inject({ ops: ['put'] })
    h.manager.startLeader(h.replica())
    await h.manager.runOnce(h.bucket)
    const orphans = await remoteKeys()
    expect(orphans.length).toBeGreaterThan(0)
    h.metaStore.faults.clear()
    await h.restart()
    h.manager.startLeader(h.replica())
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ committed: true, orphansDeleted: 0 })
    for (const key of orphans) expect(await h.blobStore.inner.head(key)).toBeDefined()
    h.clock.advance(2 * 3_600_000)
    await h.restart()
    h.manager.startLeader(h.replica())
    expect((await h.manager.runOnce(h.bucket))?.orphansDeleted).toBe(orphans.length)
    await expectConsistent()
  })

  it('finishes local deletion after a crash between commit and delete', async () => {
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    const log = failingDeletes(h.tablet)
    h.manager.startLeader(h.replica({ log }))
    const crashed = await h.manager.runOnce(h.bucket)
    expect(crashed).toMatchObject({ committed: true, uploaded: sealed.length })
    expect(h.tablet.logStartOffset).toBe(0)
    log.failDeletes = false
    await h.restart()
    h.manager.startLeader(h.replica({ log }))
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ uploaded: 0, localDeleted: sealed.length - 1 })
  })

  it('treats a commit whose answer was lost as done, without duplicates', async () => {
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.metaStore.faults.inject({ ops: ['put'], times: 1, mode: 'apply-then-fail' })
    h.manager.startLeader(h.replica())
    const run = await h.manager.runOnce(h.bucket)
    expect(run).toMatchObject({ committed: true, uploaded: sealed.length })
    expect(run?.error).toBeUndefined()
    expect(h.manager.stats()).toMatchObject({ commits: 1, commitConflicts: 1, retries: 1 })
    expect((await committed()).version).toBe(1)
    await expectConsistent()
  })
})

describe('RemoteLogTask fencing and faults', () => {
  it('fences a deposed leader: its commit fails and its uploads are removed', async () => {
    h.tablet.updateHighWatermark((sealed[0] as SealedSegment).endOffset)
    h.manager.startLeader(h.replica({ leaderEpoch: 1 }))
    await h.manager.runOnce(h.bucket)
    const { RemoteLogManager } = await import('./remote-log-manager.js')
    const newLeader = new RemoteLogManager({
      blobStore: h.blobStore,
      metaStore: h.metaStore,
      remoteDataDir: 's3://x',
      taskIntervalMs: 3_600_000,
      maxUploadSegments: 1,
      clock: h.clock,
      random: () => 0.999,
    })
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    newLeader.startLeader(h.replica({ leaderEpoch: 2 }))
    expect(await newLeader.runOnce(h.bucket)).toMatchObject({ committed: true, uploaded: 1 })
    const stale = await h.manager.runOnce(h.bucket)
    expect(stale?.error?.errorName).toBe('FENCED_LEADER_EPOCH_EXCEPTION')
    expect(h.fenced.map(e => e.errorName)).toEqual(['FENCED_LEADER_EPOCH_EXCEPTION'])
    expect(h.manager.stats().fenced).toBe(1)
    const { manifest, leaderEpoch } = await committed()
    expect([leaderEpoch, manifest.segments.length]).toEqual([2, 2])
    await expectConsistent()
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ uploaded: 0, committed: false })
    await newLeader.close()
  })

  it('retries BlobStore failures with backoff and counts them', async () => {
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.blobStore.faults.inject({
      ops: ['upload'],
      times: 2,
      error: () => new FlussError('REQUEST_TIME_OUT', 'slow s3'),
    })
    h.manager.startLeader(h.replica())
    const run = await h.manager.runOnce(h.bucket)
    expect(run).toMatchObject({ uploaded: sealed.length, committed: true })
    expect(h.manager.stats()).toMatchObject({ retries: 2, uploadErrors: 0, lastError: null })
  })

  it('never blocks appends while the BlobStore hangs, and reports the timeout', async () => {
    await h.restart({ retry: { maxAttempts: 2, operationTimeoutMs: 50 } })
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.blobStore.faults.inject({ ops: ['put', 'upload'], mode: 'hang' })
    h.manager.startLeader(h.replica())
    const pending = h.manager.runOnce(h.bucket)
    const end = h.tablet.logEndOffset
    await appendHarnessBatches(h, 5)
    expect(h.tablet.logEndOffset).toBe(end + 10)
    const run = await pending
    expect(run?.error?.errorName).toBe('REQUEST_TIME_OUT')
    expect(h.manager.stats()).toMatchObject({ uploadErrors: 1, retries: 1, runErrors: 1 })
    expect(h.manager.stats().lastError).toMatch(/did not finish within 50 ms/)
  })
})
