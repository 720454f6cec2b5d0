import { FlussError } from '../errors/index.js'
import { isNested, type RowType, typeToString } from '../types/data-type.js'
import { DEFAULT_MAX_UNCOMPRESSED_BYTES } from './batch-reader.js'
import { type ColumnLayout, rowLayouts } from './column-layout.js'
import { decodeColumn } from './column-reader.js'
import { pad8 } from './column-writer.js'
import { decompressPiece } from './compression.js'
import { corrupt } from './flatbuf-reader.js'
import { getInt64Number } from './int64.js'
import { type LakeColumnBuffers, lakeColumnConverter, nullColumn } from './lake-columns.js'
import {
  checkPosition,
  type LakeBatchPosition,
  lakeStreamRowType,
  PARQUET_FIELD_ID_METADATA_KEY,
  systemColumns,
} from './lake-system-columns.js'
import {
  bufferRegion,
  CODEC_NONE,
  type RecordBatchHeader,
  readRecordBatchHeader,
  recordBatchMetadataSize,
  writeRecordBatchHeader,
} from './message.js'
import { schemaMessage } from './schema.js'

/**
 * Fluss ARROW log batches → one uncompressed Arrow IPC stream for a lake data file, without
 * decoding values: each RecordBatch message is validated and decompressed buffer by buffer, its
 * buffers are reused as they are (or converted at buffer level where the lake type differs:
 * TINYINT/SMALLINT widened to INT, TIME and TIMESTAMP rescaled to microseconds, columns added by
 * a later schema filled with nulls), and three system columns are appended:
 *
 *   __bucket int32 NOT NULL, __offset int64 NOT NULL, __timestamp timestamp(us, UTC) NOT NULL
 *
 * (`__offset` = the batch's base offset + row, `__timestamp` = the batch commit time). Every field
 * of the stream's schema carries its lake field id as `PARQUET:field_id`, and TIMESTAMP_LTZ columns
 * declare time zone UTC, so Parquet writers produce Iceberg-conformant files.
 */

const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])

export interface LakeStreamSchema {
  /** The table's columns as the lake stores them (lake types), without the system columns. */
  readonly userRowType: RowType
  /** One field id per user column, then the ids of `__bucket`, `__offset`, `__timestamp`. */
  readonly fieldIds: readonly number[]
  /**
   * Per user column, the Fluss column id it holds: a batch's columns are then matched by id (a
   * renamed column is found, a dropped one left out, one added since written as NULL). Without
   * it, a batch's columns are the user columns or a prefix of them, by position.
   */
  readonly sourceColumnIds?: readonly number[]
  /** Custom metadata of the stream's schema. */
  readonly metadata?: Readonly<Record<string, string>>
  /** Upper bound on the decompressed size of one input batch (default 256 MiB). */
  readonly maxUncompressedBytes?: number
}

/** What one appended batch contributed, per lake column (user columns, then system columns). */
export interface LakeBatchSummary {
  readonly recordCount: number
  readonly nullCounts: readonly number[]
}

interface OutputBatch {
  readonly header: Uint8Array
  readonly pieces: readonly Uint8Array[]
}

export class LakeArrowStreamWriter {
  readonly rowType: RowType
  private readonly layouts: readonly ColumnLayout[]
  private readonly schemaBytes: Uint8Array
  private readonly maxUncompressedBytes: number
  private batches: OutputBatch[] = []
  private bytes = 0
  private rows = 0

