import type { RowType } from '../../types/data-type.js'
import type { Row, Value } from '../value.js'
import { CompactedRowReader } from './compacted-row-reader.js'
import { CompactedRowWriter } from './compacted-row-writer.js'
import { checkedRowWriter, type RowFieldsReader, type RowFieldsWriter, rowReader } from './field-codec.js'

/**
 * Encodes rows of one row type as CompactedRow bytes, reusing one growable buffer. Every value is
 * checked against its column type first; a bad value throws FlussError('INVALID_REQUEST') naming
 * the column, and nothing is returned.
 */
export class CompactedRowEncoder {
  private readonly writer: CompactedRowWriter
  private readonly fields: RowFieldsWriter

  constructor(rowType: RowType) {
    this.writer = new CompactedRowWriter(rowType.fields.length)
    this.fields = checkedRowWriter(rowType.fields)
  }

  /** Encodes into the reused buffer and returns a view of it, valid until the next call. */
  encodeView(row: readonly Value[]): Buffer {
    this.writer.reset()
    this.fields.write(this.writer, row)
    return this.writer.bytesView()
  }

  /** Encodes into a new buffer owned by the caller. */
  encode(row: readonly Value[]): Buffer {
    this.writer.reset()
    this.fields.write(this.writer, row)
    return this.writer.toBytes()
  }
}

/** Decodes CompactedRow bytes of one row type, strictly: any malformed byte is CORRUPT_RECORD_EXCEPTION. */
export class CompactedRowDecoder {
  private readonly reader: CompactedRowReader
  private readonly fields: RowFieldsReader

  constructor(rowType: RowType) {
    this.reader = new CompactedRowReader(rowType.fields.length)
    this.fields = rowReader(
      rowType.fields.map(f => f.type),
      true,
    )
  }

  decode(bytes: Uint8Array, offset = 0, length = bytes.length - offset): Row {
    this.reader.pointTo(bytes, offset, length)
    return this.fields.read(this.reader)
  }
}

const encoders = new WeakMap<RowType, CompactedRowEncoder>()
const decoders = new WeakMap<RowType, CompactedRowDecoder>()

/** Encodes one row with an encoder cached per row type object. */
export function encodeCompactedRow(row: readonly Value[], rowType: RowType): Buffer {
  let encoder = encoders.get(rowType)
  if (encoder === undefined) {
    encoder = new CompactedRowEncoder(rowType)
    encoders.set(rowType, encoder)
  }
  return encoder.encode(row)
}

/** Decodes one row with a decoder cached per row type object. */
export function decodeCompactedRow(bytes: Uint8Array, rowType: RowType): Row {
  let decoder = decoders.get(rowType)
  if (decoder === undefined) {
    decoder = new CompactedRowDecoder(rowType)
    decoders.set(rowType, decoder)
  }
  return decoder.decode(bytes)
}
