import { spawnSync } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Decimal, Row, Timestamp, Value } from '../row/value.js'
import { ALL_TYPES, ALL_TYPES_ROWS } from '../testing/all-types.js'
import { PEER_PYTHON, peerAvailable } from '../testing/peers.js'
import type { DataType } from '../types/data-type.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionType, initArrowCodecs } from './compression.js'
import { readRecordBatchHeader } from './message.js'
import { readArrowStream, writeArrowStream } from './stream.js'

/**
 * pyarrow (Arrow C++) as an independent reader that enforces the uncompressed-length prefix of
 * compressed buffers, and as an independent writer of ZSTD / LZ4_FRAME streams for our reader.
 */

// Reads an Arrow stream from stdin; prints each row as raw Arrow values (temporal columns cast to
// their integer storage, ints and decimals as strings, binary as hex, floats as JSON numbers) and
// the same table re-written with ZSTD and LZ4_FRAME body compression, base64-encoded.
const SCRIPT = `
import base64, io, json, sys
import pyarrow as pa, pyarrow.compute as pc, pyarrow.ipc as ipc
table = ipc.open_stream(pa.py_buffer(sys.stdin.buffer.read())).read_all()
cols = []
for field, col in zip(table.schema, table.columns):
    t = field.type
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        col = pc.cast(col, pa.int32())
    elif pa.types.is_time64(t) or pa.types.is_timestamp(t):
        col = pc.cast(col, pa.int64())
    def conv(v, t=t):
        if v is None: return None
        if isinstance(v, bool): return 'true' if v else 'false'
        if isinstance(v, int): return str(v)
        if isinstance(v, float): return v
        if isinstance(v, bytes): return v.hex()
        if pa.types.is_decimal(t): return format(v, 'f')
        return v
    cols.append([conv(v) for v in col.to_pylist()])
def rewrite(codec):
    sink = io.BytesIO()
    with ipc.new_stream(sink, table.schema, options=ipc.IpcWriteOptions(compression=codec)) as w:
        w.write_table(table)
    return base64.b64encode(sink.getvalue()).decode()
print(json.dumps({
    'types': [str(f.type) for f in table.schema],
    'rows': [list(r) for r in zip(*cols)] if cols else [],
    'zstd': rewrite('zstd'),
    'lz4': rewrite('lz4'),
}))
`

interface PyResult {
  types: string[]
  rows: (string | number | null)[][]
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
function raw(v: Value, type: DataType): string | number | null {
  if (v === null) return null
  switch (type.type) {
    case 'BOOLEAN':
      return v ? 'true' : 'false'
    case 'FLOAT':
    case 'DOUBLE':
      return v as number
    case 'BINARY':
    case 'BYTES':
      return Buffer.from(v as Uint8Array).toString('hex')
    case 'DECIMAL':
      return (v as Decimal).toString()
    case 'TIME_WITHOUT_TIME_ZONE': {
      const ms = BigInt(v as number)
      return String(
        type.precision === 0
          ? ms / 1000n
          : type.precision <= 3
            ? ms
            : ms * (type.precision <= 6 ? 1000n : 1_000_000n),
      )
    }
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE': {
      const ts = v as Timestamp
      if (type.precision === 0) return String(Math.trunc(ts.millis / 1000))
      if (type.precision <= 3) return String(ts.millis)
      return String(type.precision <= 6 ? ts.toMicros() : ts.toNanos())
    }
    default:
      return typeof v === 'string' ? v : String(v)
  }
}

function encode(rows: Row[], type: ArrowCompressionType): Uint8Array {
  const writer = new ArrowBatchWriter(ALL_TYPES, { compression: { type } })
  for (const row of rows) writer.addRow(row)
  return writer.finish()
}

const EXPECTED_TYPES = [
  'bool',
  'int8',
  'int16',
  'int32',
  'int64',
  'float',
  'double',
  'string',
  'string',
  'fixed_size_binary[4]',
  'binary',
  'decimal128(10, 2)',
  'decimal128(38, 10)',
  'date32[day]',
  'time32[s]',
  'time32[ms]',
  'time64[us]',
  'time64[ns]',
  'timestamp[s]',
  'timestamp[ms]',
  'timestamp[us]',
  'timestamp[ns]',
  'timestamp[ms]',
  'timestamp[ns]',
]

const SUITE = 'pyarrow interoperability'

describe.skipIf(!peerAvailable(SUITE, { python: ['pyarrow'] }))(SUITE, () => {
  beforeAll(() => initArrowCodecs())

  for (const type of ['ZSTD', 'LZ4_FRAME', 'NONE'] as const) {
    it(`pyarrow reads our ${type} batches, and we read its ${type === 'NONE' ? 'compressed' : 'own'} output`, {
      timeout: 120_000,
    }, () => {
      const batches = [encode(ALL_TYPES_ROWS, type), encode([], type), encode(ALL_TYPES_ROWS.slice(1), type)]
      if (type !== 'NONE')
        expect(readRecordBatchHeader(new DataView(batches[0].buffer)).codec).toBeGreaterThanOrEqual(0)
      const rows = [...ALL_TYPES_ROWS, ...ALL_TYPES_ROWS.slice(1)]
      const result = runPyarrow(writeArrowStream(ALL_TYPES, batches))
      expect(result.types).toEqual(EXPECTED_TYPES)
      expect(result.rows).toEqual(rows.map(r => r.map((v, i) => raw(v, ALL_TYPES.fields[i].type))))
      for (const written of [result.zstd, result.lz4]) {
        const stream = readArrowStream(Buffer.from(written, 'base64'))
        expect(stream.batches.flatMap(b => b.toRows())).toEqual(rows)
      }
    })
  }
})