  constructor(private readonly schema: LakeStreamSchema) {
    this.rowType = lakeStreamRowType(schema.userRowType)
    if (schema.fieldIds.length !== this.rowType.fields.length) {
      throw new FlussError(
        'INVALID_REQUEST',
        `${schema.fieldIds.length} field ids given for ${this.rowType.fields.length} lake columns`,
      )
    }
    const nested = schema.userRowType.fields.find(f => isNested(f.type))
    if (nested !== undefined) {
      throw new FlussError(
        'INVALID_REQUEST',
        `column '${nested.name}' of type ${typeToString(nested.type)}: nested columns are not tiered into the lake yet`,
      )
    }
    this.layouts = rowLayouts(this.rowType)
    this.schemaBytes = schemaMessage(this.rowType, {
      fieldMetadata: schema.fieldIds.map(id => ({ [PARQUET_FIELD_ID_METADATA_KEY]: String(id) })),
      timestampLtzTimezone: 'UTC',
      ...(schema.metadata === undefined ? {} : { metadata: schema.metadata }),
    })
    this.maxUncompressedBytes = schema.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES
  }

  /** Rows appended since the last `finish()`/`reset()`. */
  get recordCount(): number {
    return this.rows
  }

  /** Bytes `finish()` would return. */
  get bufferedBytes(): number {
    return this.schemaBytes.length + this.bytes + END_OF_STREAM.length
  }

  /**
   * Appends one RecordBatch message written in `sourceRowType` (the schema of the batch's schema
   * id: matched by column id with `sourceColumnIds`, else the lake's user columns or a prefix of
   * them). CORRUPT_RECORD_EXCEPTION for a damaged
   * message; INVALID_REQUEST when a column cannot be converted to its lake type.
   */
  append(message: Uint8Array, sourceRowType: RowType, position: LakeBatchPosition): LakeBatchSummary {
    checkPosition(position)
    const view = new DataView(message.buffer, message.byteOffset, message.byteLength)
    const header = readRecordBatchHeader(view)
    const n = header.length
    const columns = this.userColumns(message, view, header, sourceRowType)
    columns.push(...systemColumns(n, position))
    const nullCounts = columns.map(c => c.nullCount)
    if (n > 0) this.addBatch(n, columns)
    return { recordCount: n, nullCounts }
  }

  private userColumns(
    message: Uint8Array,
    view: DataView,
    header: RecordBatchHeader,
    source: RowType,
  ): LakeColumnBuffers[] {
    const target = this.schema.userRowType
    const ids = this.schema.sourceColumnIds
    if (ids === undefined && source.fields.length > target.fields.length) {
      throw new FlussError(
        'INVALID_REQUEST',
        `the batch has ${source.fields.length} columns, the lake table ${target.fields.length}`,
      )
    }
    const sourceLayouts = rowLayouts(source)
    const pieces = this.decompressed(message, view, header, sourceLayouts)
    const firstBuffer: number[] = []
    sourceLayouts.reduce((b, l) => {
      firstBuffer.push(b)
      return b + l.bufferCount
    }, 0)
    const out: LakeColumnBuffers[] = []
    for (let c = 0; c < target.fields.length; c++) {
      const to = target.fields[c]
      const s = ids === undefined ? c : source.fields.findIndex(f => f.fieldId === ids[c])
      if (s < 0 || s >= source.fields.length) {
        if (!to.type.nullable)
          throw new FlussError('INVALID_REQUEST', `NOT NULL column '${to.name}' is missing`)
        out.push(nullColumn(this.layouts[c], header.length))
        continue
      }
      const from = source.fields[s]
      const layout = sourceLayouts[s]
      const buffers = pieces.slice(firstBuffer[s], firstBuffer[s] + layout.bufferCount)
      const at = header.nodes + 16 * s
      const length = getInt64Number(view, at)
      const nullCount = getInt64Number(view, at + 8)
      if (length !== header.length)
        throw corrupt(`column '${from.name}' has ${length} values, not ${header.length}`)
      if (!(nullCount >= 0 && nullCount <= length))
        throw corrupt(`column '${from.name}' has null count ${nullCount}`)
      if (nullCount > 0 && !(from.type.nullable && to.type.nullable))
        throw corrupt(`NOT NULL column '${to.name}' has ${nullCount} nulls`)
      const scale = from.type.type === 'DECIMAL' ? from.type.scale : 0
      const column = decodeColumn(from.name, layout, scale, length, nullCount, buffers)
      const convert = lakeColumnConverter(to.name, from.type, layout, to.type, this.layouts[c])
      const converted = convert(column, buffers, to.name)
      out.push(column.allNull ? withValidity(converted, length) : converted)
    }
    return out
  }

