import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import { buildLogBatch, MemoryLogRecords } from '@sluice/core/record'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TestingClock, testBatch } from '../testing/log.js'
import { LogTablet } from './log-tablet.js'
import type { LogTabletOptions } from './log-tablet-types.js'

let dir: string
let clock: TestingClock
let tablet: LogTablet

function options(overrides: Partial<LogTabletOptions> = {}): LogTabletOptions {
  return {
    segmentBytes: 1024,
    indexIntervalBytes: 128,
    indexBytes: 1024,
    writerExpirationMs: 3_600_000,
    highWatermarkCheckpointIntervalMs: 0,
    maxQueuedOperations: 100,
    clock,
    ...overrides,
  }
}

async function readAll(t: LogTablet, maxBytes = 1 << 20) {
  const { records } = await t.read({
    fetchOffset: t.logStartOffset,
    maxBytes,
    isolation: 'LOG_END',
    minOneMessage: true,
  })
  return new MemoryLogRecords(records).validateAll()
}

function patched(bytes: Buffer, patch: (b: Buffer) => void): Buffer {
  patch(bytes)
  return bytes
}

async function expectError(promise: Promise<unknown>, name: string): Promise<FlussError> {
  try {
    await promise
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe(name)
    return e as FlussError
  }
  throw new Error(`expected ${name}`)
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-log-'))
  clock = new TestingClock()
  tablet = await LogTablet.open(dir, options())
})

afterEach(async () => {
  await tablet.close()
  await rm(dir, { recursive: true, force: true })
})

