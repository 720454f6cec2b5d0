import type { DataType, RowField, RowType } from '../../types/data-type.js'
import { arrayCodec, mapCodec, type NestedRowCodec } from '../binary/binary-codec.js'
import { createNonNullChecker, decimalUnscaled, invalidValue } from '../check-value.js'
import { Decimal, type Timestamp, type Value } from '../value.js'
import { CompactedRowReader } from './compacted-row-reader.js'
import { CompactedRowWriter } from './compacted-row-writer.js'
import { type FieldReader, type FieldWriter, RowFieldsReader, RowFieldsWriter } from './row-fields.js'

export { type FieldReader, type FieldWriter, RowFieldsReader, RowFieldsWriter } from './row-fields.js'

const unchecked = (): never => {
  throw new TypeError('unchecked decimal value')
}

/** Compiles the writer of one column's non-null values; it validates each value (see `checkValue`). */
export function createFieldWriter(type: DataType, column: string): FieldWriter {
  if (type.type === 'DECIMAL') {
    const fail = (value: Value, reason: string): never => {
      throw invalidValue(column, type, value, reason)
    }
    return (w, v) => w.writeDecimalUnscaled(decimalUnscaled(type, v, fail), type.precision)
  }
  const check = createNonNullChecker(type, column)
  const write = createValueWriter(type)
  return (w, v) => {
    check(v)
    write(w, v)
  }
}

/**
 * Compiles the writer of non-null values that were checked already (the fields of nested values).
 * ARRAY and MAP values are written as a varint length and Fluss's BinaryArray/BinaryMap bytes, ROW
 * values as a varint length and a nested CompactedRow.
 */
export function createValueWriter(type: DataType): FieldWriter {
  switch (type.type) {
    case 'BOOLEAN':
      return (w, v) => w.writeBoolean(v as boolean)
    case 'TINYINT':
      return (w, v) => w.writeByte(v as number)
    case 'SMALLINT':
      return (w, v) => w.writeShort(v as number)
    case 'INTEGER':
    case 'DATE':
    case 'TIME_WITHOUT_TIME_ZONE':
      return (w, v) => w.writeInt(v as number)
    case 'BIGINT':
      return (w, v) => w.writeLong(v as bigint)
    case 'FLOAT':
      return (w, v) => w.writeFloat(v as number)
    case 'DOUBLE':
      return (w, v) => w.writeDouble(v as number)
    case 'CHAR':
    case 'STRING':
      return (w, v) => w.writeString(v as string)
    case 'BINARY':
    case 'BYTES':
      return (w, v) => w.writeBytes(v as Uint8Array)
    case 'DECIMAL':
      return (w, v) => w.writeDecimalUnscaled(decimalUnscaled(type, v, unchecked), type.precision)
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE': {
      const precision = type.precision
      return (w, v) => {
        const t = v as Timestamp
        w.writeTimestamp(t.millis, t.nanoOfMillis, precision)
      }
    }
    case 'ROW': {
      const nested = nestedRowCodec(type)
      return (w, v) => w.writeBytes(nested.encode(v as Value[]))
    }
    case 'ARRAY': {
      const codec = arrayCodec(type.elementType, nestedRowCodec)
      return (w, v) => w.writeBytes(codec.encode(v as Value[]))
    }
    case 'MAP': {
      const codec = mapCodec(type, nestedRowCodec)
      return (w, v) => w.writeBytes(codec.encode(v as Map<Value, Value>))
    }
  }
}

/** Compiles the reader of one column's non-null values. */
export function createFieldReader(type: DataType): FieldReader {
  switch (type.type) {
    case 'BOOLEAN':
      return r => r.readBoolean()
    case 'TINYINT':
      return r => r.readByte()
    case 'SMALLINT':
      return r => r.readShort()
    case 'INTEGER':
    case 'DATE':
    case 'TIME_WITHOUT_TIME_ZONE':
      return r => r.readInt()
    case 'BIGINT':
      return r => r.readLong()
    case 'FLOAT':
      return r => r.readFloat()
    case 'DOUBLE':
      return r => r.readDouble()
    case 'CHAR':
    case 'STRING':
      return r => r.readString()
    case 'BINARY':
    case 'BYTES':
      return r => r.readBytes()
    case 'DECIMAL': {
      const { precision, scale } = type
      return r => new Decimal(r.readDecimalUnscaled(precision), scale)
    }
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE': {
      const precision = type.precision
      return r => r.readTimestamp(precision)
    }
    case 'ROW':
      return nestedReader(nestedRowCodec(type))
    case 'ARRAY':
      return nestedReader(arrayCodec(type.elementType, nestedRowCodec))
    case 'MAP':
      return nestedReader(mapCodec(type, nestedRowCodec))
  }
}

function nestedReader(codec: {
  decode(bytes: Uint8Array, offset: number, length: number): Value
}): FieldReader {
  return r => {
    const view = r.readNestedView()
    return codec.decode(view, 0, view.length)
  }
}

/** A writer of whole rows whose every value is checked (see `checkValue`). */
export function checkedRowWriter(fields: readonly RowField[]): RowFieldsWriter {
  return new RowFieldsWriter(
    fields,
    fields.map(f => createFieldWriter(f.type, f.name)),
    true,
  )
}

/** A reader of rows (with null bits) or of keys (without) of the given field types. */
export function rowReader(types: readonly DataType[], withNullBits: boolean): RowFieldsReader {
  return new RowFieldsReader(types.map(createFieldReader), withNullBits)
}

/**
 * Nested CompactedRows of one ROW type inside compacted rows, arrays and maps. Values are not
 * checked (the enclosing column's check covers them). `encode` returns a view of a reused buffer.
 */
export function nestedRowCodec(rowType: RowType): NestedRowCodec {
  const n = rowType.fields.length
  const writer = new CompactedRowWriter(n)
  const fields = new RowFieldsWriter(
    rowType.fields,
    rowType.fields.map(f => createValueWriter(f.type)),
    false,
  )
  const reader = new CompactedRowReader(n)
  const rows = rowReader(
    rowType.fields.map(f => f.type),
    true,
  )
  return {
    encode(row) {
      writer.reset()
      fields.write(writer, row)
      return writer.bytesView()
    },
    decode(bytes, offset, length) {
      reader.pointTo(bytes, offset, length)
      return rows.read(reader)
    },
  }
}
