import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isFlussError } from '@sluice/core/errors'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  LEADER_EPOCH_CHECKPOINT_FILE,
  LeaderEpochCache,
  UNDEFINED_EPOCH_OFFSET,
} from './leader-epoch-cache.js'

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-epochs-'))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('LeaderEpochCache', () => {
  it('answers where each epoch ends and which epoch comes next', async () => {
    const cache = await LeaderEpochCache.load(dir)
    expect(cache.latestEpoch).toBe(-1)
    cache.assign(0, 0)
    cache.assign(2, 40)
    cache.assign(5, 90)
    expect(cache.endOffsetFor(0, 120)).toBe(40)
    expect(cache.endOffsetFor(2, 120)).toBe(90)
    expect(cache.endOffsetFor(5, 120)).toBe(120)
    expect(cache.endOffsetFor(3, 120)).toBe(UNDEFINED_EPOCH_OFFSET)
    expect(cache.nextEpochAfter(-1)).toBe(0)
    expect(cache.nextEpochAfter(2)).toBe(5)
    expect(cache.nextEpochAfter(3)).toBe(5)
    expect(cache.nextEpochAfter(5)).toBe(-1)
    expect(cache.entriesBefore(90).map(e => e.epoch)).toEqual([2, 0])
  })

  it('keeps epochs and start offsets strictly increasing: a contradicting entry replaces the tail', async () => {
    const cache = await LeaderEpochCache.load(dir)
    cache.assign(1, 10)
    cache.assign(3, 50)
    expect(cache.assign(3, 70)).toBe(false)
    expect(cache.entries).toEqual([
      { epoch: 1, startOffset: 10 },
      { epoch: 3, startOffset: 50 },
    ])
    cache.assign(4, 50)
    expect(cache.entries).toEqual([
      { epoch: 1, startOffset: 10 },
      { epoch: 4, startOffset: 50 },
    ])
    cache.assign(2, 30)
    expect(cache.entries).toEqual([
      { epoch: 1, startOffset: 10 },
      { epoch: 2, startOffset: 30 },
    ])
    expect(() => cache.assign(-2, 0)).toThrow(/invalid leader epoch entry/)
  })

  it('truncates from the end (log truncation) and from the start (retention)', async () => {
    const cache = await LeaderEpochCache.load(dir)
    cache.assign(0, 0)
    cache.assign(1, 40)
    cache.assign(2, 90)
    cache.truncateFromEnd(90)
    expect(cache.latestEpoch).toBe(1)
    cache.assign(2, 90)
    cache.truncateFromStart(50)
    expect(cache.entries).toEqual([
      { epoch: 1, startOffset: 50 },
      { epoch: 2, startOffset: 90 },
    ])
    cache.truncateFromStart(95)
    expect(cache.entries).toEqual([{ epoch: 2, startOffset: 95 }])
  })

  it('persists atomically and reloads what it flushed', async () => {
    const cache = await LeaderEpochCache.load(dir)
    cache.assign(0, 0)
    cache.assign(3, 17)
    await cache.flush()
    expect(await readFile(join(dir, LEADER_EPOCH_CHECKPOINT_FILE), 'utf8')).toBe('0\n2\n0 0\n3 17\n')
    const reloaded = await LeaderEpochCache.load(dir)
    expect(reloaded.entries).toEqual(cache.entries)
  })

  it.each([
    ['a wrong version', '9\n0\n'],
    ['a wrong count', '0\n2\n0 0\n'],
    ['out-of-order epochs', '0\n2\n3 0\n1 10\n'],
    ['garbage', '0\n1\nx y\n'],
  ])('refuses a checkpoint with %s as LOG_STORAGE_EXCEPTION', async (_, text) => {
    await writeFile(join(dir, LEADER_EPOCH_CHECKPOINT_FILE), text)
    const error = await LeaderEpochCache.load(dir).then(
      () => undefined,
      e => e,
    )
    expect(isFlussError(error, 'LOG_STORAGE_EXCEPTION')).toBe(true)
  })
})
