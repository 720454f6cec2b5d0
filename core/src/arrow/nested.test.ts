import { beforeAll, describe, expect, it } from 'vitest'
import type { Row, Value } from '../row/value.js'
import { expectFlussError } from '../testing/expect-error.js'
import { NESTED_ROWS, NESTED_TYPES } from '../testing/nested-types.js'
import { DataTypes, notNull, type RowType, typeToString } from '../types/data-type.js'
import { ArrowBatchReader } from './batch-reader.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionType, initArrowCodecs } from './compression.js'
import { readRecordBatchHeader } from './message.js'
import { projectRecordBatch, projectRowType } from './projection.js'
import { readArrowStream, writeArrowStream } from './stream.js'

function encode(
  rows: Row[],
  type: ArrowCompressionType = 'NONE',
  rowType: RowType = NESTED_TYPES,
): Uint8Array {
  const writer = new ArrowBatchWriter(rowType, { compression: { type } })
  for (const row of rows) writer.addRow(row)
  return writer.finish()
}

function nodes(message: Uint8Array): number[] {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength)
  const h = readRecordBatchHeader(view)
  return Array.from({ length: 2 * h.nodeCount }, (_, i) => Number(view.getBigInt64(h.nodes + 8 * i, true)))
}

beforeAll(() => initArrowCodecs())