describe('LogTablet.appendAsLeader', () => {
  it('assigns dense offsets from the log end offset', async () => {
    expect(await tablet.appendAsLeader(testBatch({ recordCount: 3 }))).toMatchObject({
      firstOffset: 0,
      lastOffset: 2,
      logEndOffset: 3,
    })
    expect(await tablet.appendAsLeader(testBatch({ recordCount: 1 }))).toMatchObject({
      firstOffset: 3,
      lastOffset: 3,
      logEndOffset: 4,
    })
    const twoBatches = Buffer.concat([testBatch({ recordCount: 2 }), testBatch({ recordCount: 2 })])
    expect(await tablet.appendAsLeader(twoBatches)).toMatchObject({
      firstOffset: 4,
      lastOffset: 7,
      logEndOffset: 8,
      batchCount: 2,
    })
    const batches = await readAll(tablet)
    expect(batches.map(b => [b.baseOffset, b.lastOffset])).toEqual([
      [0, 2],
      [3, 3],
      [4, 5],
      [6, 7],
    ])
  })

  it('rolls segments by size and keeps offsets continuous across them', async () => {
    for (let i = 0; i < 20; i++)
      await tablet.appendAsLeader(testBatch({ recordCount: 2, payload: 'x'.repeat(150) }))
    expect(tablet.segmentCount).toBeGreaterThan(3)
    const files = (await readdir(dir)).filter(f => f.endsWith('.log')).sort()
    expect(files[0]).toBe('00000000000000000000.log')
    const sealed = await tablet.sealedSegments()
    for (let i = 1; i < sealed.length; i++) expect(sealed[i].baseOffset).toBe(sealed[i - 1].endOffset)
    for (const s of sealed) expect(s.sizeInBytes).toBeLessThanOrEqual(1024)
    const batches = await readAll(tablet)
    expect(batches.map(b => b.baseOffset)).toEqual(Array.from({ length: 20 }, (_, i) => i * 2))
    expect(tablet.logEndOffset).toBe(40)
  })

  it('gives an empty batch exactly one offset', async () => {
    await tablet.appendAsLeader(testBatch({ recordCount: 2 }))
    const info = await tablet.appendAsLeader(testBatch({ recordCount: 0, payload: '' }))
    expect(info).toMatchObject({ firstOffset: 2, lastOffset: 2, logEndOffset: 3 })
    const next = await tablet.appendAsLeader(testBatch({ recordCount: 1 }))
    expect(next.firstOffset).toBe(3)
    expect((await readAll(tablet)).map(b => b.recordCount)).toEqual([2, 0, 1])
  })

  it('keeps commit timestamps monotonic when the clock goes backwards', async () => {
    clock.ms = 10_000
    expect((await tablet.appendAsLeader(testBatch())).maxTimestamp).toBe(10_000)
    clock.ms = 4_000
    expect((await tablet.appendAsLeader(testBatch())).maxTimestamp).toBe(10_000)
    clock.ms = 12_000
    expect((await tablet.appendAsLeader(testBatch())).maxTimestamp).toBe(12_000)
    expect((await readAll(tablet)).map(b => b.commitTimestamp)).toEqual([10_000, 10_000, 12_000])
    expect(tablet.localMaxTimestamp).toBe(12_000)
  })

  it('serializes concurrent appends', async () => {
    const infos = await Promise.all(
      Array.from({ length: 30 }, () => tablet.appendAsLeader(testBatch({ recordCount: 2 }))),
    )
    expect(infos.map(i => i.firstOffset)).toEqual(Array.from({ length: 30 }, (_, i) => i * 2))
    expect(tablet.logEndOffset).toBe(60)
  })

  const corruptions: [string, (b: Buffer) => Buffer][] = [
    ['a flipped CRC-covered byte', b => patched(b, x => x.writeUInt8(x[x.length - 1] ^ 0xff, x.length - 1))],
    ['a truncated batch', b => b.subarray(0, b.length - 2)],
    ['a length field past the end', b => patched(b, x => x.writeInt32LE(x.length, 8))],
    ['a length field below the header', b => patched(b, x => x.writeInt32LE(20, 8))],
    ['an unknown magic', b => patched(b, x => x.writeInt8(2, 12))],
  ]
  it.each(corruptions)('rejects a request with %s and appends nothing', async (_, corrupt) => {
    await tablet.appendAsLeader(testBatch())
    const request = Buffer.concat([testBatch({ payload: 'good' }), corrupt(testBatch({ payload: 'bad' }))])
    await expectError(tablet.appendAsLeader(request), 'CORRUPT_RECORD_EXCEPTION')
    expect(tablet.logEndOffset).toBe(1)
    expect(await readAll(tablet)).toHaveLength(1)
    expect((await tablet.appendAsLeader(testBatch())).firstOffset).toBe(1)
  })

  it('keeps large appends ordered and whole while reads run beside them', async () => {
    const large = await LogTablet.open(join(dir, 'large'), options({ segmentBytes: 1 << 20 }))
    try {
      const payloads = Array.from({ length: 12 }, (_, i) => Buffer.alloc(100_000 + i * 9_000, i + 1))
      const reads: Promise<unknown>[] = []
      const appends = payloads.map((payload, i) => {
        if (i % 3 === 0) reads.push(readAll(large, 64 << 20))
        return large.appendAsLeader(testBatch({ recordCount: 4, payload }))
      })
      const infos = await Promise.all(appends)
      expect(infos.map(i => i.firstOffset)).toEqual(payloads.map((_, i) => i * 4))
      for (const seen of (await Promise.all(reads)) as { baseOffset: number }[][]) {
        expect(seen.map(b => b.baseOffset)).toEqual(seen.map((_, i) => i * 4))
      }
      const stored = await readAll(large, 64 << 20)
      expect(stored.map(b => b.recordsSection().equals(payloads[b.baseOffset / 4]))).toEqual(
        payloads.map(() => true),
      )
      expect(large.segmentCount).toBeGreaterThan(1)
    } finally {
      await large.close()
    }
  })

  it('accepts a 0.9.1 magic V1 batch and patches it the same way', async () => {
    const v1 = buildLogBatch({
      magic: 1,
      schemaId: 2,
      appendOnly: true,
      recordCount: 2,
      records: Buffer.from('v1'),
    })
    expect(await tablet.appendAsLeader(v1)).toMatchObject({ firstOffset: 0, lastOffset: 1 })
    const [batch] = await readAll(tablet)
    expect([batch.magic, batch.baseOffset, batch.commitTimestamp, batch.leaderEpoch]).toEqual([
      1,
      0,
      clock.ms,
      -1,
    ])
  })

  it('rejects an empty request and one larger than a segment', async () => {
    await expectError(tablet.appendAsLeader(Buffer.alloc(0)), 'CORRUPT_RECORD_EXCEPTION')
    await expectError(
      tablet.appendAsLeader(testBatch({ payload: 'x'.repeat(2000) })),
      'RECORD_TOO_LARGE_EXCEPTION',
    )
    expect(tablet.logEndOffset).toBe(0)
  })
})

