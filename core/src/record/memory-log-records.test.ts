import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import {
  ChangeType,
  changeTypeFromByte,
  changeTypeFromShortString,
  changeTypeShortString,
} from './change-type.js'
import { buildLogBatch } from './log-batch-builder.js'
import { batchBoundaryAt, MemoryLogRecords, wholeBatchesPrefixSize } from './memory-log-records.js'

function batch(recordCount: number, payloadBytes: number): Buffer {
  return buildLogBatch({
    schemaId: 1,
    appendOnly: true,
    recordCount,
    records: new Uint8Array(payloadBytes).fill(7),
  })
}

function corruptError(fn: () => unknown): FlussError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe('CORRUPT_RECORD_EXCEPTION')
    return e as FlussError
  }
  throw new Error('expected a CORRUPT_RECORD_EXCEPTION')
}

describe('MemoryLogRecords', () => {
  const a = batch(1, 10)
  const b = batch(3, 20)
  const c = batch(0, 0)
  const all = Buffer.concat([a, b, c])

  it('iterates concatenated batches at their positions', () => {
    const batches = [...new MemoryLogRecords(all).batches()]
    expect(batches.map(x => x.position)).toEqual([0, a.length, a.length + b.length])
    expect(batches.map(x => x.recordCount)).toEqual([1, 3, 0])
    expect(new MemoryLogRecords(all).split().map(x => x.length)).toEqual([a.length, b.length, c.length])
  })

  it('yields nothing for an empty buffer', () => {
    expect([...MemoryLogRecords.EMPTY.batches()]).toEqual([])
  })

  it('names the truncated tail and where it starts', () => {
    const cut = all.subarray(0, all.length - 5)
    const e = corruptError(() => [...new MemoryLogRecords(cut).batches()])
    expect(e.message).toMatch(new RegExp(`position ${a.length + b.length} is truncated`))
  })

  it('rejects a few trailing bytes that cannot hold a header', () => {
    const e = corruptError(() => [...new MemoryLogRecords(Buffer.concat([a, Buffer.alloc(4)])).batches()])
    expect(e.message).toMatch(/4 trailing bytes/)
  })

  it('validates all batches or none', () => {
    const bad = Buffer.concat([a, b, c])
    bad[a.length + 60] ^= 0xff
    const e = corruptError(() => new MemoryLogRecords(bad).validateAll())
    expect(e.message).toMatch(/batch 1 at position \d+: log batch CRC mismatch/)
    expect(new MemoryLogRecords(all).validateAll()).toHaveLength(3)
  })

  it('finds batch boundaries without reading past a bad one', () => {
    expect(batchBoundaryAt(all, 0)).toEqual({ ok: true, size: a.length })
    expect(batchBoundaryAt(all, 0, a.length - 1)).toMatchObject({ ok: false, reason: 'truncated' })
    const badMagic = Buffer.from(a)
    badMagic[12] = 5
    expect(batchBoundaryAt(badMagic, 0)).toMatchObject({ ok: false, reason: 'corrupt' })
  })

  it('takes the longest whole-batch prefix within a byte budget', () => {
    expect(wholeBatchesPrefixSize(all, all.length)).toBe(all.length)
    expect(wholeBatchesPrefixSize(all, a.length + b.length - 1)).toBe(a.length)
    expect(wholeBatchesPrefixSize(all, 10)).toBe(0)
    expect(wholeBatchesPrefixSize(all, 10, true)).toBe(a.length)
    expect(wholeBatchesPrefixSize(all.subarray(0, a.length + 3), 1000)).toBe(a.length)
  })
})

describe('ChangeType', () => {
  it('maps bytes and short strings the way Fluss does', () => {
    expect([0, 1, 2, 3, 4].map(b => changeTypeShortString(changeTypeFromByte(b)))).toEqual([
      '+A',
      '+I',
      '-U',
      '+U',
      '-D',
    ])
    expect(changeTypeFromShortString('-D')).toBe(ChangeType.DELETE)
  })

  it('rejects unknown values with typed errors', () => {
    corruptError(() => changeTypeFromByte(5))
    expect(() => changeTypeFromShortString('+X')).toThrow(FlussError)
  })
})
