import { tableFromIPC } from 'apache-arrow'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Row, Timestamp, type Value } from '../row/value.js'
import { NESTED_ROWS, NESTED_TYPES } from '../testing/nested-types.js'
import { type DataType, DataTypes, notNull, type RowType, withNullability } from '../types/data-type.js'
import { ArrowBatchReader } from './batch-reader.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionInfo, initArrowCodecs } from './compression.js'
import { LakeArrowStreamWriter } from './lake-stream.js'
import { readArrowStream } from './stream.js'

/** The lake representation of a Fluss type, at any depth (as the tiering function maps it). */
function lakeType(t: DataType): DataType {
  const keep = (x: DataType) => withNullability(x, t.nullable)
  switch (t.type) {
    case 'TINYINT':
    case 'SMALLINT':
      return keep(DataTypes.INT())
    case 'CHAR':
      return keep(DataTypes.STRING())
    case 'TIME_WITHOUT_TIME_ZONE':
      return keep(DataTypes.TIME(6))
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return keep(DataTypes.TIMESTAMP(6))
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return keep(DataTypes.TIMESTAMP_LTZ(6))
    case 'ARRAY':
      return { ...t, elementType: lakeType(t.elementType) }
    case 'MAP':
      return { ...t, keyType: lakeType(t.keyType), valueType: lakeType(t.valueType) }
    case 'ROW':
      return { ...t, fields: t.fields.map(f => ({ ...f, type: lakeType(f.type) })) }
    default:
      return t
  }
}

const lakeRowType = (rt: RowType): RowType => ({
  ...rt,
  fields: rt.fields.map(f => ({ ...f, type: lakeType(f.type) })),
})
const fieldIds = (rt: RowType) => [...rt.fields.map((_, i) => i + 1), 1_000_000, 1_000_001, 1_000_002]

/**
 * Nested columns whose children need converting: TINYINT/SMALLINT elements widened, TIME and
 * TIMESTAMP children rescaled to microseconds, CHAR children as STRING, under List, Map and Struct.
 */
const CONVERTED = DataTypes.ROW(
  [
    ['small', DataTypes.ARRAY(DataTypes.TINYINT())],
    [
      'by_key',
      DataTypes.MAP(
        DataTypes.SMALLINT(),
        DataTypes.ROW([
          { name: 't', type: DataTypes.TIME(3), fieldId: 10 },
          { name: 'ts', type: DataTypes.TIMESTAMP(9), fieldId: 11 },
          { name: 'c', type: notNull(DataTypes.CHAR(2)), fieldId: 12 },
        ]),
      ),
    ],
    ['ltz', DataTypes.ROW([{ name: 'at', type: DataTypes.ARRAY(DataTypes.TIMESTAMP_LTZ(0)), fieldId: 13 }])],
  ].map(([name, type], fieldId) => ({ name: name as string, type: type as DataType, fieldId })),
)
const map = (...entries: [Value, Value][]) => new Map<Value, Value>(entries)
const CONVERTED_ROWS: Row[] = [
  [
    [1, -128, null],
    map([7, [3_723_004, new Timestamp(-1, 999_999), 'ab']], [-1, null]),
    [[new Timestamp(-5000)]],
  ],
  [null, null, null],
  [[], map(), [null]],
  [[127], map([0, [null, null, 'x']]), [[null, new Timestamp(86_400_000)]]],
]

/** What the row path produces: the rows written in lake types, read back. */
function lakeRows(rt: RowType, rows: readonly Row[]): Row[] {
  const w = new ArrowBatchWriter(lakeRowType(rt))
  for (const r of rows) w.addRow(r)
  return new ArrowBatchReader(w.finish(), lakeRowType(rt)).toRows()
}

function flussBatch(rowType: RowType, rows: readonly Row[], compression?: ArrowCompressionInfo): Uint8Array {
  const w = new ArrowBatchWriter(rowType, compression === undefined ? {} : { compression })
  for (const r of rows) w.addRow(r)
  return w.finish()
}

const readStream = (stream: Uint8Array): Row[] => readArrowStream(stream).batches.flatMap(b => b.toRows())
const position = { bucket: 2, baseOffset: 10, commitTimestampMs: 1_000 }

beforeAll(async () => {
  await initArrowCodecs()
})

