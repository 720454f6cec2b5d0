import { DataTypes, Decimal, notNull, type RowType, Timestamp, type Value } from '@sluice/core'
import { NESTED_ROWS, NESTED_TYPES } from '@sluice/core/testing'
import { describe, expect, it } from 'vitest'
import { GatewayError } from '../errors/gateway-error.js'
import { parseJsonBody } from './parse-json.js'
import { JsonRowReader, JsonRowWriter } from './row-codec.js'

const POINT = DataTypes.ROW([
  { name: 'x', type: notNull(DataTypes.INT()), fieldId: 1 },
  { name: 'label', type: DataTypes.STRING(), fieldId: 2 },
])
const table: RowType = DataTypes.ROW([
  { name: 'id', type: notNull(DataTypes.INT()), fieldId: 0 },
  { name: 'tags', type: DataTypes.ARRAY(DataTypes.STRING()), fieldId: 3 },
  { name: 'point', type: POINT, fieldId: 4 },
  { name: 'by_id', type: DataTypes.MAP(DataTypes.BIGINT(), DataTypes.ARRAY(POINT)), fieldId: 5 },
  { name: 'prices', type: DataTypes.MAP(DataTypes.STRING(), DataTypes.DECIMAL(10, 2)), fieldId: 6 },
  { name: 'at', type: DataTypes.MAP(DataTypes.TIMESTAMP_LTZ(3), DataTypes.BOOLEAN()), fieldId: 7 },
])
const reader = new JsonRowReader(table)
const writer = new JsonRowWriter(table)
const map = (...entries: [Value, Value][]) => new Map<Value, Value>(entries)

function refusal(json: unknown): string {
  try {
    reader.read(json, 'rows[0]')
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError)
    return (e as Error).message
  }
  throw new Error(`expected ${JSON.stringify(json)} to be refused`)
}

describe('typed JSON of nested values', () => {
  it('reads arrays, string-keyed maps as objects, other maps as entries, rows as objects', () => {
    const json = {
      id: 1,
      tags: ['a', null],
      point: { label: 'p', x: 2 },
      by_id: [
        { key: '9007199254740993', value: [{ x: 1, label: null }, null] },
        { key: 2, value: [] },
      ],
      prices: { EUR: '1.50', USD: null },
      at: [{ key: '2024-01-01T00:00:00.001Z', value: true }],
    }
    const row = reader.read(json, 'rows[0]')
    expect(row).toEqual([
      1,
      ['a', null],
      [2, 'p'],
      map([9007199254740993n, [[1, null], null]], [2n, []]),
      map(['EUR', new Decimal(150n, 2)], ['USD', null]),
      map([new Timestamp(1_704_067_200_001), true]),
    ])
    // The canonical form: BIGINT keys as strings, decimals with their scale, LTZ in UTC.
    expect(writer.write(row)).toEqual({
      ...json,
      point: { x: 2, label: 'p' },
      by_id: [
        { key: '9007199254740993', value: [{ x: 1, label: null }, null] },
        { key: '2', value: [] },
      ],
    })
  })

  it('also takes [key, value] pairs, entries for string keys, and a field left out of a ROW as null', () => {
    expect(reader.read({ id: 1, point: { x: 1 }, by_id: [[3, null]], prices: [{ key: 'a' }] }, 'r')).toEqual([
      1,
      null,
      [1, null],
      map([3n, null]),
      map(['a', null]),
      null,
    ])
  })

  it('refuses bad nested values, naming their path', () => {
    expect(refusal({ id: 1, tags: 'a' })).toMatch(/^rows\[0\]\.tags: expected an array, got string/)
    expect(refusal({ id: 1, tags: [1] })).toMatch(/^rows\[0\]\.tags\[0\]: expected a string/)
    expect(refusal({ id: 1, point: [1, 'a'] })).toMatch(
      /^rows\[0\]\.point: expected an object of field names/,
    )
    expect(refusal({ id: 1, point: { x: 1, y: 2 } })).toMatch(/^rows\[0\]\.point\.y: no such field/)
    expect(refusal({ id: 1, point: { label: 'no x' } })).toMatch(
      /^rows\[0\]\.point: .*column 'point\.x' .*NOT NULL/,
    )
    expect(refusal({ id: 1, by_id: { 1: [] } })).toMatch(
      /^rows\[0\]\.by_id: expected an array of \{"key", "value"\} entries .*got object/,
    )
    expect(refusal({ id: 1, by_id: [{ key: 1, value: [], extra: 0 }] })).toMatch(
      /^rows\[0\]\.by_id\[0\]\.extra: a map entry has only "key" and "value"/,
    )
    expect(refusal({ id: 1, by_id: [{ value: [] }] })).toMatch(/^rows\[0\]\.by_id\[0\]: expected a \{"key"/)
    expect(refusal({ id: 1, by_id: [{ key: null, value: [] }] })).toMatch(
      /by_id\[0\]\.key: a MAP key cannot be null/,
    )
    expect(refusal({ id: 1, by_id: [{ key: 1 }, { key: '1' }] })).toMatch(
      /^rows\[0\]\.by_id\[1\]\.key: the key "1" is given twice/,
    )
    expect(refusal({ id: 1, by_id: [{ key: 1, value: [{ x: 'one' }] }] })).toMatch(
      /^rows\[0\]\.by_id\[0\]\.value\[0\]\.x: expected an integer/,
    )
    expect(refusal({ id: 1, prices: { EUR: '1.555' } })).toMatch(
      /^rows\[0\]\.prices\.EUR: .*DECIMAL\(10, 2\)/,
    )
    expect(refusal({ id: 1, at: [{ key: '2024-01-01T00:00:00', value: true }] })).toMatch(
      /^rows\[0\]\.at\[0\]\.key: .*zone/,
    )
  })

  it('round-trips the nested test rows through their canonical JSON text', () => {
    const rt = new JsonRowReader(NESTED_TYPES)
    const wt = new JsonRowWriter(NESTED_TYPES)
    const parse = (text: string) => rt.read(parseJsonBody(new TextEncoder().encode(text), 68), 'rows[0]')
    for (const row of NESTED_ROWS) {
      const text = JSON.stringify(wt.write(row))
      expect(JSON.stringify(wt.write(parse(text)))).toBe(text)
      // JSON has no negative zero (the first row's -0 reads back as 0); every other value is exact.
      if (row !== NESTED_ROWS[0]) expect(parse(text)).toEqual(row)
    }
  })
})
