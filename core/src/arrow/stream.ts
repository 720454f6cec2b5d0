import { FlussError } from '../errors/index.js'
import type { DataType, RowField, RowType } from '../types/data-type.js'
import { ArrowBatchReader, type ArrowBatchReaderOptions } from './batch-reader.js'
import { arrowNodeCount } from './column-layout.js'
import { corrupt } from './flatbuf-reader.js'
import { MessageHeaderType, readMessageFrame, readRecordBatchHeader } from './message.js'
import { type ArrowField, readSchema, type SchemaMessageOptions, schemaMessage } from './schema.js'

/**
 * Arrow IPC streams (Schema message, RecordBatch messages, end-of-stream marker), for components
 * that exchange self-describing Arrow data: gateway request bodies, tiering into parquet-wasm.
 */

const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])

/**
 * A stream of `rowType`'s schema followed by the given RecordBatch messages (as produced by
 * `ArrowBatchWriter.finish()` or `projectRecordBatch`) and the end-of-stream marker.
 */
export function writeArrowStream(
  rowType: RowType,
  batches: Iterable<Uint8Array>,
  options: SchemaMessageOptions = {},
): Uint8Array {
  const parts: Uint8Array[] = [schemaMessage(rowType, options)]
  const nodeCount = arrowNodeCount(rowType)
  for (const batch of batches) {
    const header = readRecordBatchHeader(new DataView(batch.buffer, batch.byteOffset, batch.byteLength))
    if (header.nodeCount !== nodeCount) {
      throw new FlussError(
        'INVALID_REQUEST',
        `batch has ${header.nodeCount} field nodes, the row type has ${nodeCount}`,
      )
    }
    parts.push(batch.subarray(0, header.frame.end))
  }
  parts.push(END_OF_STREAM)
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

export interface ArrowStream {
  readonly fields: readonly ArrowField[]
  readonly metadata: Readonly<Record<string, string>>
  /** The Fluss row type of the schema, or null when some field has no Fluss equivalent. */
  readonly rowType: RowType | null
  /** Each RecordBatch as a standalone message (the form Fluss log batches and `ArrowBatchReader` use). */
  readonly messages: readonly Uint8Array[]
  /** Readers over `messages`; empty when `rowType` is null. */
  readonly batches: readonly ArrowBatchReader[]
}

/** Parses an Arrow IPC stream. Dictionary-encoded streams are not supported. */
export function readArrowStream(bytes: Uint8Array, options: ArrowBatchReaderOptions = {}): ArrowStream {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const first = readMessageFrame(view, 0)
  if (first === null) throw corrupt('Arrow stream has no schema message')
  if (first.headerType !== MessageHeaderType.Schema) {
    throw corrupt(`Arrow stream starts with header type ${first.headerType}, expected a Schema`)
  }
  const { fields, metadata } = readSchema(first.fb, first.header)
  const messages: Uint8Array[] = []
  let pos = first.end
  for (;;) {
    const frame = readMessageFrame(view, pos)
    if (frame === null) break
    if (frame.headerType === MessageHeaderType.DictionaryBatch) {
      throw new FlussError('INVALID_REQUEST', 'dictionary-encoded Arrow streams are not supported')
    }
    if (frame.headerType !== MessageHeaderType.RecordBatch) {
      throw corrupt(`unexpected message header type ${frame.headerType} in an Arrow stream`)
    }
    messages.push(bytes.subarray(pos, frame.end))
    pos = frame.end
  }
  const rowType = toRowType(fields)
  const batches = rowType === null ? [] : messages.map(m => new ArrowBatchReader(m, rowType, options))
  return { fields, metadata, rowType, messages, batches }
}

function toRowType(fields: readonly ArrowField[]): RowType | null {
  const rowFields: RowField[] = []
  for (const [i, f] of fields.entries()) {
    if (f.type === null) return null
    rowFields.push({ name: f.name, type: f.type as DataType, fieldId: i })
  }
  return { type: 'ROW', nullable: false, fields: rowFields }
}
