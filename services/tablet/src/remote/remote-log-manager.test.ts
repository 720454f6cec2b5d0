import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { remoteLogTabletPrefix } from '@sluice/core/blobstore'
import { remoteLogKey } from '@sluice/core/metastore'
import { MemoryLogRecords } from '@sluice/core/record'
import { afterEach, describe, expect, it } from 'vitest'
import { LogTablet } from '../log/index.js'
import { appendHarnessBatches, openRemoteLogHarness, type RemoteLogHarness } from '../testing/remote-log.js'
import { RemoteLogManager, runPeriodMs } from './remote-log-manager.js'

let h: RemoteLogHarness
const extraDirs: string[] = []

async function remoteKeyCount(): Promise<number> {
  return (await h.blobStore.inner.list(`${remoteLogTabletPrefix(h.bucket)}/`)).items.length
}

/** Polls `condition` every 10 ms, at most `timeoutMs`. */
async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited >= timeoutMs) throw new Error('condition not met in time')
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

describe('runPeriodMs', () => {
  it('shortens the interval for lake tables to a quarter of the freshness, at least 1 s', () => {
    const table = {
      logTtlMs: 0,
      localSegments: 2,
      localTtlMs: 0,
      datalakeEnabled: false,
      datalakeFreshnessMs: 180_000,
    }
    expect(runPeriodMs(60_000, table)).toBe(60_000)
    expect(runPeriodMs(60_000, { ...table, datalakeEnabled: true })).toBe(45_000)
    expect(runPeriodMs(10_000, { ...table, datalakeEnabled: true })).toBe(10_000)
    expect(runPeriodMs(60_000, { ...table, datalakeEnabled: true, datalakeFreshnessMs: 100 })).toBe(1000)
  })
})

