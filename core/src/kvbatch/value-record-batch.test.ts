import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { encodeValue } from '../row/value-codec.js'
import { ValueRecordBatch, ValueRecordBatchBuilder } from './value-record-batch.js'

function corrupt(bytes: Uint8Array): string {
  try {
    ValueRecordBatch.from(bytes)
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe('CORRUPT_MESSAGE')
    return (e as Error).message
  }
  throw new Error('expected CORRUPT_MESSAGE')
}

function sample(): Buffer {
  const builder = new ValueRecordBatchBuilder()
  builder.append(1, Buffer.from('000a03616263', 'hex'))
  builder.appendValue(encodeValue(2, Buffer.from('0105', 'hex')))
  return Buffer.from(builder.build())
}

/** A tamper step that edits the sample batch in place. */
function edit(change: (b: Buffer) => unknown): (b: Buffer) => Buffer {
  return b => {
    change(b)
    return b
  }
}

describe('ValueRecordBatch', () => {
  it('lays out Length | Magic | RecordCount | (Length | SchemaId | row)*', () => {
    const records = '08000000' + '0100' + '000a03616263' + '04000000' + '0200' + '0105'
    const length = (5 + records.length / 2).toString(16).padStart(2, '0')
    expect(sample().toString('hex')).toBe(`${length}0000000002000000${records}`)
  })

  it('round-trips records', () => {
    const batch = ValueRecordBatch.from(sample())
    expect(batch.magic).toBe(0)
    expect(batch.recordCount).toBe(2)
    const read = [...batch].map(r => [r.schemaId, r.row.toString('hex')])
    expect(read).toEqual([
      [1, '000a03616263'],
      [2, '0105'],
    ])
  })

  it('builds an empty batch', () => {
    const bytes = new ValueRecordBatchBuilder().build()
    expect(bytes.toString('hex')).toBe('050000000000000000')
    expect([...ValueRecordBatch.from(bytes)]).toEqual([])
  })

  it('enforces the optional write limit, except for the first record', () => {
    const builder = new ValueRecordBatchBuilder({ writeLimitBytes: 20 })
    builder.append(1, new Uint8Array(30))
    expect(builder.hasRoomFor(1)).toBe(false)
    expect(() => builder.append(1, new Uint8Array(1))).toThrow(/does not fit/)
    expect(() => builder.appendValue(new Uint8Array([1]))).toThrow(/has no schema id/)
  })

  it.each([
    ['a header-less buffer', (b: Buffer) => b.subarray(0, 8), /shorter than its header/],
    ['a wrong declared size', (b: Buffer) => b.subarray(0, 20), /declares 29 bytes but has 20/],
    ['an unknown magic', edit(b => b.writeInt8(3, 4)), /magic 3/],
    ['a negative record count', edit(b => b.writeInt32LE(-2, 5)), /invalid record count -2/],
    ['a record shorter than a schema id', edit(b => b.writeInt32LE(1, 9)), /length 1/],
    ['a record past the end', edit(b => b.writeInt32LE(99, 9)), /length 99/],
    ['extra records beyond the count', edit(b => b.writeInt32LE(1, 5)), /bytes follow the last of 1/],
    ['fewer records than the count', edit(b => b.writeInt32LE(3, 5)), /record 2 is truncated/],
  ])('rejects %s', (_name, tamper, message) => {
    expect(corrupt(tamper(sample()))).toMatch(message)
  })
})
