import { FlussError } from '../../errors/index.js'
import type { DataType, RowField } from '../../types/data-type.js'
import { createNonNullChecker, decimalUnscaled, invalidValue } from '../check-value.js'
import { Decimal, type Row, type Timestamp, type Value } from '../value.js'
import { CompactedRowReader, corruptRow } from './compacted-row-reader.js'
import { CompactedRowWriter } from './compacted-row-writer.js'

/** Checks and writes one non-null value. */
export type FieldWriter = (w: CompactedRowWriter, value: Value) => void
/** Reads one non-null value. */
export type FieldReader = (r: CompactedRowReader) => Value

/** Compiles the writer of one column's non-null values; it validates each value (see `checkValue`). */
export function createFieldWriter(type: DataType, column: string): FieldWriter {
  const check = createNonNullChecker(type, column)
  switch (type.type) {
    case 'BOOLEAN':
      return (w, v) => {
        check(v)
        w.writeBoolean(v as boolean)
      }
    case 'TINYINT':
      return (w, v) => {
        check(v)
        w.writeByte(v as number)
      }
    case 'SMALLINT':
      return (w, v) => {
        check(v)
        w.writeShort(v as number)
      }
    case 'INTEGER':
    case 'DATE':
    case 'TIME_WITHOUT_TIME_ZONE':
      return (w, v) => {
        check(v)
        w.writeInt(v as number)
      }
    case 'BIGINT':
      return (w, v) => {
        check(v)
        w.writeLong(v as bigint)
      }
    case 'FLOAT':
      return (w, v) => {
        check(v)
        w.writeFloat(v as number)
      }
    case 'DOUBLE':
      return (w, v) => {
        check(v)
        w.writeDouble(v as number)
      }
    case 'CHAR':
    case 'STRING':
      return (w, v) => {
        check(v)
        w.writeString(v as string)
      }
    case 'BINARY':
    case 'BYTES':
      return (w, v) => {
        check(v)
        w.writeBytes(v as Uint8Array)
      }
    case 'DECIMAL': {
      const fail = (value: Value, reason: string): never => {
        throw invalidValue(column, type, value, reason)
      }
      return (w, v) => w.writeDecimalUnscaled(decimalUnscaled(type, v, fail), type.precision)
    }
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE': {
      const precision = type.precision
      return (w, v) => {
        check(v)
        const t = v as Timestamp
        w.writeTimestamp(t.millis, t.nanoOfMillis, precision)
      }
    }
    case 'ROW': {
      const nested = new RowFieldsWriter(type.fields, `${column}.`)
      const nestedWriter = new CompactedRowWriter(type.fields.length)
      return (w, v) => {
        check(v)
        nestedWriter.reset()
        nested.write(nestedWriter, v as Value[])
        w.writeBytes(nestedWriter.bytesView())
      }
    }
    case 'ARRAY':
    case 'MAP':
      return (_w, v) => {
        check(v)
        throw invalidValue(column, type, v, `${type.type} values are not supported in compacted rows yet`)
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
    case 'ROW': {
      const nested = new RowFieldsReader(
        type.fields.map(f => f.type),
        true,
      )
      const nestedReader = new CompactedRowReader(type.fields.length)
      return r => {
        const view = r.readNestedView()
        nestedReader.pointTo(view)
        return nested.read(nestedReader)
      }
    }
    case 'ARRAY':
    case 'MAP':
      return () => {
        throw new FlussError('INVALID_REQUEST', `${type.type} values are not supported in compacted rows yet`)
      }
  }
}

/** Writes a row's fields (null bits included) with compiled per-column writers. */
export class RowFieldsWriter {
  private readonly writers: FieldWriter[]
  private readonly nullable: boolean[]
  private readonly columns: string[]

  constructor(
    private readonly fields: readonly RowField[],
    columnPrefix = '',
  ) {
    this.columns = fields.map(f => `${columnPrefix}${f.name}`)
    this.writers = fields.map((f, i) => createFieldWriter(f.type, this.columns[i]))
    this.nullable = fields.map(f => f.type.nullable)
  }

  write(w: CompactedRowWriter, row: readonly Value[]): void {
    const n = this.writers.length
    if (!Array.isArray(row) || row.length !== n) {
      const got = Array.isArray(row) ? `${row.length} values` : typeof row
      throw new FlussError('INVALID_REQUEST', `Expected a row of ${n} values, got ${got}`)
    }
    for (let i = 0; i < n; i++) {
      const v = row[i]
      if (v === null) {
        if (!this.nullable[i]) {
          throw invalidValue(this.columns[i], this.fields[i].type, v, 'the column is NOT NULL')
        }
        w.setNullAt(i)
      } else {
        this.writers[i](w, v)
      }
    }
  }
}

/** Reads all fields of a row; `withNullBits` is false for keys, which have no null bit set. */
export class RowFieldsReader {
  private readonly readers: FieldReader[]

  constructor(
    types: readonly DataType[],
    private readonly withNullBits: boolean,
  ) {
    this.readers = types.map(createFieldReader)
  }

  read(r: CompactedRowReader): Row {
    const n = this.readers.length
    const row: Value[] = new Array(n)
    for (let i = 0; i < n; i++) {
      row[i] = this.withNullBits && r.isNullAt(i) ? null : this.readers[i](r)
    }
    if (r.remaining !== 0) throw corruptRow(`${r.remaining} bytes left after the last field`)
    return row
  }
}