describe('RemoteLogManager', () => {
  afterEach(async () => {
    await h.close()
    for (const dir of extraDirs.splice(0)) await rm(dir, { recursive: true, force: true })
  })

  it('does nothing when remote.log.task-interval-duration is 0', async () => {
    h = await openRemoteLogHarness({ manager: { taskIntervalMs: 0 } })
    await appendHarnessBatches(h, 12)
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.manager.startLeader(h.replica())
    expect(h.manager.enabled).toBe(false)
    expect(h.manager.reader(h.bucket)).toBeNull()
    expect(await h.manager.runOnce(h.bucket)).toBeUndefined()
    expect(h.manager.stats()).toMatchObject({ runs: 0, buckets: 0 })
    expect(h.blobStore.faults.calls.size + h.metaStore.faults.calls.size).toBe(0)
  })

  it('runs each leader bucket on its timer until leadership is lost', async () => {
    h = await openRemoteLogHarness({ manager: { taskIntervalMs: 5, random: () => 0 } })
    await appendHarnessBatches(h, 12)
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    const sealed = (await h.tablet.sealedSegments()).length
    h.manager.startLeader(h.replica())
    await waitUntil(() => h.manager.stats().runs >= 3)
    expect(h.manager.stats().segmentsUploaded).toBe(sealed)
    await h.manager.stop(h.bucket)
    const runs = h.manager.stats().runs
    expect(h.manager.reader(h.bucket)).toBeNull()
    await new Promise(resolve => setTimeout(resolve, 30))
    expect(h.manager.stats().runs).toBe(runs)
    expect(h.manager.stats().buckets).toBe(0)
  })

  it('stops a running task at its next step: nothing is committed after stop', async () => {
    h = await openRemoteLogHarness()
    await appendHarnessBatches(h, 12)
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.blobStore.faults.inject({ ops: ['upload'], mode: 'hang' })
    await h.restart({ retry: { operationTimeoutMs: 200 } })
    h.manager.startLeader(h.replica())
    const run = h.manager.runOnce(h.bucket)
    await waitUntil(() => h.blobStore.faults.count('upload') > 0)
    await h.manager.stop(h.bucket)
    expect((await run)?.committed).toBe(false)
    expect(await h.metaStore.inner.get(remoteLogKey(h.bucket).pk, remoteLogKey(h.bucket).sk)).toBeUndefined()
  })

  it('seals a lake table segment older than half the freshness, never an empty one', async () => {
    h = await openRemoteLogHarness({ segmentBytes: 1 << 20 })
    h.tableOptions.datalakeEnabled = true
    h.tableOptions.datalakeFreshnessMs = 60_000
    h.manager.startLeader(h.replica())
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ rolled: false })
    await appendHarnessBatches(h, 1, 0)
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.clock.advance(29_000)
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ rolled: false, uploaded: 0 })
    h.clock.advance(1_000)
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ rolled: true, uploaded: 1, committed: true })
    expect(h.manager.stats().freshnessRolls).toBe(1)
    expect(h.tablet.segmentCount).toBe(2)
    h.clock.advance(60_000)
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ rolled: false })
    h.tableOptions.datalakeEnabled = false
    await appendHarnessBatches(h, 1, 0)
    h.clock.advance(60_000)
    expect(await h.manager.runOnce(h.bucket)).toMatchObject({ rolled: false })
  })

  it('lets followers delete local segments the leader has uploaded', async () => {
    h = await openRemoteLogHarness()
    const followerDir = await mkdtemp(join(tmpdir(), 'sluice-follower-'))
    extraDirs.push(followerDir)
    const follower = await LogTablet.open(followerDir, {
      segmentBytes: 600,
      indexIntervalBytes: 100,
      indexBytes: 800,
      writerExpirationMs: 3_600_000,
      highWatermarkCheckpointIntervalMs: 0,
      maxQueuedOperations: 100,
      clock: h.clock,
    })
    await appendHarnessBatches(h, 16)
    const { records } = await h.tablet.read({
      fetchOffset: 0,
      maxBytes: 1 << 20,
      isolation: 'LOG_END',
      minOneMessage: true,
    })
    for (const batch of new MemoryLogRecords(records).validateAll())
      await follower.appendAsFollower(batch.bytes())
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    follower.updateHighWatermark(follower.logEndOffset)
    const followers = new RemoteLogManager({
      blobStore: h.blobStore,
      metaStore: h.metaStore,
      remoteDataDir: 's3://x',
      taskIntervalMs: 3_600_000,
      maxUploadSegments: 100,
      clock: h.clock,
      random: () => 0.999,
    })
    followers.startFollower(h.replica({ log: follower, leaderEpoch: 1 }))
    expect(await followers.runOnce(h.bucket)).toMatchObject({ localDeleted: 0 })
    expect(followers.reader(h.bucket)).toBeNull()
    h.manager.startLeader(h.replica())
    await h.manager.runOnce(h.bucket)
    const remoteEnd = h.manager.reader(h.bucket)?.remoteLogEndOffset ?? -1
    const run = await followers.runOnce(h.bucket)
    expect(run?.localDeleted).toBeGreaterThan(0)
    expect(follower.logStartOffset).toBeGreaterThan(0)
    expect(follower.logStartOffset).toBeLessThanOrEqual(remoteEnd)
    expect(follower.segmentCount).toBe(2)
    await followers.close()
    await follower.close()
  })

  it('deletes a dropped bucket remote log entirely', async () => {
    h = await openRemoteLogHarness({ manager: { manifestInlineBytesMax: 0 } })
    await appendHarnessBatches(h, 12)
    h.tablet.updateHighWatermark(h.tablet.logEndOffset)
    h.manager.startLeader(h.replica())
    await h.manager.runOnce(h.bucket)
    expect(await remoteKeyCount()).toBeGreaterThan(0)
    const deleted = await h.manager.deleteRemoteLog(h.bucket)
    expect(deleted).toBeGreaterThan(0)
    expect(await remoteKeyCount()).toBe(0)
    const { pk, sk } = remoteLogKey(h.bucket)
    expect(await h.metaStore.inner.get(pk, sk)).toBeUndefined()
    expect(await h.manager.deleteRemoteLog(h.bucket)).toBe(0)
  })
})
