import { spawnSync } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Decimal, Row, Timestamp, Value } from '../row/value.js'
import { NESTED_ROWS, NESTED_TYPES } from '../testing/nested-types.js'
import { PEER_PYTHON, peerAvailable } from '../testing/peers.js'
import { type DataType, type RowType, typeToString } from '../types/data-type.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionType, initArrowCodecs } from './compression.js'
import { projectRecordBatch, projectRowType } from './projection.js'
import { readArrowStream, writeArrowStream } from './stream.js'

/**
 * pyarrow (Arrow C++) reads our List, Map and Struct columns (validating them fully), whole and
 * projected, and writes them back compressed for our reader.
 */

// Reads an Arrow stream from stdin and validates it; prints the schema, each row as JSON (lists as
// lists, maps as [key, value] pairs, structs as lists of field values, ints and decimals as
// strings, timestamps as epoch microseconds) and the table re-written with ZSTD and LZ4_FRAME.
const SCRIPT = `
import base64, datetime, io, json, sys
import pyarrow as pa, pyarrow.ipc as ipc
table = ipc.open_stream(pa.py_buffer(sys.stdin.buffer.read())).read_all()
table.validate(full=True)
EPOCH = datetime.datetime(1970, 1, 1)
def conv(v, t):
    if v is None: return None
    if pa.types.is_map(t): return [[conv(k, t.key_type), conv(x, t.item_type)] for k, x in v]
    if pa.types.is_list(t): return [conv(x, t.value_type) for x in v]
    if pa.types.is_struct(t): return [conv(v[t.field(i).name], t.field(i).type) for i in range(t.num_fields)]
    if pa.types.is_timestamp(t): return str((v - EPOCH) // datetime.timedelta(microseconds=1))
    if pa.types.is_decimal(t): return format(v, 'f')
    if isinstance(v, bool): return v
    if isinstance(v, int): return str(v)
    return v
def describe(f):
    kids = [describe(f.type.field(i)) for i in range(f.type.num_fields)]
    return {'name': f.name, 'type': str(f.type) if not kids else type(f.type).__name__,
            'nullable': f.nullable, 'children': kids}
rows = [[conv(v, f.type) for v, f in zip(r, table.schema)] for r in zip(*[c.to_pylist() for c in table.columns])]
def rewrite(codec):
    sink = io.BytesIO()
    with ipc.new_stream(sink, table.schema, options=ipc.IpcWriteOptions(compression=codec)) as w:
        w.write_table(table)
    return base64.b64encode(sink.getvalue()).decode()
print(json.dumps({'fields': [describe(f) for f in table.schema], 'rows': rows,
                  'zstd': rewrite('zstd'), 'lz4': rewrite('lz4')}))
`

// Builds nested columns in pyarrow itself (its own child names: list 'item'), slices off the first
// row, and writes them with ZSTD, base64-encoded.
const BUILD_SCRIPT = `
import base64, io, pyarrow as pa, pyarrow.ipc as ipc
point = pa.struct([pa.field('x', pa.int32(), nullable=False), ('label', pa.string())])
schema = pa.schema([
    ('ids', pa.list_(pa.int32())),
    ('m', pa.map_(pa.string(), pa.list_(point))),
    ('p', point),
])
table = pa.table({
    'ids': [[0], [1, None, 3], None, []],
    'm': [[], [('a', [{'x': 1, 'label': 'one'}, None])], [('b', []), ('c', None)], None],
    'p': [None, {'x': 7, 'label': None}, None, {'x': -1, 'label': 'é'}],
}, schema=schema).slice(1)
sink = io.BytesIO()
with ipc.new_stream(sink, table.schema, options=ipc.IpcWriteOptions(compression='zstd')) as w:
    w.write_table(table)
print(base64.b64encode(sink.getvalue()).decode())
`

interface PyField {
  name: string
  type: string
  nullable: boolean
  children: PyField[]
}

interface PyResult {
  fields: PyField[]
  rows: unknown[][]
  zstd: string
  lz4: string
}

function runPyarrow(stream: Uint8Array): PyResult {
  const run = spawnSync(PEER_PYTHON, ['-c', SCRIPT], {
    input: stream,
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  })
  if (run.status !== 0) throw new Error(`pyarrow failed: ${run.stderr}`)
  return JSON.parse(run.stdout) as PyResult
}

/** Our value in the form the script prints. */
function json(v: Value, type: DataType): unknown {
  if (v === null) return null
  switch (type.type) {
    case 'ARRAY':
      return (v as Value[]).map(e => json(e, type.elementType))
    case 'MAP':
      return [...(v as Map<Value, Value>)].map(([k, e]) => [json(k, type.keyType), json(e, type.valueType)])
    case 'ROW':
      return type.fields.map((f, i) => json((v as Value[])[i], f.type))
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return String((v as Timestamp).toMicros())
    case 'DECIMAL':
      return (v as Decimal).toString()
    case 'INTEGER':
    case 'BIGINT':
      return String(v)
    default:
      return v
  }
}

