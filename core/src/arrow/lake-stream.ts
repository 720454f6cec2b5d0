import { FlussError } from '../errors/index.js'
import type { RowType } from '../types/data-type.js'
import { decodeBatchColumns } from './batch-columns.js'
import { DEFAULT_MAX_UNCOMPRESSED_BYTES } from './batch-reader.js'
import { type ColumnLayout, rowLayouts } from './column-layout.js'
import { pad8 } from './column-writer.js'
import { corrupt } from './flatbuf-reader.js'
import { flattenColumnTree, lakeColumnTree, nullColumnTree } from './lake-column-tree.js'
import type { LakeColumnBuffers } from './lake-columns.js'
import {
  checkPosition,
  type LakeBatchPosition,
  lakeStreamRowType,
  PARQUET_FIELD_ID_METADATA_KEY,
  systemColumns,
} from './lake-system-columns.js'
import {
  CODEC_NONE,
  type RecordBatchHeader,
  readRecordBatchHeader,
  recordBatchMetadataSize,
  writeRecordBatchHeader,
} from './message.js'
import { type FieldMetadataTree, schemaMessage } from './schema.js'

/**
 * Fluss ARROW log batches → one uncompressed Arrow IPC stream for a lake data file, without
 * decoding values: each RecordBatch message is validated and decompressed buffer by buffer, its
 * buffers are reused as they are (or converted at buffer level where the lake type differs:
 * TINYINT/SMALLINT widened to INT, TIME and TIMESTAMP rescaled to microseconds, columns added by
 * a later schema filled with nulls; List, Map and Struct columns keep their validity and offsets
 * and have their children converted the same way), and three system columns are appended:
 *
 *   __bucket int32 NOT NULL, __offset int64 NOT NULL, __timestamp timestamp(us, UTC) NOT NULL
 *
 * (`__offset` = the batch's base offset + row, `__timestamp` = the batch commit time). Every field
 * of the stream's schema carries its lake field id as `PARQUET:field_id` (nested children theirs,
 * from `fieldMetadataTrees`), and TIMESTAMP_LTZ columns declare time zone UTC, so Parquet writers
 * produce Iceberg-conformant files.
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
  /** Metadata of the nested children of the user columns (their field ids), by column position. */
  readonly fieldMetadataTrees?: ReadonlyArray<FieldMetadataTree | undefined>
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
    this.layouts = rowLayouts(this.rowType)
    this.schemaBytes = schemaMessage(this.rowType, {
      fieldMetadata: schema.fieldIds.map(id => ({ [PARQUET_FIELD_ID_METADATA_KEY]: String(id) })),
      ...(schema.fieldMetadataTrees === undefined ? {} : { fieldMetadataTrees: schema.fieldMetadataTrees }),
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
    const decoded = decodeBatchColumns(message, view, header, source, this.maxUncompressedBytes)
    const out: LakeColumnBuffers[] = []
    for (let c = 0; c < target.fields.length; c++) {
      const to = target.fields[c]
      const s = ids === undefined ? c : source.fields.findIndex(f => f.fieldId === ids[c])
      if (s < 0 || s >= source.fields.length) {
        if (!to.type.nullable)
          throw new FlussError('INVALID_REQUEST', `NOT NULL column '${to.name}' is missing`)
        out.push(nullColumnTree(this.layouts[c], header.length))
        continue
      }
      const from = source.fields[s]
      const column = decoded[s]
      if (column.nullCount > 0 && !to.type.nullable)
        throw corrupt(`NOT NULL column '${to.name}' has ${column.nullCount} nulls`)
      out.push(lakeColumnTree(to.name, from.type, sourceLayouts[s], to.type, this.layouts[c], column))
    }
    return out
  }

  private addBatch(rows: number, columns: readonly LakeColumnBuffers[]): void {
    const flat: { length: number; nullCount: number }[] = []
    const pieces: Uint8Array[] = []
    for (const c of columns) flattenColumnTree(c, rows, flat, pieces)
    const nodes = new Float64Array(2 * flat.length)
    flat.forEach((n, i) => {
      nodes[2 * i] = n.length
      nodes[2 * i + 1] = n.nullCount
    })
    const buffers = new Float64Array(2 * pieces.length)
    let body = 0
    pieces.forEach((p, i) => {
      buffers[2 * i] = body
      buffers[2 * i + 1] = p.length
      body += pad8(p.length)
    })
    const meta = recordBatchMetadataSize(flat.length, pieces.length, CODEC_NONE)
    const header = new Uint8Array(8 + meta)
    writeRecordBatchHeader(header, 0, {
      length: rows,
      nodeCount: flat.length,
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
