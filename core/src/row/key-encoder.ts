import { FlussError } from '../errors/index.js'
import { type RowType, typeToString } from '../types/data-type.js'
import { CompactedRowReader } from './compacted/compacted-row-reader.js'
import { CompactedRowWriter } from './compacted/compacted-row-writer.js'
import {
  createFieldWriter,
  type FieldWriter,
  type RowFieldsReader,
  rowReader,
} from './compacted/field-codec.js'
import type { Row, Value } from './value.js'

/** Positions of the named columns in `rowType`; an unknown name is INVALID_REQUEST. */
export function keyPositions(rowType: RowType, keyNames: readonly string[]): number[] {
  return keyNames.map(name => {
    const i = rowType.fields.findIndex(f => f.name === name)
    if (i < 0) {
      const known = rowType.fields.map(f => f.name).join(', ')
      throw new FlussError('INVALID_REQUEST', `Field ${name} not found in input row type (${known})`)
    }
    return i
  })
}

/**
 * Fluss's CompactedKeyEncoder: the key columns, in key order, with the CompactedRow field encodings
 * and no null bit set. Because there is no header, the encoding of a key-column prefix is a byte
 * prefix of the encoding of the whole key (bucket key vs primary key; prefix lookups rely on it).
 * Null key values are rejected with Fluss's message.
 */
export class CompactedKeyEncoder {
  private readonly writer = new CompactedRowWriter(0)
  private readonly writers: FieldWriter[]
  private readonly describe: string[]

  /** Encodes the columns at `positions` of rows of `rowType` (default: every column). */
  constructor(
    rowType: RowType,
    private readonly positions: readonly number[] = rowType.fields.map((_, i) => i),
  ) {
    const fields = positions.map(p => rowType.fields[p])
    this.writers = fields.map(f => createFieldWriter(f.type, f.name))
    this.describe = fields.map(f => typeToString(f.type))
  }

  /** An encoder of the named key columns of `rowType`. */
  static of(rowType: RowType, keyNames: readonly string[]): CompactedKeyEncoder {
    return new CompactedKeyEncoder(rowType, keyPositions(rowType, keyNames))
  }

  /** Encodes into the reused buffer and returns a view of it, valid until the next call. */
  encodeKeyView(row: readonly Value[]): Buffer {
    const w = this.writer
    w.reset()
    const positions = this.positions
    for (let i = 0; i < positions.length; i++) {
      const v = row[positions[i]]
      if (v === null || v === undefined) {
        throw new FlussError(
          'INVALID_REQUEST',
          `Null value is not allowed for compacted key encoder in position ${i} with type ${this.describe[i]}.`,
        )
      }
      this.writers[i](w, v)
    }
    return w.bytesView()
  }

  /** Encodes into a new buffer owned by the caller. */
  encodeKey(row: readonly Value[]): Buffer {
    this.encodeKeyView(row)
    return this.writer.toBytes()
  }
}

/** Decodes CompactedKeyEncoder bytes back into the key values (in key order). */
export class CompactedKeyDecoder {
  private readonly reader = new CompactedRowReader(0)
  private readonly fields: RowFieldsReader

  constructor(rowType: RowType, positions: readonly number[] = rowType.fields.map((_, i) => i)) {
    this.fields = rowReader(
      positions.map(p => rowType.fields[p].type),
      false,
    )
  }

  static of(rowType: RowType, keyNames: readonly string[]): CompactedKeyDecoder {
    return new CompactedKeyDecoder(rowType, keyPositions(rowType, keyNames))
  }

  decodeKey(bytes: Uint8Array): Row {
    this.reader.pointTo(bytes)
    return this.fields.read(this.reader)
  }
}

const bucketKeyEncoders = new WeakMap<RowType, Map<string, CompactedKeyEncoder>>()

/**
 * Encodes the bucket key of a full row (the bytes `bucketForKey` hashes) with an encoder cached per
 * (row type, bucket key). For tables whose bucket key is a prefix of the primary key the result is a
 * byte prefix of the encoded primary key.
 */
export function encodeBucketKey(
  row: readonly Value[],
  rowType: RowType,
  bucketKeyNames: readonly string[],
): Buffer {
  let byKey = bucketKeyEncoders.get(rowType)
  if (byKey === undefined) {
    byKey = new Map()
    bucketKeyEncoders.set(rowType, byKey)
  }
  const id = bucketKeyNames.join('\u0000')
  let encoder = byKey.get(id)
  if (encoder === undefined) {
    encoder = CompactedKeyEncoder.of(rowType, bucketKeyNames)
    byKey.set(id, encoder)
  }
  return encoder.encodeKey(row)
}
