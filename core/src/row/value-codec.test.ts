import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { DataTypes } from '../types/data-type.js'
import { decodeCompactedRow, encodeCompactedRow } from './compacted/compacted-row.js'
import { decodeValue, encodeValue } from './value-codec.js'

describe('KV value encoding', () => {
  const type = DataTypes.ROW([
    { name: 'id', type: DataTypes.INT(), fieldId: 0 },
    { name: 'name', type: DataTypes.STRING(), fieldId: 1 },
  ])

  it('prefixes the row with the schema id as int16 little-endian', () => {
    const row = encodeCompactedRow([10, 'abc'], type)
    const value = encodeValue(258, row)
    expect(value.toString('hex')).toBe('0201000a03616263')
    const decoded = decodeValue(value)
    expect(decoded.schemaId).toBe(258)
    expect(decoded.row.equals(row)).toBe(true)
    expect(decodeCompactedRow(decoded.row, type)).toEqual([10, 'abc'])
  })

  it('returns the row as a view of the value', () => {
    const value = encodeValue(1, new Uint8Array([0, 1]))
    const { row } = decodeValue(value)
    value[2] = 0xff
    expect(row[0]).toBe(0xff)
  })

  it('rejects values too short for a schema id and out-of-range schema ids', () => {
    expect(() => decodeValue(new Uint8Array([1]))).toThrow(FlussError)
    expect(() => decodeValue(new Uint8Array([1]))).toThrow(/cannot hold its 2-byte schema id/)
    expect(() => encodeValue(32_768, new Uint8Array())).toThrow(/Schema id 32768/)
    expect(() => encodeValue(-1, new Uint8Array())).toThrow(/Schema id -1/)
  })
})