describe('Arrow List, Map and Struct columns', () => {
  for (const type of ['NONE', 'ZSTD', 'LZ4_FRAME'] as const) {
    it(`round-trip nested values with nulls at every level (${type})`, () => {
      const reader = new ArrowBatchReader(encode(NESTED_ROWS, type), NESTED_TYPES)
      expect(reader.toRows()).toEqual(NESTED_ROWS)
    })

    it(`project nested columns with all their child buffers (${type})`, () => {
      const message = encode(NESTED_ROWS, type)
      for (const fields of [[4], [1, 6], [0, 3, 8], [2, 5, 7], [6]]) {
        const projected = projectRecordBatch(message, NESTED_TYPES, fields)
        const reader = new ArrowBatchReader(projected, projectRowType(NESTED_TYPES, fields))
        expect(reader.toRows()).toEqual(NESTED_ROWS.map(r => fields.map(i => r[i])))
      }
    })
  }

  it('lays out field nodes depth-first, a slot per row in struct children', () => {
    const rowType = DataTypes.ROW([
      { name: 'a', type: DataTypes.ARRAY(DataTypes.INT()), fieldId: 0 },
      { name: 'm', type: DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()), fieldId: 1 },
      {
        name: 'r',
        type: DataTypes.ROW([{ name: 'x', type: notNull(DataTypes.INT()), fieldId: 2 }]),
        fieldId: 3,
      },
    ])
    const rows: Row[] = [
      [[1, null, 3], new Map<Value, Value>([['k', 1]]), null],
      [null, null, [5]],
    ]
    // a: List(2 rows, 1 null), element(3, 1 null); m: Map(2, 1), entries(1, 0), key(1, 0), value(1, 0);
    // r: Struct(2, 1), x(2, 1): the null struct's NOT NULL child holds a null slot
    expect(nodes(encode(rows, 'NONE', rowType))).toEqual([2, 1, 3, 1, 2, 1, 1, 0, 1, 0, 1, 0, 2, 1, 2, 1])
    expect(new ArrowBatchReader(encode(rows, 'NONE', rowType), rowType).toRows()).toEqual(rows)
  })

  it('rejects a bad nested value naming its path, keeping the batch as it was', () => {
    const writer = new ArrowBatchWriter(NESTED_TYPES)
    writer.addRow(NESTED_ROWS[0])
    const bad = [...NESTED_ROWS[0]]
    bad[6] = new Map<Value, Value>([
      [
        1,
        [
          [1, 'one'],
          [null, 'two'],
        ],
      ],
    ])
    expectFlussError(
      () => writer.addRow(bad),
      'INVALID_REQUEST',
      /column 'by_id\[1\]\[1\]\.x' of type INT NOT NULL: null is not allowed/,
    )
    const samples = [...NESTED_ROWS[0]]
    samples[4] = [new Map<Value, Value>([['m', [[1, 'two'], null]]])]
    expectFlussError(
      () => writer.addRow(samples),
      'INVALID_REQUEST',
      /column 'samples\[0\]\["m"\]\.values\[1\]'/,
    )
    writer.addRow(NESTED_ROWS[1])
    expect(new ArrowBatchReader(writer.finish(), NESTED_TYPES).toRows()).toEqual(NESTED_ROWS.slice(0, 2))
  })

  it('undoes the child values of a row whose later column fails', () => {
    const rowType = DataTypes.ROW([
      { name: 'tags', type: DataTypes.ARRAY(DataTypes.STRING()), fieldId: 0 },
      { name: 'n', type: DataTypes.INT(), fieldId: 1 },
    ])
    const writer = new ArrowBatchWriter(rowType)
    writer.addRow([['a'], 1])
    expect(() => writer.addRow([['b', 'c'], 'not a number'])).toThrow(/column 'n'/)
    writer.addRow([['d'], 2])
    const message = writer.finish()
    expect(nodes(message)).toEqual([2, 0, 2, 0, 2, 0])
    expect(new ArrowBatchReader(message, rowType).toRows()).toEqual([
      [['a'], 1],
      [['d'], 2],
    ])
  })

  it('grows child buffers far beyond the initial capacity and is reusable after reset', () => {
    const rowType = DataTypes.ROW([
      { name: 'm', type: DataTypes.MAP(DataTypes.INT(), DataTypes.ARRAY(DataTypes.STRING())), fieldId: 0 },
    ])
    const writer = new ArrowBatchWriter(rowType, { initialCapacityRows: 1 })
    const rows: Row[] = Array.from({ length: 50 }, (_, r) => [
      new Map<Value, Value>(
        Array.from({ length: r }, (_, k) => [k, Array.from({ length: k % 4 }, () => `v${r}`)]),
      ),
    ])
    for (const row of rows) writer.addRow(row)
    expect(new ArrowBatchReader(writer.finish(), rowType).toRows()).toEqual(rows)
    writer.reset()
    writer.addRow(rows[3])
    expect(new ArrowBatchReader(writer.finish(), rowType).toRows()).toEqual([rows[3]])
  })

  it('names children in the schema as Fluss does and reads the types back', () => {
    const stream = readArrowStream(writeArrowStream(NESTED_TYPES, [encode(NESTED_ROWS)]))
    const samples = stream.fields[4]
    expect(samples.arrowType).toEqual({ id: 'List' })
    expect(samples.children.map(c => c.name)).toEqual(['element'])
    const map = samples.children[0]
    expect(map.arrowType).toEqual({ id: 'Map', keysSorted: false })
    expect(map.children.map(c => [c.name, c.nullable])).toEqual([['entries', false]])
    expect(map.children[0].children.map(c => [c.name, c.nullable])).toEqual([
      ['key', false],
      ['value', true],
    ])
    expect(map.children[0].children[1].children.map(c => c.name)).toEqual(['values', 'ts'])
    // TIMESTAMP_LTZ is written without a time zone, as Fluss does: it reads back as TIMESTAMP
    expect(stream.rowType?.fields.map(f => typeToString(f.type))).toEqual([
      'INT NOT NULL',
      'ARRAY<STRING>',
      'MAP<STRING NOT NULL, DOUBLE>',
      'ROW<x INT NOT NULL, label STRING>',
      'ARRAY<MAP<STRING NOT NULL, ROW<values ARRAY<FLOAT>, ts TIMESTAMP(3)>>>',
      'ARRAY<ARRAY<BIGINT>> NOT NULL',
      'MAP<INT NOT NULL, ARRAY<ROW<x INT NOT NULL, label STRING>>>',
      'ARRAY<DECIMAL(20, 4)>',
      'STRING',
    ])
    expect(stream.batches[0].toRows()).toEqual(NESTED_ROWS)
  })

  it('rejects corrupt nested batches', () => {
    const message = encode(NESTED_ROWS)
    const rowType = DataTypes.ROW([{ name: 'id', type: DataTypes.INT(), fieldId: 0 }])
    expectFlussError(() => new ArrowBatchReader(message, rowType), 'CORRUPT_RECORD_EXCEPTION', /field nodes/)
    const view = new DataView(message.buffer, message.byteOffset, message.byteLength)
    const h = readRecordBatchHeader(view)
    // the tags column's element node (node 2) claims fewer strings than the list offsets use
    view.setBigInt64(h.nodes + 16 * 2, 5n, true)
    expectFlussError(
      () => new ArrowBatchReader(message, NESTED_TYPES),
      'CORRUPT_RECORD_EXCEPTION',
      /column 'tags': (last offset|offsets buffer)/,
    )
  })
})
