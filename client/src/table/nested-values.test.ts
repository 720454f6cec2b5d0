import { type Row, Timestamp, type Value } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { objectRenderer, rowObjectRenderer } from './nested-values.js'
import { RowConverter } from './row-converter.js'

const POINT = DataTypes.ROW([
  { name: 'x', type: notNull(DataTypes.INT()), fieldId: 10 },
  { name: 'label', type: DataTypes.STRING(), fieldId: 11 },
])
const SAMPLE = DataTypes.ROW([
  { name: 'values', type: DataTypes.ARRAY(DataTypes.FLOAT()), fieldId: 12 },
  { name: 'ts', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 13 },
])
const rowType = DataTypes.ROW([
  { name: 'id', type: notNull(DataTypes.BIGINT()), fieldId: 0 },
  { name: 'ids', type: DataTypes.ARRAY(DataTypes.BIGINT()), fieldId: 1 },
  { name: 'point', type: POINT, fieldId: 2 },
  { name: 'samples', type: DataTypes.ARRAY(DataTypes.MAP(DataTypes.STRING(), SAMPLE)), fieldId: 3 },
  { name: 'by_id', type: DataTypes.MAP(DataTypes.INT(), DataTypes.ARRAY(POINT)), fieldId: 4 },
])
const converter = new RowConverter(rowType)
const map = (...entries: [Value, Value][]) => new Map<Value, Value>(entries)

/** The row in the core value model: ROW values as arrays in field order, MAP values as Maps. */
const core: Row = [
  1n,
  [2n, null],
  [7, 'seven'],
  [map(['m', [[1.5, null], new Timestamp(5)]]), null],
  map([1, [[1, 'one'], null]], [2, []]),
]

describe('nested values written through the SDK', () => {
  it('takes the core model as it is', () => {
    expect(converter.toRow(core)).toEqual(core)
  })

  it('takes ROW values as objects keyed by field name, MAP<STRING, …> as objects, at any depth', () => {
    const row = converter.toRow({
      id: 1,
      ids: [2, null],
      point: { label: 'seven', x: 7 },
      samples: [{ m: { values: new Float32Array([1.5]), ts: new Date(5) } }, null],
      by_id: new Map<number, unknown>([
        [1, [{ x: 1, label: 'one' }, null]],
        [2, []],
      ]),
    })
    // Safe-integer numbers become BIGINTs and Dates timestamps inside nested values too; a field
    // left out of a ROW object is null.
    expect(row).toEqual([
      1n,
      [2n, null],
      [7, 'seven'],
      [map(['m', [[1.5], new Timestamp(5)]]), null],
      core[4],
    ])
    expect(converter.toRow({ id: 1n, point: { x: 3 } })).toEqual([1n, null, [3, null], null, null])
    const byBig = new RowConverter(
      DataTypes.ROW([{ name: 'm', type: DataTypes.MAP(DataTypes.BIGINT(), POINT), fieldId: 0 }]),
    )
    expect(byBig.toRow([new Map([[2n ** 60n, { x: 1 }]])])).toEqual([map([2n ** 60n, [1, null]])])
    expect(() => byBig.toRow([new Map([[5n, { y: 1 }]])])).toThrow(/column 'm\[5\]' of type ROW/)
  })

  it('names the path of a bad nested value, and of an unknown ROW field', () => {
    expect(() => converter.toRow({ id: 1n, point: { x: 1, lable: 'a' } })).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_REQUEST',
        message: expect.stringMatching(
          /column 'point' of type ROW<.*'lable' is not one of its fields \(x, label\)/,
        ),
      }),
    )
    expect(() => converter.toRow({ id: 1n, samples: [{ m: { values: [1.5], ts: 'x', extra: 1 } }] })).toThrow(
      /column 'samples\[0\]\["m"\]'.*'extra' is not one of its fields/,
    )
    expect(() => converter.toRow({ id: 1n, point: { label: 'no x' } })).toThrow(/column 'point\.x'/)
    expect(() => converter.toRow({ id: 1n, samples: [{ m: { ts: 'noon' } }] })).toThrow(
      /column 'samples\[0\]\["m"\]\.ts'/,
    )
    // MAP<INT, …> keys are not strings: an object is not taken for it.
    expect(() => converter.toRow({ id: 1n, by_id: { 1: [] } })).toThrow(/column 'by_id'/)
  })

  it('converts only the key columns of a delete (the others may hold anything)', () => {
    expect(converter.toKeyRow({ id: 5, point: { nope: 1 } }, [0])).toEqual([5n, null, null, null, null])
  })
})

describe('nested values read as objects', () => {
  it('renders every ROW as an object keyed by field name, through arrays and maps', () => {
    expect(rowObjectRenderer(rowType)(core)).toEqual({
      id: 1n,
      ids: [2n, null],
      point: { x: 7, label: 'seven' },
      samples: [new Map([['m', { values: [1.5, null], ts: new Timestamp(5) }]]), null],
      by_id: new Map<unknown, unknown>([
        [1, [{ x: 1, label: 'one' }, null]],
        [2, []],
      ]),
    })
    expect(rowObjectRenderer(rowType)([1n, null, null, null, null])).toEqual({
      id: 1n,
      ids: null,
      point: null,
      samples: null,
      by_id: null,
    })
  })

  it('leaves values without ROWs as they are (the same objects)', () => {
    const ids = [1n]
    expect(objectRenderer(DataTypes.ARRAY(DataTypes.BIGINT()))(ids)).toBe(ids)
  })

  it('renders what it takes back: an object row converts to the same core row', () => {
    expect(converter.toRow(rowObjectRenderer(rowType)(core))).toEqual(core)
  })
})
