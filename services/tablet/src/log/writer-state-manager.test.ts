import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import { LogRecordBatch } from '@sluice/core/record'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { testBatch } from '../testing/log.js'
import { nodeFileIO } from './file-io.js'
import { inSequence } from './writer-state-entry.js'
import { WriterStateManager } from './writer-state-manager.js'

let dir: string
let writers: WriterStateManager

function batch(
  writerId: number,
  batchSequence: number,
  baseOffset: number,
  timestamp = 1000,
): LogRecordBatch {
  const b = new LogRecordBatch(testBatch({ writerId, batchSequence, recordCount: 2 }))
  b.setBaseOffset(baseOffset)
  b.setCommitTimestamp(timestamp)
  return b
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-writers-'))
  writers = new WriterStateManager(nodeFileIO, dir, 10_000)
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('inSequence', () => {
  it('follows Fluss: last + 1, first = 0, wrap at int32 max, unknown accepted only when allowed', () => {
    expect(inSequence(-1, 0, false)).toBe(true)
    expect(inSequence(-1, 3, false)).toBe(false)
    expect(inSequence(-1, 3, true)).toBe(true)
    expect(inSequence(4, 5, false)).toBe(true)
    expect(inSequence(4, 6, false)).toBe(false)
    expect(inSequence(0x7fffffff, 0, false)).toBe(true)
  })
})

describe('WriterStateManager', () => {
  it('plans without changing state until applied', () => {
    const plan = writers.planAppend([batch(1, 0, 0)], true, 1000)
    expect(writers.lastEntry(1)).toBeUndefined()
    writers.apply(plan)
    expect(writers.lastEntry(1)?.batches).toEqual([
      { batchSequence: 0, lastOffset: 1, offsetDelta: 1, timestamp: 1000 },
    ])
  })

  it('lets a follower append with an unknown writer at any sequence but refuses duplicates', () => {
    writers.apply(writers.planAppend([batch(1, 7, 0)], false, 1000))
    expect(writers.lastEntry(1)?.lastBatchSequence).toBe(7)
    expect(() => writers.planAppend([batch(1, 7, 2)], false, 1000)).toThrow(
      expect.objectContaining({ errorName: 'DUPLICATE_SEQUENCE_EXCEPTION' }),
    )
  })

  it('accepts any sequence from a leader when the batch is older than the writer expiration', () => {
    expect(() => writers.planAppend([batch(2, 9, 0, 1000)], true, 1000)).toThrow(FlussError)
    expect(writers.planAppend([batch(2, 9, 0, 1000)], true, 20_000).updates.size).toBe(1)
  })

  it('writes snapshots and reloads the newest readable one at or below an offset', async () => {
    writers.apply(writers.planAppend([batch(1, 0, 0)], true, 1000))
    writers.mapEndOffset = 2
    await writers.takeSnapshot()
    writers.apply(writers.planAppend([batch(1, 1, 2)], true, 1000))
    writers.mapEndOffset = 4
    await writers.takeSnapshot()
    expect((await readdir(dir)).sort()).toEqual([
      '00000000000000000002.writer_snapshot',
      '00000000000000000004.writer_snapshot',
    ])

    expect(await writers.loadLatestSnapshot(3, 1000)).toBe(2)
    expect(writers.lastEntry(1)?.lastBatchSequence).toBe(0)
    expect(await readdir(dir)).toEqual(['00000000000000000002.writer_snapshot'])

    await writeFile(join(dir, '00000000000000000003.writer_snapshot'), '{not json')
    const fresh = new WriterStateManager(nodeFileIO, dir, 10_000)
    expect(await fresh.loadLatestSnapshot(100, 1000)).toBe(2)
    expect(await readdir(dir)).toEqual(['00000000000000000002.writer_snapshot'])
  })

  it('drops expired writers when loading a snapshot', async () => {
    writers.apply(writers.planAppend([batch(1, 0, 0, 1000)], true, 1000))
    writers.mapEndOffset = 2
    await writers.takeSnapshot()
    expect(await writers.loadLatestSnapshot(2, 50_000)).toBe(2)
    expect(writers.writerCount).toBe(0)
  })
})