describe('LogTablet idempotent writers', () => {
  const writer = (writerId: number, batchSequence: number, recordCount = 1) =>
    testBatch({ writerId, batchSequence, recordCount, payload: `w${writerId}s${batchSequence}` })

  it('answers a retried batch with its original offsets without appending it again', async () => {
    await tablet.appendAsLeader(writer(7, 0, 2))
    const second = await tablet.appendAsLeader(writer(7, 1, 3))
    expect(second).toMatchObject({ firstOffset: 2, lastOffset: 4, duplicate: false })
    const retry = await tablet.appendAsLeader(writer(7, 1, 3))
    expect(retry).toMatchObject({ firstOffset: 2, lastOffset: 4, logEndOffset: 5, duplicate: true })
    const older = await tablet.appendAsLeader(writer(7, 0, 2))
    expect(older).toMatchObject({ firstOffset: 0, lastOffset: 1, duplicate: true })
    expect(tablet.logEndOffset).toBe(5)
    expect(await readAll(tablet)).toHaveLength(2)
  })

  it('rejects a sequence gap and a new writer not starting at 0', async () => {
    await tablet.appendAsLeader(writer(7, 0))
    const gap = await expectError(tablet.appendAsLeader(writer(7, 2)), 'OUT_OF_ORDER_SEQUENCE_EXCEPTION')
    expect(gap.message).toBe(
      `Out of order batch sequence for writer 7 at offset 1 in table-bucket ${tablet.name} : ` +
        '2 (incoming batch seq.), 0 (current batch seq.)',
    )
    await expectError(tablet.appendAsLeader(writer(9, 3)), 'OUT_OF_ORDER_SEQUENCE_EXCEPTION')
    expect(tablet.logEndOffset).toBe(1)
  })

  it('remembers only the last five batches of a writer', async () => {
    for (let seq = 0; seq < 7; seq++) await tablet.appendAsLeader(writer(7, seq))
    expect((await tablet.appendAsLeader(writer(7, 2))).duplicate).toBe(true)
    await expectError(tablet.appendAsLeader(writer(7, 1)), 'OUT_OF_ORDER_SEQUENCE_EXCEPTION')
    expect(tablet.writerState(7)?.batches.map(b => b.batchSequence)).toEqual([2, 3, 4, 5, 6])
  })

  it('tracks writers independently and ignores batches without a writer id', async () => {
    await tablet.appendAsLeader(writer(1, 0))
    await tablet.appendAsLeader(writer(2, 0))
    await tablet.appendAsLeader(writer(1, 1))
    await tablet.appendAsLeader(testBatch())
    await tablet.appendAsLeader(testBatch())
    expect(tablet.logEndOffset).toBe(5)
    expect(tablet.writerState(1)?.lastBatchSequence).toBe(1)
    expect(tablet.writerState(2)?.lastBatchSequence).toBe(0)
    expect(tablet.writerCount).toBe(2)
  })

  it('refuses a request mixing a retried batch with a new one', async () => {
    await tablet.appendAsLeader(writer(7, 0))
    await expectError(
      tablet.appendAsLeader(Buffer.concat([writer(7, 0), writer(7, 1)])),
      'OUT_OF_ORDER_SEQUENCE_EXCEPTION',
    )
    expect(tablet.logEndOffset).toBe(1)
  })

  it('expires idle writers', async () => {
    await tablet.appendAsLeader(writer(7, 0))
    clock.advance(3_600_001)
    expect(await tablet.removeExpiredWriters(clock.nowMs())).toBe(1)
    expect(tablet.writerState(7)).toBeUndefined()
  })
})

