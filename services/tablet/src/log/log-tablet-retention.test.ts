import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemoryLogRecords } from '@sluice/core/record'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TestingClock, testBatch } from '../testing/log.js'
import { LogTablet } from './log-tablet.js'
import type { LogTabletOptions } from './log-tablet-types.js'

let dir: string
let clock: TestingClock
let tablet: LogTablet

function options(): LogTabletOptions {
  return {
    segmentBytes: 600,
    indexIntervalBytes: 100,
    indexBytes: 800,
    writerExpirationMs: 3_600_000,
    highWatermarkCheckpointIntervalMs: 0,
    maxQueuedOperations: 100,
    clock,
  }
}

/** 12 batches of 2 records, one second apart, 4 per segment (segments at 0, 8, 16). */
async function fill(): Promise<void> {
  for (let i = 0; i < 12; i++) {
    await tablet.appendAsLeader(
      testBatch({ recordCount: 2, payload: String(i).padStart(100, '.'), writerId: 1, batchSequence: i }),
    )
    clock.advance(1000)
  }
}

async function offsets(): Promise<number[]> {
  const { records } = await tablet.read({
    fetchOffset: tablet.logStartOffset,
    maxBytes: 1 << 20,
    isolation: 'LOG_END',
    minOneMessage: true,
  })
  return new MemoryLogRecords(records).validateAll().map(b => b.baseOffset)
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-log-'))
  clock = new TestingClock(1_000_000)
  tablet = await LogTablet.open(dir, options())
  await fill()
})

afterEach(async () => {
  await tablet.close()
  await rm(dir, { recursive: true, force: true })
})

describe('LogTablet retention', () => {
  it('deletes whole sealed segments older than the TTL and advances the log start', async () => {
    tablet.updateHighWatermark(tablet.logEndOffset)
    expect((await tablet.sealedSegments()).map(s => [s.baseOffset, s.endOffset])).toEqual([
      [0, 8],
      [8, 16],
    ])
    // segment 0 holds timestamps up to 1_003_000, segment 8 up to 1_007_000.
    expect(await tablet.deleteSegmentsOlderThan(5_000, 1_008_001)).toBe(1)
    expect(tablet.logStartOffset).toBe(8)
    expect(await offsets()).toEqual([8, 10, 12, 14, 16, 18, 20, 22])
    expect((await readdir(dir)).filter(f => f.endsWith('.log')).sort()).toEqual([
      '00000000000000000008.log',
      '00000000000000000016.log',
    ])
    expect(await tablet.deleteSegmentsOlderThan(1, 9_000_000)).toBe(1)
    expect(tablet.segmentCount).toBe(1)
    expect(tablet.logStartOffset).toBe(16)
  })

  it('never deletes the active segment, data above the high watermark, or anything with TTL 0', async () => {
    expect(await tablet.deleteSegmentsOlderThan(0, 9_000_000)).toBe(0)
    tablet.updateHighWatermark(10)
    expect(await tablet.deleteSegmentsOlderThan(1, 9_000_000)).toBe(1)
    expect(tablet.logStartOffset).toBe(8)
    tablet.updateHighWatermark(tablet.logEndOffset)
    expect(await tablet.deleteSegmentsOlderThan(1, 9_000_000)).toBe(1)
    expect(tablet.segmentCount).toBe(1)
  })

  it('deletes segments below an offset (after remote upload) and refuses fetches below the new start', async () => {
    tablet.updateHighWatermark(tablet.logEndOffset)
    expect(await tablet.deleteSegmentsBelow(15)).toBe(1)
    expect(await tablet.deleteSegmentsBelow(16)).toBe(1)
    expect(tablet.logStartOffset).toBe(16)
    const e = await tablet
      .read({ fetchOffset: 4, maxBytes: 100, isolation: 'LOG_END', minOneMessage: false })
      .catch(x => x)
    expect(e.errorName).toBe('LOG_OFFSET_OUT_OF_RANGE_EXCEPTION')
  })

  it('lists sealed segments with their files for upload', async () => {
    const [first] = await tablet.sealedSegments()
    expect(first).toMatchObject({ baseOffset: 0, endOffset: 8, maxTimestamp: 1_003_000 })
    expect(first.logPath).toBe(join(dir, '00000000000000000000.log'))
    expect(first.writerSnapshotPath).toBe(join(dir, '00000000000000000008.writer_snapshot'))
    expect((await readFile(first.logPath)).length).toBe(first.sizeInBytes)
    const snapshot = JSON.parse(await readFile(first.writerSnapshotPath as string, 'utf8'))
    expect(snapshot.writers[0].batches.at(-1)).toMatchObject({ batchSequence: 3, lastOffset: 7 })
  })

  it('rolls by segment age', async () => {
    expect(await tablet.maybeRoll(clock.nowMs(), 60_000)).toBe(false)
    expect(await tablet.maybeRoll(clock.nowMs() + 60_000, 60_000)).toBe(true)
    expect(tablet.segmentCount).toBe(4)
    expect(await tablet.maybeRoll(clock.nowMs() + 120_000, 60_000)).toBe(false)
  })
})

describe('LogTablet truncation', () => {
  it('truncateTo drops batches at and above the offset and rebuilds writer state', async () => {
    tablet.updateHighWatermark(tablet.logEndOffset)
    expect(await tablet.truncateTo(11)).toBe(true)
    expect(tablet.logEndOffset).toBe(10)
    expect(tablet.highWatermark).toBe(10)
    expect(tablet.segmentCount).toBe(2)
    expect(await offsets()).toEqual([0, 2, 4, 6, 8])
    expect(tablet.writerState(1)?.lastBatchSequence).toBe(4)
    const info = await tablet.appendAsLeader(testBatch({ recordCount: 2, writerId: 1, batchSequence: 5 }))
    expect(info.firstOffset).toBe(10)
    expect(await tablet.truncateTo(100)).toBe(false)
  })

  it('truncateTo a segment boundary empties that segment and removes the later ones', async () => {
    await tablet.truncateTo(8)
    expect(tablet.logEndOffset).toBe(8)
    expect(await offsets()).toEqual([0, 2, 4, 6])
    expect((await readdir(dir)).filter(f => f.endsWith('.log')).sort()).toEqual([
      '00000000000000000000.log',
      '00000000000000000008.log',
    ])
    expect((await tablet.appendAsLeader(testBatch())).firstOffset).toBe(8)
  })

  it('truncateFullyAndStartAt empties the log and restarts its offsets', async () => {
    await tablet.truncateFullyAndStartAt(500)
    expect([tablet.logStartOffset, tablet.logEndOffset, tablet.highWatermark]).toEqual([500, 500, 500])
    expect(tablet.writerState(1)).toBeUndefined()
    expect((await tablet.appendAsLeader(testBatch())).firstOffset).toBe(500)
    expect((await readdir(dir)).filter(f => f.endsWith('.log'))).toEqual(['00000000000000000500.log'])
  })
})

describe('LogTablet high watermark checkpoint', () => {
  it('persists the high watermark on close and restores it clamped to the log end', async () => {
    tablet.updateHighWatermark(14)
    await tablet.close()
    const checkpoint = JSON.parse(await readFile(join(dir, 'high-watermark.checkpoint'), 'utf8'))
    expect(checkpoint).toEqual({ version: 1, highWatermark: 14 })
    tablet = await LogTablet.open(dir, options())
    expect(tablet.highWatermark).toBe(14)
    await tablet.truncateTo(6)
    await tablet.checkpointHighWatermark()
    await tablet.close()
    tablet = await LogTablet.open(dir, options())
    expect(tablet.highWatermark).toBe(6)
  })
})
