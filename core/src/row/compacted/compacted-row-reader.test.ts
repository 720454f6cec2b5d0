import { describe, expect, it } from 'vitest'
import { FlussError } from '../../errors/index.js'
import { type DataType, DataTypes, type RowType } from '../../types/data-type.js'
import { Timestamp } from '../value.js'
import { CompactedRowDecoder } from './compacted-row.js'
import { CompactedRowReader } from './compacted-row-reader.js'

function rowType(...types: DataType[]): RowType {
  return DataTypes.ROW(types.map((type, i) => ({ name: `f${i}`, type, fieldId: i })))
}

function decodeHex(type: RowType, hexBytes: string) {
  return new CompactedRowDecoder(type).decode(Buffer.from(hexBytes, 'hex'))
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

describe('CompactedRowReader on corrupt input', () => {
  it.each([
    ['a row shorter than its null bit set', rowType(DataTypes.INT()), '', /null bit set/],
    ['a truncated INT varint', rowType(DataTypes.INT()), '0080', /truncated varint/],
    ['an INT varint with bits above 32', rowType(DataTypes.INT()), '00ffffffff1f', /32 bits/],
    ['an INT varint with a 6th byte', rowType(DataTypes.INT()), '00ffffffff8f01', /32 bits/],
    ['a truncated BIGINT varint', rowType(DataTypes.BIGINT()), `00${'ff'.repeat(9)}`, /truncated varint/],
    ['a BIGINT varint with bits above 64', rowType(DataTypes.BIGINT()), `00${'ff'.repeat(9)}02`, /64 bits/],
    ['a truncated BOOLEAN', rowType(DataTypes.BOOLEAN()), '00', /truncated BOOLEAN/],
    ['a truncated SMALLINT', rowType(DataTypes.SMALLINT()), '0001', /truncated SMALLINT/],
    ['a truncated FLOAT', rowType(DataTypes.FLOAT()), '00000000', /truncated FLOAT/],
    ['a truncated DOUBLE', rowType(DataTypes.DOUBLE()), '0000000000000000', /truncated DOUBLE/],
    ['a string length past the end', rowType(DataTypes.STRING()), '00056162', /length 5 exceeds the 2 bytes/],
    ['a negative string length', rowType(DataTypes.STRING()), '00ffffffff0f', /length -1/],
    ['invalid UTF-8', rowType(DataTypes.STRING()), '0002c328', /invalid UTF-8/],
    ['a UTF-16 surrogate encoded in UTF-8', rowType(DataTypes.STRING()), '0003eda080', /invalid UTF-8/],
    ['bytes past the end', rowType(DataTypes.BYTES()), '000301', /exceeds/],
    ['empty DECIMAL(38) bytes', rowType(DataTypes.DECIMAL(38, 2)), '0000', /empty decimal/],
    [
      'a nano-of-milli out of range',
      rowType(DataTypes.TIMESTAMP(6)),
      '0001c0843d',
      /nano-of-millisecond 1000000/,
    ],
    [
      'timestamp millis beyond 2^53',
      rowType(DataTypes.TIMESTAMP(3)),
      '0080808080808080808001',
      /safe integer/,
    ],
    ['trailing bytes after the last field', rowType(DataTypes.INT()), '000102', /1 bytes left/],
    ['a nested row length past the end', rowType(rowType(DataTypes.INT())), '000900', /exceeds/],
    ['a truncated nested row', rowType(rowType(DataTypes.INT())), '000100', /truncated varint/],
  ])('rejects %s', (_name, type, bytes, message) => {
    expect(corruptError(() => decodeHex(type, bytes)).message).toMatch(message)
  })

  it('rejects invalid UTF-8 in long strings too', () => {
    const bad = `${'61'.repeat(100)}ff`
    expect(corruptError(() => decodeHex(rowType(DataTypes.STRING()), `0065${bad}`)).message).toMatch(/UTF-8/)
  })

  it('rejects a row range outside the buffer', () => {
    const reader = new CompactedRowReader(1)
    corruptError(() => reader.pointTo(new Uint8Array(4), 2, 3))
    corruptError(() => reader.pointTo(new Uint8Array(4), -1, 2))
  })

  it('never reads past the row range into neighbouring bytes', () => {
    // an INT whose varint continues into the next row's bytes
    const buf = Buffer.from('0080' + '01', 'hex')
    const decoder = new CompactedRowDecoder(rowType(DataTypes.INT()))
    corruptError(() => decoder.decode(buf, 0, 2))
    expect(decoder.decode(buf, 0, 3)).toEqual([128])
  })

  it('decodes a row at an offset inside a larger buffer', () => {
    const buf = Buffer.from('ffff' + '00e80705' + 'ffff', 'hex')
    const decoder = new CompactedRowDecoder(rowType(DataTypes.TIMESTAMP(6)))
    expect(decoder.decode(buf, 2, 4)).toEqual([new Timestamp(1000, 5)])
  })

  it('reads a plain Uint8Array as well as a Buffer', () => {
    const decoder = new CompactedRowDecoder(rowType(DataTypes.STRING(), DataTypes.BYTES()))
    const bytes = new Uint8Array([0, 2, 0x68, 0x69, 1, 9])
    expect(decoder.decode(bytes)).toEqual(['hi', new Uint8Array([9])])
  })

  it('keeps a leading byte-order mark in strings', () => {
    expect(decodeHex(rowType(DataTypes.STRING()), '0004efbbbf41')).toEqual(['\ufeffA'])
  })
})