describe('LogTablet.appendAsFollower', () => {
  it('stores leader batches with their offsets and timestamps and checks continuity', async () => {
    const leaderDir = await mkdtemp(join(tmpdir(), 'sluice-leader-'))
    const leader = await LogTablet.open(leaderDir, options())
    try {
      clock.ms = 5_000
      await leader.appendAsLeader(testBatch({ recordCount: 2, writerId: 3, batchSequence: 0 }))
      await leader.appendAsLeader(testBatch({ recordCount: 1, writerId: 3, batchSequence: 1 }))
      const fetched = await leader.read({
        fetchOffset: 0,
        maxBytes: 1 << 20,
        isolation: 'LOG_END',
        minOneMessage: true,
      })
      clock.ms = 1_000
      const info = await tablet.appendAsFollower(fetched.records)
      expect(info).toMatchObject({ firstOffset: 0, lastOffset: 2, logEndOffset: 3, maxTimestamp: 5_000 })
      expect((await readAll(tablet)).map(b => b.commitTimestamp)).toEqual([5_000, 5_000])
      expect(tablet.writerState(3)?.lastBatchSequence).toBe(1)
      await expectError(tablet.appendAsFollower(fetched.records), 'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION')
      expect(tablet.logEndOffset).toBe(3)
    } finally {
      await leader.close()
      await rm(leaderDir, { recursive: true, force: true })
    }
  })
})

describe('LogTablet lifecycle', () => {
  it('refuses work after close with LOG_STORAGE_EXCEPTION', async () => {
    await tablet.appendAsLeader(testBatch())
    await tablet.close()
    await tablet.close()
    await expectError(tablet.appendAsLeader(testBatch()), 'LOG_STORAGE_EXCEPTION')
    const read = tablet.read({ fetchOffset: 0, maxBytes: 100, isolation: 'LOG_END', minOneMessage: false })
    await expectError(read, 'LOG_STORAGE_EXCEPTION')
    tablet = await LogTablet.open(dir, options())
    expect(tablet.logEndOffset).toBe(1)
  })

  it('drops the whole directory', async () => {
    await tablet.appendAsLeader(testBatch())
    await tablet.drop()
    expect(await readdir(dir).catch(e => e.code)).toBe('ENOENT')
    await expectError(tablet.appendAsLeader(testBatch()), 'LOG_STORAGE_EXCEPTION')
    await mkdir(dir)
    tablet = await LogTablet.open(dir, options())
  })

  it('refuses bad options with INVALID_CONFIG_EXCEPTION', async () => {
    await expectError(
      LogTablet.open(join(dir, 'other'), options({ segmentBytes: 2 ** 31 })),
      'INVALID_CONFIG_EXCEPTION',
    )
    await expectError(
      LogTablet.open(join(dir, 'other'), options({ indexBytes: 4 })),
      'INVALID_CONFIG_EXCEPTION',
    )
  })

  it('checkpoints a changed high watermark on its interval', async () => {
    await tablet.close()
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    try {
      tablet = await LogTablet.open(dir, options({ highWatermarkCheckpointIntervalMs: 5000 }))
      await tablet.appendAsLeader(testBatch({ recordCount: 4 }))
      tablet.updateHighWatermark(3)
      vi.advanceTimersByTime(5000)
      await tablet.flush()
      const checkpoint = JSON.parse(await readFile(join(dir, 'high-watermark.checkpoint'), 'utf8'))
      expect(checkpoint.highWatermark).toBe(3)
      expect(tablet.lastBackgroundError).toBeNull()
    } finally {
      vi.useRealTimers()
    }
  })
})
