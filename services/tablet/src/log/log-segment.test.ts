import { appendFile, mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LogRecordBatch, MemoryLogRecords } from '@sluice/core/record'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { testBatch } from '../testing/log.js'
import { nodeFileIO } from './file-io.js'
import { type BatchPlacement, LogSegment, type LogSegmentConfig } from './log-segment.js'

const config: LogSegmentConfig = { indexIntervalBytes: 200, indexMaxEntries: 100, scanChunkBytes: 256 }
let dir: string
let segment: LogSegment

/** Appends one batch of `records` records at `baseOffset` with commit time `timestamp`. */
async function append(baseOffset: number, records: number, timestamp: number): Promise<void> {
  const bytes = testBatch({ recordCount: records, payload: 'p'.repeat(100) })
  const batch = new LogRecordBatch(bytes)
  batch.setBaseOffset(baseOffset)
  batch.setCommitTimestamp(timestamp)
  const placement: BatchPlacement = {
    position: 0,
    sizeInBytes: bytes.length,
    baseOffset,
    lastOffset: batch.lastOffset,
    commitTimestamp: timestamp,
  }
  await segment.append(bytes, [placement])
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-segment-'))
  segment = await LogSegment.create(nodeFileIO, dir, 100, config)
  for (let i = 0; i < 10; i++) await append(100 + i * 3, 3, 5000 + i * 10)
})

afterEach(async () => {
  await segment.close()
  await rm(dir, { recursive: true, force: true })
})

describe('LogSegment', () => {
  it('is named after its zero-padded base offset', async () => {
    expect((await readdir(dir)).sort()).toEqual(['00000000000000000100.log'])
    await segment.persist()
    expect((await readdir(dir)).sort()).toEqual([
      '00000000000000000100.index',
      '00000000000000000100.log',
      '00000000000000000100.timeindex',
    ])
    expect((await stat(join(dir, '00000000000000000100.index'))).size).toBeGreaterThan(0)
  })

  it('translates offsets to the batch holding them', async () => {
    expect(await segment.translateOffset(100)).toMatchObject({
      position: 0,
      baseOffset: 100,
      lastOffset: 102,
    })
    expect(await segment.translateOffset(125)).toMatchObject({ position: 8 * 148, baseOffset: 124 })
    expect(await segment.translateOffset(130)).toBeNull()
  })

  it('reads whole batches bounded by bytes, position of the max offset and minOneMessage', async () => {
    const read = await segment.read(103, 400, 1000, false)
    expect(new MemoryLogRecords(read?.bytes ?? Buffer.alloc(0)).validateAll().map(b => b.baseOffset)).toEqual(
      [103, 106],
    )
    expect((await segment.read(103, 10, 1000, false))?.bytes.length).toBe(0)
    expect((await segment.read(103, 10, 1000, true))?.bytes.length).toBe(148)
    const capped = await segment.read(100, 10_000, 109, false)
    expect(
      new MemoryLogRecords(capped?.bytes ?? Buffer.alloc(0)).validateAll().map(b => b.lastOffset),
    ).toEqual([102, 105, 108])
    expect((await segment.read(100, 10_000, 1000, false))?.reachedEnd).toBe(true)
  })

  it('finds offsets by commit timestamp', async () => {
    expect(await segment.findOffsetByTimestamp(0)).toEqual({ timestamp: 5000, offset: 100 })
    expect(await segment.findOffsetByTimestamp(5041)).toEqual({ timestamp: 5050, offset: 115 })
    expect(await segment.findOffsetByTimestamp(5090)).toEqual({ timestamp: 5090, offset: 127 })
    expect(await segment.findOffsetByTimestamp(5091)).toBeNull()
    expect(await segment.maxTimestamp()).toEqual({ timestamp: 5090, offset: 127 })
  })

  it('truncates to the batch holding an offset', async () => {
    expect(await segment.truncateTo(110)).toBe(148 * 7)
    expect(await segment.nextOffset()).toBe(109)
    expect(segment.sizeInBytes).toBe(148 * 3)
    expect(await segment.maxTimestamp()).toEqual({ timestamp: 5020, offset: 106 })
  })

  it('recovers by cutting a torn tail and rebuilding the indexes', async () => {
    await segment.close()
    await appendFile(join(dir, '00000000000000000100.log'), Buffer.from([1, 2, 3]))
    segment = await LogSegment.open(nodeFileIO, dir, 100, config)
    expect(await segment.recover()).toBe(3)
    expect(await segment.nextOffset()).toBe(130)
    expect(await segment.translateOffset(125)).toMatchObject({ position: 8 * 148 })
    expect(await segment.firstTimestamp()).toBe(5000)
  })
})