describe('LakeArrowStreamWriter with nested columns', () => {
  for (const compression of [undefined, { type: 'ZSTD', level: 3 }, { type: 'LZ4_FRAME' }] as const) {
    it(`passes ${compression?.type ?? 'uncompressed'} List, Map and Struct columns through, converting their children`, () => {
      for (const [rt, rows] of [
        [NESTED_TYPES, NESTED_ROWS],
        [CONVERTED, CONVERTED_ROWS],
      ] as const) {
        const w = new LakeArrowStreamWriter({ userRowType: lakeRowType(rt), fieldIds: fieldIds(rt) })
        const summary = w.append(flussBatch(rt, rows, compression), rt, position)
        expect(summary.nullCounts.slice(0, rt.fields.length)).toEqual(
          rt.fields.map((_, c) => rows.filter(r => r[c] === null).length),
        )
        const read = readStream(w.finish())
        expect(read.map(r => r.slice(0, rt.fields.length))).toEqual(lakeRows(rt, rows))
        expect(read.map(r => r.slice(rt.fields.length))).toEqual(
          rows.map((_, i) => [2, BigInt(10 + i), new Timestamp(1_000)]),
        )
      }
    })
  }

  it('declares the field ids of nested children for an independent reader', () => {
    const rt = CONVERTED
    const leaf = (id: number) => ({ metadata: { 'PARQUET:field_id': String(id) } })
    const w = new LakeArrowStreamWriter({
      userRowType: lakeRowType(rt),
      fieldIds: fieldIds(rt),
      fieldMetadataTrees: [
        { children: [leaf(101)] },
        { children: [{ children: [leaf(102), { ...leaf(103), children: [leaf(11), leaf(12), leaf(13)] }] }] },
      ],
    })
    w.append(flussBatch(rt, CONVERTED_ROWS), rt, position)
    const table = tableFromIPC(w.finish())
    const [small, byKey, ltz] = table.schema.fields
    expect(small.metadata.get('PARQUET:field_id')).toBe('1')
    expect(small.type.children[0].metadata.get('PARQUET:field_id')).toBe('101')
    const entries = byKey.type.children[0]
    expect(entries.metadata.get('PARQUET:field_id')).toBeUndefined()
    expect(
      entries.type.children.map((c: { metadata: Map<string, string> }) => c.metadata.get('PARQUET:field_id')),
    ).toEqual(['102', '103'])
    expect(String(entries.type.children[1].type)).toBe(
      'Struct<{t:Time64<MICROSECOND>, ts:Timestamp<MICROSECOND>, c:Utf8}>',
    )
    expect(String(ltz.type)).toBe('Struct<{at:List<Timestamp<MICROSECOND, UTC>>}>')
    expect(table.getChild('small')?.get(0)?.toArray()).toEqual(Int32Array.from([1, -128, 0]))
  })

  it('fills nested columns added after a batch was written with nulls', () => {
    const narrow: RowType = { ...NESTED_TYPES, fields: NESTED_TYPES.fields.slice(0, 2) }
    const nullable: RowType = {
      ...NESTED_TYPES,
      fields: NESTED_TYPES.fields.map(f => ({ ...f, type: withNullability(f.type, true) })),
    }
    const w = new LakeArrowStreamWriter({ userRowType: lakeRowType(nullable), fieldIds: fieldIds(nullable) })
    const rows = NESTED_ROWS.map(r => r.slice(0, 2))
    w.append(flussBatch(narrow, rows), narrow, position)
    w.append(flussBatch(NESTED_TYPES, NESTED_ROWS.slice(0, 1)), NESTED_TYPES, position)
    const read = readStream(w.finish())
    const wide = NESTED_TYPES.fields.length
    expect(read.slice(0, 4).map(r => r.slice(0, wide))).toEqual(
      rows.map(r => [...r, ...NESTED_TYPES.fields.slice(2).map(() => null)]),
    )
    expect(read[4].slice(0, wide)).toEqual(lakeRows(NESTED_TYPES, NESTED_ROWS.slice(0, 1))[0])
  })

  it('refuses NOT NULL nested columns that are missing and nested conversions that do not exist', () => {
    const narrow: RowType = { ...NESTED_TYPES, fields: NESTED_TYPES.fields.slice(0, 5) }
    const w = new LakeArrowStreamWriter({
      userRowType: lakeRowType(NESTED_TYPES),
      fieldIds: fieldIds(NESTED_TYPES),
    })
    expect(() =>
      w.append(
        flussBatch(
          narrow,
          NESTED_ROWS.map(r => r.slice(0, 5)),
        ),
        narrow,
        position,
      ),
    ).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_REQUEST',
        message: "NOT NULL column 'matrix' is missing",
      }),
    )
    const asStrings: RowType = {
      ...CONVERTED,
      fields: CONVERTED.fields.map((f, i) =>
        i === 0 ? { ...f, type: DataTypes.ARRAY(DataTypes.STRING()) } : f,
      ),
    }
    const bad = new LakeArrowStreamWriter({
      userRowType: lakeRowType(asStrings),
      fieldIds: fieldIds(CONVERTED),
    })
    expect(() => bad.append(flussBatch(CONVERTED, CONVERTED_ROWS), CONVERTED, position)).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_REQUEST',
        message: "column 'small.element' cannot be written as STRING from TINYINT",
      }),
    )
    const flat: RowType = {
      ...CONVERTED,
      fields: CONVERTED.fields.map(f => ({ ...f, type: DataTypes.INT() })),
    }
    const wrongShape = new LakeArrowStreamWriter({ userRowType: flat, fieldIds: fieldIds(CONVERTED) })
    expect(() => wrongShape.append(flussBatch(CONVERTED, CONVERTED_ROWS), CONVERTED, position)).toThrow(
      /column 'small' cannot be written as INT from ARRAY<TINYINT>/,
    )
    expect(w.recordCount + bad.recordCount).toBe(0)
  })
})
