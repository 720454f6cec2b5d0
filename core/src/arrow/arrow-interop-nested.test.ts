import {
  Field as ArrowJsField,
  Float64,
  Int32,
  List,
  Map_,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow'
import { beforeAll, describe, expect, it } from 'vitest'
import { Decimal, type Row, Timestamp, type Value } from '../row/value.js'
import { NESTED_ROWS, NESTED_TYPES } from '../testing/nested-types.js'
import type { DataType, RowType } from '../types/data-type.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { initArrowCodecs } from './compression.js'
import { projectRecordBatch, projectRowType } from './projection.js'
import { readArrowStream, writeArrowStream } from './stream.js'

/** apache-arrow (an independent implementation) reads and writes List, Map and Struct columns. */

beforeAll(() => initArrowCodecs())

function int128(words: Uint32Array): bigint {
  let u = 0n
  for (let k = 3; k >= 0; k--) u = (u << 32n) | BigInt(words[k])
  return BigInt.asIntN(128, u)
}

/** An apache-arrow value (Vector, MapRow, StructRow, ...) in our value model. */
function fromArrowJs(v: unknown, type: DataType): Value {
  if (v === null || v === undefined) return null
  switch (type.type) {
    case 'ARRAY':
      return [...(v as Iterable<unknown>)].map(e => fromArrowJs(e, type.elementType))
    case 'MAP':
      return new Map(
        [...(v as Iterable<[unknown, unknown]>)].map(([k, e]) => [
          fromArrowJs(k, type.keyType),
          fromArrowJs(e, type.valueType),
        ]),
      )
    case 'ROW':
      return type.fields.map(f => fromArrowJs((v as Record<string, unknown>)[f.name], f.type))
    case 'DECIMAL':
      return new Decimal(int128(v as Uint32Array), type.scale)
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return new Timestamp(Number(v))
    default:
      return v as Value
  }
}

function rowsOf(table: Table, rowType: RowType): Row[] {
  return Array.from({ length: table.numRows }, (_, r) =>
    rowType.fields.map((f, c) => fromArrowJs(table.getChildAt(c)?.get(r), f.type)),
  )
}

function encode(rows: Row[]): Uint8Array {
  const writer = new ArrowBatchWriter(NESTED_TYPES, { compression: { type: 'NONE' } })
  for (const row of rows) writer.addRow(row)
  return writer.finish()
}

describe('nested columns: our writer, apache-arrow reader', () => {
  it('reads List, Map and Struct columns with Fluss’s child names', () => {
    const table = tableFromIPC(writeArrowStream(NESTED_TYPES, [encode(NESTED_ROWS)]))
    expect(table.schema.fields.map(f => String(f.type))).toEqual([
      'Int32',
      'List<Utf8>',
      'Map<{key:Utf8, value:Float64}>',
      'Struct<{x:Int32, label:Utf8}>',
      'List<Map<{key:Utf8, value:Struct<{values:List<Float32>, ts:Timestamp<MILLISECOND>}>}>>',
      'List<List<Int64>>',
      'Map<{key:Int32, value:List<Struct<{x:Int32, label:Utf8}>>}>',
      'List<Decimal[20e+4]>',
      'Utf8',
    ])
    const names = (f: ArrowJsField): unknown =>
      f.type.children?.length ? [f.name, ...f.type.children.map(names)] : f.name
    expect(names(table.schema.fields[4])).toEqual([
      'samples',
      ['element', ['entries', 'key', ['value', ['values', 'element'], 'ts']]],
    ])
    expect(rowsOf(table, NESTED_TYPES)).toEqual(NESTED_ROWS)
  })

  it('reads projected nested columns', () => {
    const fields = [1, 4, 6]
    const projected = projectRecordBatch(encode(NESTED_ROWS), NESTED_TYPES, fields)
    const rowType = projectRowType(NESTED_TYPES, fields)
    const table = tableFromIPC(writeArrowStream(rowType, [projected]))
    expect(rowsOf(table, rowType)).toEqual(NESTED_ROWS.map(r => fields.map(i => r[i])))
  })
})

describe('nested columns: apache-arrow writer, our reader', () => {
  it('reads List, Map and Struct vectors built by apache-arrow', () => {
    const point = new Struct([
      new ArrowJsField('x', new Int32(), false),
      new ArrowJsField('label', new Utf8(), true),
    ])
    const table = new Table({
      l: vectorFromArray([[1, null], null, []], new List(new ArrowJsField('item', new Int32(), true))),
      m: vectorFromArray(
        [new Map([['a', 1.5]]), null, new Map()],
        new Map_(
          new ArrowJsField(
            'entries',
            new Struct([
              new ArrowJsField('key', new Utf8(), false),
              new ArrowJsField('value', new Float64(), true),
            ]),
          ) as never,
        ),
      ),
      s: vectorFromArray([{ x: 1, label: 'one' }, null, { x: 3, label: null }], point),
    } as never)
    const stream = readArrowStream(tableToIPC(table, 'stream'))
    expect(stream.rowType?.fields.map(f => f.type.type)).toEqual(['ARRAY', 'MAP', 'ROW'])
    expect(stream.batches.flatMap(b => b.toRows())).toEqual([
      [[1, null], new Map([['a', 1.5]]), [1, 'one']],
      [null, null, null],
      [[], new Map(), [3, null]],
    ])
  })
})
