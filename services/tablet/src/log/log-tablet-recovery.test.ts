import { appendFile, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises'
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
    segmentBytes: 2000,
    indexIntervalBytes: 100,
    indexBytes: 800,
    writerExpirationMs: 3_600_000,
    highWatermarkCheckpointIntervalMs: 0,
    maxQueuedOperations: 100,
    clock,
  }
}

const BATCH_BYTES = 148

/** 16 batches of 2 records from writer 5 (sequences 0..15): segments at 0 and 26. */
async function fill(): Promise<void> {
  for (let i = 0; i < 16; i++) {
    await tablet.appendAsLeader(
      testBatch({ recordCount: 2, payload: String(i).padStart(100, '.'), writerId: 5, batchSequence: i }),
    )
    clock.advance(1000)
  }
  tablet.updateHighWatermark(tablet.logEndOffset)
}

async function activeLogFile(): Promise<string> {
  const logs = (await readdir(dir)).filter(f => f.endsWith('.log')).sort()
  return join(dir, logs[logs.length - 1])
}

/** Closes, then makes the next open treat the directory as after a crash. */
async function crash(): Promise<void> {
  await tablet.close()
  await rm(join(dir, '.clean-shutdown'))
}

async function reopen(): Promise<LogTablet> {
  tablet = await LogTablet.open(dir, options())
  return tablet
}

async function readAll(): Promise<number[]> {
  const { records } = await tablet.read({
    fetchOffset: tablet.logStartOffset,
    maxBytes: 1 << 20,
    isolation: 'LOG_END',
    minOneMessage: true,
  })
  return new MemoryLogRecords(records).validateAll().map(b => b.baseOffset)
}

const allOffsets = Array.from({ length: 16 }, (_, i) => i * 2)

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-log-'))
  clock = new TestingClock(1_000_000)
  tablet = await LogTablet.open(dir, options())
  await fill()
  expect(tablet.segmentCount).toBe(2)
})

afterEach(async () => {
  await tablet.close()
  await rm(dir, { recursive: true, force: true })
})

describe('LogTablet recovery', () => {
  it('reopens a cleanly closed log without recovery', async () => {
    await tablet.close()
    await reopen()
    expect(tablet.openedAfterCleanShutdown).toBe(true)
    expect(tablet.logEndOffset).toBe(32)
    expect(await readAll()).toEqual(allOffsets)
  })

  it('cuts garbage appended after the last batch', async () => {
    await crash()
    await appendFile(await activeLogFile(), Buffer.alloc(37, 0xab))
    await reopen()
    expect(tablet.openedAfterCleanShutdown).toBe(false)
    expect(tablet.truncatedBytesOnOpen).toBe(37)
    expect(tablet.logEndOffset).toBe(32)
    expect(await readAll()).toEqual(allOffsets)
    expect((await tablet.appendAsLeader(testBatch({ writerId: 5, batchSequence: 16 }))).firstOffset).toBe(32)
  })

  it('cuts a last batch that was written only halfway', async () => {
    await crash()
    const file = await activeLogFile()
    await truncate(file, (await stat(file)).size - BATCH_BYTES / 2)
    await reopen()
    expect(tablet.truncatedBytesOnOpen).toBe(BATCH_BYTES / 2)
    expect(tablet.logEndOffset).toBe(30)
    expect(await readAll()).toEqual(allOffsets.slice(0, 15))
    expect(tablet.highWatermark).toBe(30)
    const info = await tablet.appendAsLeader(testBatch({ recordCount: 2, writerId: 5, batchSequence: 15 }))
    expect(info).toMatchObject({ firstOffset: 30, duplicate: false })
  })

  it('cuts a last batch with a flipped byte', async () => {
    await crash()
    const file = await activeLogFile()
    const bytes = await readFile(file)
    bytes[bytes.length - 10] ^= 0x40
    await writeFile(file, bytes)
    await reopen()
    expect(tablet.truncatedBytesOnOpen).toBe(BATCH_BYTES)
    expect(await readAll()).toEqual(allOffsets.slice(0, 15))
  })

  it('cuts everything from a corrupt batch in the middle of the active segment on', async () => {
    await crash()
    const file = await activeLogFile()
    const bytes = await readFile(file)
    bytes[2 * BATCH_BYTES + 30] ^= 0x01
    await writeFile(file, bytes)
    await reopen()
    expect(tablet.logEndOffset).toBe(30)
    expect(await readAll()).toEqual(allOffsets.slice(0, 15))
  })

  it('does not trust a clean-shutdown marker when the tail does not check out', async () => {
    await tablet.close()
    await appendFile(await activeLogFile(), Buffer.from('not a batch at all'))
    await reopen()
    expect(tablet.logEndOffset).toBe(32)
    expect(await readAll()).toEqual(allOffsets)
  })

  it('rebuilds missing index files to the same bytes', async () => {
    await tablet.close()
    const indexFiles = (await readdir(dir)).filter(f => f.endsWith('index')).sort()
    const before = await Promise.all(indexFiles.map(f => readFile(join(dir, f))))
    expect(before.some(b => b.length > 0)).toBe(true)
    await Promise.all(indexFiles.map(f => rm(join(dir, f))))
    await rm(join(dir, '.clean-shutdown'))
    await reopen()
    expect(await tablet.offsetForTimestamp(1_004_500)).toBe(10)
    expect(await readAll()).toEqual(allOffsets)
    await tablet.close()
    const after = await Promise.all(indexFiles.map(f => readFile(join(dir, f))))
    expect(after).toEqual(before)
    await reopen()
  })

  it('rebuilds a damaged sealed-segment index when it is first used', async () => {
    await tablet.close()
    await writeFile(join(dir, '00000000000000000000.index'), Buffer.alloc(12, 0xff))
    await reopen()
    const { records } = await tablet.read({
      fetchOffset: 9,
      maxBytes: 2 * BATCH_BYTES,
      isolation: 'LOG_END',
      minOneMessage: false,
    })
    expect(new MemoryLogRecords(records).validateAll().map(b => b.baseOffset)).toEqual([8, 10])
  })

  it('keeps idempotent writer state across a clean restart and a crash', async () => {
    await tablet.close()
    await reopen()
    expect(
      await tablet.appendAsLeader(testBatch({ recordCount: 2, writerId: 5, batchSequence: 15 })),
    ).toMatchObject({
      duplicate: true,
      firstOffset: 30,
    })
    await crash()
    await rm(join(dir, '00000000000000000032.writer_snapshot'))
    await reopen()
    expect(
      await tablet.appendAsLeader(testBatch({ recordCount: 2, writerId: 5, batchSequence: 14 })),
    ).toMatchObject({
      duplicate: true,
      firstOffset: 28,
    })
    const e = await tablet.appendAsLeader(testBatch({ writerId: 5, batchSequence: 18 })).catch(x => x)
    expect(e.errorName).toBe('OUT_OF_ORDER_SEQUENCE_EXCEPTION')
    expect((await tablet.appendAsLeader(testBatch({ writerId: 5, batchSequence: 16 }))).firstOffset).toBe(32)
  })

  it('keeps writer state of batches cut by recovery out of the state', async () => {
    await crash()
    const file = await activeLogFile()
    await truncate(file, (await stat(file)).size - 1)
    await rm(join(dir, '00000000000000000032.writer_snapshot'))
    await reopen()
    expect(tablet.writerState(5)?.lastBatchSequence).toBe(14)
  })
})
