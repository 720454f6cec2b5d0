import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import { MemoryLogRecords } from '@sluice/core/record'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FaultInjectingFileIO, TestingClock, testBatch } from '../testing/log.js'
import { LogTablet } from './log-tablet.js'
import type { LogTabletOptions } from './log-tablet-types.js'

let dir: string
let io: FaultInjectingFileIO
let tablet: LogTablet

function options(): LogTabletOptions {
  return {
    segmentBytes: 1000,
    indexIntervalBytes: 100,
    indexBytes: 800,
    writerExpirationMs: 3_600_000,
    highWatermarkCheckpointIntervalMs: 0,
    maxQueuedOperations: 100,
    clock: new TestingClock(),
    io,
  }
}

const logFile = () => join(dir, '00000000000000000000.log')

async function failure(promise: Promise<unknown>): Promise<FlussError> {
  const e = await promise.then(
    () => null,
    (x: unknown) => x,
  )
  expect(e).toBeInstanceOf(FlussError)
  return e as FlussError
}

async function readAll(): Promise<number[]> {
  const { records } = await tablet.read({
    fetchOffset: 0,
    maxBytes: 1 << 20,
    isolation: 'LOG_END',
    minOneMessage: true,
  })
  return new MemoryLogRecords(records).validateAll().map(b => b.baseOffset)
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-log-'))
  io = new FaultInjectingFileIO()
  tablet = await LogTablet.open(dir, options())
  await tablet.appendAsLeader(testBatch({ recordCount: 2, writerId: 4, batchSequence: 0 }))
})

afterEach(async () => {
  io.writeFault = null
  io.truncateFaultCode = null
  await tablet.close()
  await rm(dir, { recursive: true, force: true })
})

describe('LogTablet on a failing disk', () => {
  it('answers DISK_FULL, leaves no torn bytes, and appends again once space is back', async () => {
    const sizeBefore = (await stat(logFile())).size
    io.writeFault = { code: 'ENOSPC', afterBytes: 30, pathIncludes: '.log' }
    const e = await failure(
      tablet.appendAsLeader(testBatch({ recordCount: 3, writerId: 4, batchSequence: 1 })),
    )
    expect(e.errorName).toBe('DISK_FULL')
    expect(e.retriable).toBe(true)
    expect(tablet.logEndOffset).toBe(2)
    expect((await stat(logFile())).size).toBe(sizeBefore)
    const retry = await tablet.appendAsLeader(testBatch({ recordCount: 3, writerId: 4, batchSequence: 1 }))
    expect(retry).toMatchObject({ firstOffset: 2, lastOffset: 4, duplicate: false })
    expect(await readAll()).toEqual([0, 2])
  })

  it('maps other I/O errors to LOG_STORAGE_EXCEPTION', async () => {
    io.writeFault = { code: 'EIO', afterBytes: 0, pathIncludes: '.log' }
    expect((await failure(tablet.appendAsLeader(testBatch()))).errorName).toBe('LOG_STORAGE_EXCEPTION')
    expect((await tablet.appendAsLeader(testBatch())).firstOffset).toBe(2)
  })

  it('cuts torn bytes before the next append when the first cut failed too', async () => {
    io.writeFault = { code: 'ENOSPC', afterBytes: 60, pathIncludes: '.log' }
    io.truncateFaultCode = 'EIO'
    await failure(tablet.appendAsLeader(testBatch({ recordCount: 5 })))
    io.truncateFaultCode = null
    expect((await tablet.appendAsLeader(testBatch({ recordCount: 1, payload: 'x' }))).firstOffset).toBe(2)
    expect(await readAll()).toEqual([0, 2])
    await tablet.close()
    await rm(join(dir, '.clean-shutdown'))
    tablet = await LogTablet.open(dir, options())
    expect(tablet.truncatedBytesOnOpen).toBe(0)
    expect(await readAll()).toEqual([0, 2])
  })

  it('survives a full disk while rolling a segment', async () => {
    for (let i = 1; i <= 5; i++)
      await tablet.appendAsLeader(testBatch({ payload: 'y'.repeat(100), writerId: 4, batchSequence: i }))
    io.writeFault = { code: 'ENOSPC', afterBytes: 0, pathIncludes: 'index', sticky: true }
    const e = await failure(
      tablet.appendAsLeader(testBatch({ payload: 'y'.repeat(300), writerId: 4, batchSequence: 6 })),
    )
    expect(e.errorName).toBe('DISK_FULL')
    expect(tablet.logEndOffset).toBe(7)
    io.writeFault = null
    const info = await tablet.appendAsLeader(
      testBatch({ payload: 'y'.repeat(300), writerId: 4, batchSequence: 6 }),
    )
    expect(info.firstOffset).toBe(7)
    expect(tablet.segmentCount).toBe(2)
    expect(await readAll()).toEqual([0, 2, 3, 4, 5, 6, 7])
  })
})
