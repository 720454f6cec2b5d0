import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import { MemoryLogRecords } from '@sluice/core/record'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TestingClock, testBatch } from '../testing/log.js'
import { LogTablet } from './log-tablet.js'
import type { FetchIsolation } from './log-tablet-types.js'

let dir: string
let clock: TestingClock
let tablet: LogTablet
/** Each test batch: 2 records, 48-byte header + 100-byte payload. */
const BATCH_BYTES = 148

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-log-'))
  clock = new TestingClock(1_000_000)
  tablet = await LogTablet.open(dir, {
    segmentBytes: 600,
    indexIntervalBytes: 100,
    indexBytes: 800,
    writerExpirationMs: 3_600_000,
    highWatermarkCheckpointIntervalMs: 0,
    maxQueuedOperations: 100,
    clock,
  })
  for (let i = 0; i < 12; i++) {
    await tablet.appendAsLeader(testBatch({ recordCount: 2, payload: String(i).padStart(100, '.') }))
    clock.advance(1000)
  }
  tablet.updateHighWatermark(tablet.logEndOffset)
})

afterEach(async () => {
  await tablet.close()
  await rm(dir, { recursive: true, force: true })
})

async function read(
  fetchOffset: number,
  maxBytes: number,
  isolation: FetchIsolation = 'HIGH_WATERMARK',
  minOneMessage = false,
) {
  const result = await tablet.read({ fetchOffset, maxBytes, isolation, minOneMessage })
  return { ...result, batches: new MemoryLogRecords(result.records).validateAll() }
}

describe('LogTablet.read', () => {
  it('reads whole batches across segment boundaries up to maxBytes', async () => {
    expect(tablet.segmentCount).toBeGreaterThan(2)
    const all = await read(0, 1 << 20)
    expect(all.batches.map(b => b.baseOffset)).toEqual(Array.from({ length: 12 }, (_, i) => i * 2))
    const some = await read(6, 5 * BATCH_BYTES + 10)
    expect(some.batches.map(b => b.baseOffset)).toEqual([6, 8, 10, 12, 14])
    expect(some.records.length).toBe(5 * BATCH_BYTES)
  })

  it('starts with the batch holding an offset inside it', async () => {
    const { batches } = await read(7, 2 * BATCH_BYTES)
    expect(batches.map(b => b.baseOffset)).toEqual([6, 8])
  })

  it('returns nothing when the first batch exceeds maxBytes, unless minOneMessage', async () => {
    expect((await read(4, BATCH_BYTES - 1)).records.length).toBe(0)
    const one = await read(4, 10, 'HIGH_WATERMARK', true)
    expect(one.batches.map(b => b.baseOffset)).toEqual([4])
  })

  it('reports offsets with every read', async () => {
    const result = await read(24, 1000)
    expect(result).toMatchObject({ highWatermark: 24, logStartOffset: 0, logEndOffset: 24 })
    expect(result.records.length).toBe(0)
  })

  it('never returns data at or above the high watermark to HIGH_WATERMARK readers', async () => {
    tablet.updateHighWatermark(10)
    const client = await read(0, 1 << 20)
    expect(client.batches.map(b => b.lastOffset).at(-1)).toBe(9)
    expect(client.highWatermark).toBe(10)
    expect((await read(10, 1 << 20)).records.length).toBe(0)
    expect((await read(12, 1 << 20)).records.length).toBe(0)
    const follower = await read(10, 1 << 20, 'LOG_END')
    expect(follower.batches.map(b => b.baseOffset)).toEqual([10, 12, 14, 16, 18, 20, 22])
  })

  it('hides a batch the high watermark cuts through', async () => {
    tablet.updateHighWatermark(11)
    const { batches } = await read(0, 1 << 20)
    expect(batches.at(-1)?.lastOffset).toBe(9)
  })

  it('rejects offsets outside [logStartOffset, logEndOffset]', async () => {
    for (const offset of [-1, 25]) {
      const e = await tablet
        .read({ fetchOffset: offset, maxBytes: 100, isolation: 'LOG_END', minOneMessage: false })
        .catch(x => x)
      expect(e).toBeInstanceOf(FlussError)
      expect((e as FlussError).errorName).toBe('LOG_OFFSET_OUT_OF_RANGE_EXCEPTION')
      expect((e as FlussError).message).toBe(
        `Received request for offset ${offset} for table bucket ${tablet.name}, ` +
          'but we only have log segments from offset 0 up to 24.',
      )
    }
  })

  it('clamps the high watermark to the log end and moves it forward only when asked to', async () => {
    expect(tablet.updateHighWatermark(1000)).toBe(24)
    tablet.updateHighWatermark(5)
    expect(tablet.maybeIncrementHighWatermark(4)).toBe(false)
    expect(tablet.maybeIncrementHighWatermark(8)).toBe(true)
    expect(tablet.highWatermark).toBe(8)
    expect(() => tablet.maybeIncrementHighWatermark(25)).toThrow(/beyond log end/)
  })
})

describe('LogTablet.offsetForTimestamp', () => {
  it('finds the first batch whose commit timestamp is at or after the time', async () => {
    expect(await tablet.offsetForTimestamp(0)).toBe(0)
    expect(await tablet.offsetForTimestamp(1_000_000)).toBe(0)
    expect(await tablet.offsetForTimestamp(1_000_001)).toBe(2)
    expect(await tablet.offsetForTimestamp(1_005_000)).toBe(10)
    expect(await tablet.offsetForTimestamp(1_011_000)).toBe(22)
  })

  it('answers the high watermark for a time after the last batch and refuses the future', async () => {
    tablet.updateHighWatermark(20)
    expect(await tablet.offsetForTimestamp(1_011_500)).toBe(20)
    const future = clock.nowMs() + 1
    const e = await tablet.offsetForTimestamp(future).catch(x => x)
    expect((e as FlussError).errorName).toBe('INVALID_TIMESTAMP_EXCEPTION')
    expect((e as FlussError).message).toBe(
      `Get offset error for table bucket ${tablet.name}, the fetch timestamp ${future} ` +
        `is larger than the current timestamp ${clock.nowMs()}`,
    )
  })

  it('keeps working after the log is reopened from disk', async () => {
    await tablet.close()
    tablet = await LogTablet.open(dir, {
      segmentBytes: 600,
      indexIntervalBytes: 100,
      indexBytes: 800,
      writerExpirationMs: 3_600_000,
      highWatermarkCheckpointIntervalMs: 0,
      maxQueuedOperations: 100,
      clock,
    })
    expect(tablet.localMaxTimestamp).toBe(1_011_000)
    expect(await tablet.offsetForTimestamp(1_007_500)).toBe(16)
  })
})
