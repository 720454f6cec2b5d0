import { describe, expect, it } from 'vitest'
import { OffsetIndex } from './offset-index.js'
import { TimeIndex } from './time-index.js'

describe('OffsetIndex', () => {
  function sample(): OffsetIndex {
    const index = new OffsetIndex(100, 10)
    index.append(109, 4000)
    index.append(119, 8100)
    index.append(140, 12500)
    return index
  }

  it('finds the greatest entry at or below the target', () => {
    const index = sample()
    expect(index.lookup(50)).toEqual({ offset: 100, position: 0 })
    expect(index.lookup(108)).toEqual({ offset: 100, position: 0 })
    expect(index.lookup(109)).toEqual({ offset: 109, position: 4000 })
    expect(index.lookup(139)).toEqual({ offset: 119, position: 8100 })
    expect(index.lookup(10_000)).toEqual({ offset: 140, position: 12500 })
  })

  it('truncates entries at or above an offset', () => {
    const index = sample()
    index.truncateTo(119)
    expect(index.entries).toBe(1)
    expect(index.lastEntry()).toEqual({ offset: 109, position: 4000 })
  })

  it('round-trips through its big-endian file bytes', () => {
    const bytes = sample().toBytes()
    expect(bytes.toString('hex').slice(0, 16)).toBe('00000009' + '00000fa0')
    const loaded = OffsetIndex.fromBytes(100, 10, bytes, 20_000)
    expect(loaded?.lookup(130)).toEqual({ offset: 119, position: 8100 })
  })

  it('refuses file bytes that cannot be an index of the log', () => {
    const bytes = sample().toBytes()
    expect(OffsetIndex.fromBytes(100, 10, bytes.subarray(0, 7), 20_000)).toBeNull()
    expect(OffsetIndex.fromBytes(100, 10, bytes, 10_000)).toBeNull()
    expect(OffsetIndex.fromBytes(100, 2, bytes, 20_000)).toBeNull()
    const shuffled = Buffer.concat([bytes.subarray(8, 16), bytes.subarray(0, 8)])
    expect(OffsetIndex.fromBytes(100, 10, shuffled, 20_000)).toBeNull()
  })

  it('reports fullness and relative-offset overflow', () => {
    const index = new OffsetIndex(0, 1)
    expect(index.canAppendOffset(2 ** 31 - 1)).toBe(true)
    expect(index.canAppendOffset(2 ** 31)).toBe(false)
    index.append(5, 10)
    expect(index.isFull).toBe(true)
  })

  it('grows past its initial capacity', () => {
    const index = new OffsetIndex(0, 1000)
    for (let i = 1; i <= 500; i++) index.append(i * 10, i * 100)
    expect(index.lookup(2505)).toEqual({ offset: 2500, position: 25000 })
  })
})

describe('TimeIndex', () => {
  it('records only growth of the max timestamp and finds entries at or below a time', () => {
    const index = new TimeIndex(0, 10)
    index.maybeAppend(1000, 0)
    index.maybeAppend(1000, 5)
    index.maybeAppend(2000, 10)
    expect(index.entries).toBe(2)
    expect(index.lookup(999)).toEqual({ timestamp: -1, offset: 0 })
    expect(index.lookup(1500)).toEqual({ timestamp: 1000, offset: 0 })
    expect(index.lookup(2000)).toEqual({ timestamp: 2000, offset: 10 })
    index.truncateTo(10)
    expect(index.lastEntry()).toEqual({ timestamp: 1000, offset: 0 })
  })

  it('round-trips through its file bytes and rejects shrinking timestamps', () => {
    const index = new TimeIndex(50, 10)
    index.maybeAppend(1_700_000_000_000, 50)
    index.maybeAppend(1_700_000_000_500, 70)
    const bytes = index.toBytes()
    expect(bytes.length).toBe(24)
    expect(TimeIndex.fromBytes(50, 10, bytes)?.lookup(1_700_000_000_600)).toEqual({
      timestamp: 1_700_000_000_500,
      offset: 70,
    })
    const reversed = Buffer.concat([bytes.subarray(12), bytes.subarray(0, 12)])
    expect(TimeIndex.fromBytes(50, 10, reversed)).toBeNull()
  })
})
