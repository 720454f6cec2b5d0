import {
  Field as ArrowJsField,
  Dictionary,
  Int32,
  List,
  makeData,
  makeVector,
  Table,
  TimestampMillisecond,
  tableToIPC,
  Uint32,
  Utf8,
  vectorFromArray,
} from 'apache-arrow'
import { beforeAll, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { Timestamp } from '../row/value.js'
import { ALL_TYPES, ALL_TYPES_ROWS } from '../testing/all-types.js'
import { DataTypes } from '../types/data-type.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { initArrowCodecs } from './compression.js'
import { schemaMessage } from './schema.js'
import { readArrowStream, writeArrowStream } from './stream.js'

function batch(rows = ALL_TYPES_ROWS, type: 'NONE' | 'ZSTD' = 'NONE'): Uint8Array {
  const writer = new ArrowBatchWriter(ALL_TYPES, { compression: { type } })
  for (const row of rows) writer.addRow(row)
  return writer.finish()
}

function errorName(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    if (e instanceof FlussError) return e.errorName
    throw e
  }
  return 'none'
}

beforeAll(() => initArrowCodecs())

describe('Arrow IPC streams', () => {
  it('round-trips schema, metadata and batches', () => {
    const bytes = writeArrowStream(
      ALL_TYPES,
      [batch(), batch([], 'ZSTD'), batch(ALL_TYPES_ROWS.slice(2), 'ZSTD')],
      {
        fieldMetadata: [{ 'PARQUET:field_id': '1' }],
        metadata: { k: 'v' },
        timestampLtzTimezone: 'UTC',
      },
    )
    expect(bytes.length % 8).toBe(0)
    expect([...bytes.subarray(-8)]).toEqual([255, 255, 255, 255, 0, 0, 0, 0])
    const stream = readArrowStream(bytes)
    // CHAR(n) is Utf8 in Arrow, so it reads back as STRING; TIMESTAMP_LTZ needs a declared zone
    const expected = ALL_TYPES.fields.map(f => (f.name === 'chr' ? { ...f, type: DataTypes.STRING() } : f))
    expect(stream.rowType?.fields).toEqual(expected)
    expect(stream.fields[0].metadata).toEqual({ 'PARQUET:field_id': '1' })
    expect(stream.fields[1].metadata).toEqual({})
    expect(stream.metadata).toEqual({ k: 'v' })
    expect(stream.messages).toHaveLength(3)
    expect(stream.batches.map(b => b.recordCount)).toEqual([5, 0, 3])
    expect(stream.batches.flatMap(b => b.toRows())).toEqual([...ALL_TYPES_ROWS, ...ALL_TYPES_ROWS.slice(2)])
  })

  it('maps Arrow types back to Fluss types, rounding precisions to the unit', () => {
    const rowType = DataTypes.ROW([
      { name: 't', type: DataTypes.TIME(2), fieldId: 0 },
      { name: 'ts', type: DataTypes.TIMESTAMP(5), fieldId: 1 },
      { name: 'c', type: DataTypes.CHAR(4), fieldId: 2 },
    ])
    const stream = readArrowStream(writeArrowStream(rowType, []))
    expect(stream.rowType?.fields.map(f => f.type)).toEqual([
      DataTypes.TIME(3),
      DataTypes.TIMESTAMP(6),
      DataTypes.STRING(),
    ])
  })

  it('maps a zoned timestamp to TIMESTAMP_LTZ and reads a stream ending without end marker', () => {
    const table = new Table({ n: vectorFromArray([1, null], new Int32()) })
    const bytes = tableToIPC(table, 'stream')
    const stream = readArrowStream(bytes.subarray(0, bytes.length - 8))
    expect(stream.rowType?.fields[0].type).toEqual(DataTypes.INT())
    expect(stream.batches[0].toRows()).toEqual([[1], [null]])
    const zoned = new Table({
      z: makeVector(
        makeData({ type: new TimestampMillisecond('UTC'), length: 1, data: BigInt64Array.of(5n) }),
      ),
    } as never)
    const zonedStream = readArrowStream(tableToIPC(zoned, 'stream'))
    expect(zonedStream.fields[0].arrowType).toEqual({ id: 'Timestamp', unit: 'MILLISECOND', timezone: 'UTC' })
    expect(zonedStream.rowType?.fields[0].type).toEqual(DataTypes.TIMESTAMP_LTZ(3))
    expect(zonedStream.batches[0].toRows()).toEqual([[new Timestamp(5)]])
    // Fluss writes TIMESTAMP_LTZ without a zone, so it reads back as TIMESTAMP
    const message = schemaMessage(
      DataTypes.ROW([{ name: 'z', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 0 }]),
    )
    expect(readArrowStream(message).fields[0].type).toEqual(DataTypes.TIMESTAMP(3))
  })

  it('reads legacy framing without the continuation marker', () => {
    const writer = new ArrowBatchWriter(ALL_TYPES)
    writer.addRow(ALL_TYPES_ROWS[0])
    const parts = [schemaMessage(ALL_TYPES), writer.finish()].map(m => m.subarray(4))
    const bytes = new Uint8Array(parts[0].length + parts[1].length + 4)
    bytes.set(parts[0])
    bytes.set(parts[1], parts[0].length)
    const stream = readArrowStream(bytes)
    expect(stream.batches[0].toRows()).toEqual([ALL_TYPES_ROWS[0]])
    expect(stream.batches[0].getValue(0, 21)).toEqual(new Timestamp(1_700_000_000_123, 456_789))
  })

  it('reports fields without a Fluss type and yields no readers then', () => {
    const table = new Table({
      u: vectorFromArray([1, 2], new Uint32()),
      l: vectorFromArray([[1], [2, 3]], new List(new ArrowJsField('item', new Uint32(), true))),
      s: vectorFromArray(['a', 'b'], new Utf8()),
    })
    const stream = readArrowStream(tableToIPC(table, 'stream'))
    expect(stream.fields.map(f => f.type?.type ?? null)).toEqual([null, null, 'STRING'])
    expect(stream.fields[0].arrowType).toEqual({ id: 'Int', bitWidth: 32, signed: false })
    expect(stream.rowType).toBeNull()
    expect(stream.batches).toEqual([])
    expect(stream.messages).toHaveLength(1)
  })

  it('rejects dictionary-encoded streams', () => {
    const table = new Table({
      d: vectorFromArray(['a', 'b', 'a'], new Dictionary(new Utf8(), new Int32())),
    })
    expect(errorName(() => readArrowStream(tableToIPC(table, 'stream')))).toBe('INVALID_REQUEST')
  })

  it('rejects streams without a schema or with garbage', () => {
    expect(errorName(() => readArrowStream(new Uint8Array(0)))).toBe('CORRUPT_RECORD_EXCEPTION')
    expect(errorName(() => readArrowStream(batch()))).toBe('CORRUPT_RECORD_EXCEPTION')
    const bytes = writeArrowStream(ALL_TYPES, [batch()])
    expect(errorName(() => readArrowStream(bytes.subarray(0, bytes.length - 20)))).toBe(
      'CORRUPT_RECORD_EXCEPTION',
    )
    const schema = schemaMessage(ALL_TYPES)
    for (let cut = 1; cut < schema.length; cut += 7) {
      expect(errorName(() => readArrowStream(schema.subarray(0, cut)))).toBe('CORRUPT_RECORD_EXCEPTION')
    }
  })

  it('refuses batches of another row type when writing', () => {
    const other = DataTypes.ROW([{ name: 'x', type: DataTypes.INT(), fieldId: 0 }])
    expect(errorName(() => writeArrowStream(other, [batch()]))).toBe('INVALID_REQUEST')
  })
})