  /** Every buffer of the message, decompressed, after checking counts and bounds. */
  private decompressed(
    message: Uint8Array,
    view: DataView,
    header: RecordBatchHeader,
    layouts: readonly ColumnLayout[],
  ): Uint8Array[] {
    const expectedBuffers = layouts.reduce((sum, l) => sum + l.totalBufferCount, 0)
    if (header.nodeCount !== layouts.length || header.bufferCount !== expectedBuffers) {
      throw corrupt(
        `batch has ${header.nodeCount} columns and ${header.bufferCount} buffers, the schema needs ${layouts.length} and ${expectedBuffers}`,
      )
    }
    const region = { offset: 0, length: 0 }
    const pieces: Uint8Array[] = []
    const bodyStart = header.frame.bodyStart
    let total = 0
    for (let i = 0; i < header.bufferCount; i++) {
      bufferRegion(view, header, i, region)
      const piece = message.subarray(bodyStart + region.offset, bodyStart + region.offset + region.length)
      const raw =
        header.codec === CODEC_NONE ? piece : decompressPiece(header.codec, piece, this.maxUncompressedBytes)
      total += raw.length
      if (total > this.maxUncompressedBytes) {
        throw corrupt(`batch holds more than ${this.maxUncompressedBytes} uncompressed bytes`)
      }
      pieces.push(raw)
    }
    return pieces
  }

  private addBatch(rows: number, columns: readonly LakeColumnBuffers[]): void {
    const pieces = columns.flatMap(c => c.buffers)
    const nodes = new Float64Array(2 * columns.length)
    columns.forEach((c, i) => {
      nodes[2 * i] = rows
      nodes[2 * i + 1] = c.nullCount
    })
    const buffers = new Float64Array(2 * pieces.length)
    let body = 0
    pieces.forEach((p, i) => {
      buffers[2 * i] = body
      buffers[2 * i + 1] = p.length
      body += pad8(p.length)
    })
    const meta = recordBatchMetadataSize(columns.length, pieces.length, CODEC_NONE)
    const header = new Uint8Array(8 + meta)
    writeRecordBatchHeader(header, 0, {
      length: rows,
      nodeCount: columns.length,
      nodes,
      bufferCount: pieces.length,
      buffers,
      codec: CODEC_NONE,
      bodyLength: body,
    })
    this.batches.push({ header, pieces })
    this.bytes += header.length + body
    this.rows += rows
  }

  /** The stream of every batch appended so far (one allocation); the writer is empty afterwards. */
  finish(): Uint8Array {
    // Not zero-filled (the stream is written once, whole): only the padding is zeroed below.
    const out = Buffer.allocUnsafe(this.bufferedBytes)
    out.set(this.schemaBytes, 0)
    let at = this.schemaBytes.length
    for (const b of this.batches) {
      out.set(b.header, at)
      at += b.header.length
      for (const p of b.pieces) {
        out.set(p, at)
        out.fill(0, at + p.length, at + pad8(p.length))
        at += pad8(p.length)
      }
    }
    out.set(END_OF_STREAM, at)
    this.reset()
    return out
  }

  reset(): void {
    this.batches = []
    this.bytes = 0
    this.rows = 0
  }
}

/** An all-null column stored without a validity bitmap gets an explicit (all-zero) one. */
function withValidity(c: LakeColumnBuffers, rows: number): LakeColumnBuffers {
  if (c.buffers[0].length > 0) return c
  return { ...c, buffers: [new Uint8Array((rows + 7) >> 3), ...c.buffers.slice(1)] }
}