function encode(rows: Row[], type: ArrowCompressionType): Uint8Array {
  const writer = new ArrowBatchWriter(NESTED_TYPES, { compression: { type } })
  for (const row of rows) writer.addRow(row)
  return writer.finish()
}

function expectedRows(rowType: RowType, rows: Row[]): unknown[][] {
  return rows.map(r => r.map((v, i) => json(v, rowType.fields[i].type)))
}

const SUITE = 'pyarrow interoperability of nested columns'

describe.skipIf(!peerAvailable(SUITE, { python: ['pyarrow'] }))(SUITE, () => {
  beforeAll(() => initArrowCodecs())

  for (const type of ['ZSTD', 'LZ4_FRAME', 'NONE'] as const) {
    it(`pyarrow reads our ${type} nested batches, and we read its compressed output`, {
      timeout: 120_000,
    }, () => {
      const batches = [encode(NESTED_ROWS, type), encode(NESTED_ROWS.slice(1, 3), type)]
      const rows = [...NESTED_ROWS, ...NESTED_ROWS.slice(1, 3)]
      const result = runPyarrow(writeArrowStream(NESTED_TYPES, batches))
      expect(result.rows).toEqual(expectedRows(NESTED_TYPES, rows))
      for (const written of [result.zstd, result.lz4]) {
        const stream = readArrowStream(Buffer.from(written, 'base64'))
        expect(stream.batches.flatMap(b => b.toRows())).toEqual(rows)
      }
    })

    it(`pyarrow reads projected nested columns (${type})`, { timeout: 120_000 }, () => {
      const fields = [3, 4, 6]
      const projected = projectRecordBatch(encode(NESTED_ROWS, type), NESTED_TYPES, fields)
      const rowType = projectRowType(NESTED_TYPES, fields)
      const result = runPyarrow(writeArrowStream(rowType, [projected]))
      expect(result.rows).toEqual(
        expectedRows(
          rowType,
          NESTED_ROWS.map(r => fields.map(i => r[i])),
        ),
      )
      const stream = readArrowStream(Buffer.from(result.zstd, 'base64'))
      expect(stream.batches.flatMap(b => b.toRows())).toEqual(NESTED_ROWS.map(r => fields.map(i => r[i])))
    })
  }

  it('we read nested columns pyarrow builds and slices', { timeout: 120_000 }, () => {
    const run = spawnSync(PEER_PYTHON, ['-c', BUILD_SCRIPT], { encoding: 'utf8', timeout: 60_000 })
    if (run.status !== 0) throw new Error(`pyarrow failed: ${run.stderr}`)
    const stream = readArrowStream(Buffer.from(run.stdout.trim(), 'base64'))
    expect(stream.rowType?.fields.map(f => typeToString(f.type))).toEqual([
      'ARRAY<INT>',
      'MAP<STRING NOT NULL, ARRAY<ROW<x INT NOT NULL, label STRING>>>',
      'ROW<x INT NOT NULL, label STRING>',
    ])
    const map = (...entries: [Value, Value][]) => new Map<Value, Value>(entries)
    expect(stream.batches.flatMap(b => b.toRows())).toEqual([
      [[1, null, 3], map(['a', [[1, 'one'], null]]), [7, null]],
      [null, map(['b', []], ['c', null]), null],
      [[], null, [-1, 'é']],
    ])
  })

  it('sees the field names, types and nullability Fluss writes', { timeout: 120_000 }, () => {
    const { fields } = runPyarrow(writeArrowStream(NESTED_TYPES, [encode(NESTED_ROWS, 'NONE')]))
    const shape = (f: PyField): unknown => [f.name, f.type, f.nullable, ...f.children.map(shape)]
    const entries = (key: unknown, value: unknown) => ['entries', 'StructType', false, key, value]
    expect(fields.slice(1, 5).map(shape)).toEqual([
      ['tags', 'ListType', true, ['element', 'string', true]],
      ['scores', 'MapType', true, entries(['key', 'string', false], ['value', 'double', true])],
      ['point', 'StructType', true, ['x', 'int32', false], ['label', 'string', true]],
      [
        'samples',
        'ListType',
        true,
        [
          'element',
          'MapType',
          true,
          entries(
            ['key', 'string', false],
            [
              'value',
              'StructType',
              true,
              ['values', 'ListType', true, ['element', 'float', true]],
              ['ts', 'timestamp[ms]', true],
            ],
          ),
        ],
      ],
    ])
  })
})
