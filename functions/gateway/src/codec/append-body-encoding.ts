import { recompressValidatedBatch, type ValidatedArrowBatch, validateArrowStream } from '@sluice/client'
import { ArrowBatchWriter, type ArrowCompressionInfo } from '@sluice/core/arrow'
import type { RowType } from '@sluice/core/types'
import { JsonBodyRowReader } from '../json/body-rows.js'
import { JsonRowReader } from '../json/row-codec.js'

/**
 * Turning an append body into the Arrow log batches of a table, as one piece of work that runs on
 * the event loop or in a worker thread (see AppendBodyEncoder): a JSON `{"rows":[…]}` body is read
 * by the direct body reader and encoded with the table's compression; an Arrow IPC stream with
 * exactly the table's columns is validated and its batches re-encoded with the table's compression
 * (see AppendWriter.appendArrowBatches). Anything else is declined: the gateway then reads the body
 * on its general path, which also words the errors.
 */

export interface AppendBodyRequest {
  readonly format: 'json' | 'arrow'
  readonly bytes: Uint8Array
  /** Identifies `rowType` (table id and schema id): work for the same key shares its readers. */
  readonly tableKey: string
  readonly rowType: RowType
  readonly compression: ArrowCompressionInfo
  readonly maxRows: number
  readonly maxJsonDepth: number
  /** Most bytes one Arrow record batch of the body may decompress to. */
  readonly maxUncompressedBytes: number
  /** A new log batch is started once one holds this many uncompressed bytes. */
  readonly batchBytes: number
}

export type AppendBodyResult =
  /** Arrow RecordBatch messages of the table's row type with its compression, in row order. */
  | { readonly kind: 'encoded'; readonly messages: Uint8Array[]; readonly rowCount: number }
  | { readonly kind: 'declined' }

export const DECLINED: AppendBodyResult = { kind: 'declined' }

/** What JSON bodies of one table key are read and encoded with (kept between requests). */
interface TableCodec {
  readonly reader: JsonBodyRowReader
  /** Keyed by the compression too: a table's compression may change under the same schema. */
  readonly writers: Map<string, ArrowBatchWriter>
}

/** The codecs of each table key seen (at most `MAX_TABLES`, oldest dropped). */
const CODECS = new Map<string, TableCodec>()
const MAX_TABLES = 64

function tableCodec(tableKey: string, rowType: RowType): TableCodec {
  let codec = CODECS.get(tableKey)
  if (codec === undefined) {
    codec = { reader: new JsonBodyRowReader(new JsonRowReader(rowType).columns, 'rows'), writers: new Map() }
    if (CODECS.size >= MAX_TABLES) CODECS.delete(CODECS.keys().next().value as string)
    CODECS.set(tableKey, codec)
  }
  return codec
}

/**
 * The table's batch writer for a compression, reset and ready: its column buffers are kept between
 * requests (each request's rows would otherwise allocate and drop them again).
 */
function batchWriter(
  codec: TableCodec,
  rowType: RowType,
  compression: ArrowCompressionInfo,
): ArrowBatchWriter {
  const key = `${compression.type}:${compression.level ?? ''}`
  let writer = codec.writers.get(key)
  if (writer === undefined) {
    writer = new ArrowBatchWriter(rowType, { compression })
    codec.writers.set(key, writer)
  }
  writer.reset()
  return writer
}

export function encodeAppendBody(request: AppendBodyRequest): AppendBodyResult {
  try {
    return request.format === 'json' ? encodeJson(request) : encodeArrow(request)
  } catch {
    return DECLINED
  }
}

function encodeJson(request: AppendBodyRequest): AppendBodyResult {
  const codec = tableCodec(request.tableKey, request.rowType)
  const rows = codec.reader.read(request.bytes, request.maxRows, request.maxJsonDepth)
  if (rows === undefined || rows.length === 0) return DECLINED
  const writer = batchWriter(codec, request.rowType, request.compression)
  const messages: Uint8Array[] = []
  let pending = 0
  for (const row of rows) {
    writer.addRow(row)
    pending++
    if (writer.uncompressedSizeInBytes() >= request.batchBytes) {
      messages.push(writer.finish())
      writer.reset()
      pending = 0
    }
  }
  if (pending > 0) messages.push(writer.finish())
  return { kind: 'encoded', messages, rowCount: rows.length }
}

function encodeArrow(request: AppendBodyRequest): AppendBodyResult {
  const batches = exactArrowBatches(request.bytes, request.rowType, request)
  if (batches === undefined) return DECLINED
  const limits = { maxUncompressedBytes: request.maxUncompressedBytes }
  const messages = batches.map(b => recompressValidatedBatch(b, request.compression, limits).message)
  return { kind: 'encoded', messages, rowCount: rowCountOf(batches) }
}

/**
 * The record batches of an Arrow IPC stream with exactly `rowType`'s columns, validated, without
 * empty ones; undefined (never an error) when the stream is not such a stream, holds no rows or
 * more than `maxRows`: the gateway's row path then decodes it and says what is wrong.
 */
export function exactArrowBatches(
  stream: Uint8Array,
  rowType: RowType,
  limits: { readonly maxRows: number; readonly maxUncompressedBytes: number },
): ValidatedArrowBatch[] | undefined {
  let batches: ValidatedArrowBatch[]
  try {
    const options = { maxUncompressedBytes: limits.maxUncompressedBytes }
    batches = validateArrowStream(stream, rowType, options).filter(b => b.recordCount > 0)
  } catch {
    return undefined
  }
  const rowCount = rowCountOf(batches)
  return rowCount === 0 || rowCount > limits.maxRows ? undefined : batches
}

export function rowCountOf(batches: readonly ValidatedArrowBatch[]): number {
  return batches.reduce((sum, b) => sum + b.recordCount, 0)
}
