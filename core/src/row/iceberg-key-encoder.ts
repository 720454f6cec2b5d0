import { FlussError } from '../errors/index.js'
import { type DataType, type RowType, typeToString } from '../types/data-type.js'
import { createNonNullChecker, decimalUnscaled, invalidValue } from './check-value.js'
import { asBuffer } from './compacted/compacted-row-reader.js'
import { unscaledToBytes } from './compacted/decimal-bytes.js'
import { keyPositions } from './key-encoder.js'
import type { Timestamp, Value } from './value.js'

/**
 * Fluss's IcebergKeyEncoder: the key of an Iceberg lake table, encoded so that Fluss's Iceberg
 * bucketing (`icebergBucketForKey`) gives the same bucket as Iceberg's `bucket[N]` transform.
 * Exactly one key column. The bytes are Iceberg's single-value hash input:
 *
 * | Fluss type                          | bytes                                               |
 * |-------------------------------------|-----------------------------------------------------|
 * | INT, DATE                           | the value as an 8-byte little-endian long           |
 * | BIGINT                              | 8-byte little-endian long                           |
 * | TIME                                | microseconds of the day, 8-byte little-endian long  |
 * | TIMESTAMP (without time zone)       | microseconds since the epoch, 8-byte LE long        |
 * | FLOAT / DOUBLE                      | 4 / 8-byte little-endian IEEE 754                   |
 * | DECIMAL                             | unscaled value, minimal big-endian two's complement |
 * | CHAR, STRING                        | UTF-8 bytes, no length prefix                       |
 * | BINARY, BYTES                       | the bytes, no length prefix                         |
 *
 * Other types (BOOLEAN, TINYINT, SMALLINT, TIMESTAMP_LTZ, ARRAY, MAP, ROW) cannot be Iceberg keys:
 * INVALID_CONFIG_EXCEPTION with Fluss's message, as is a key of several columns.
 */
export class IcebergKeyEncoder {
  private readonly position: number
  private readonly encodeField: IcebergFieldEncoder
  private readonly describe: string

  constructor(rowType: RowType, keyNames: readonly string[]) {
    if (keyNames.length !== 1) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `Key fields must have exactly one field for iceberg format, but got: [${keyNames.join(', ')}]`,
      )
    }
    this.position = keyPositions(rowType, keyNames)[0]
    const field = rowType.fields[this.position]
    this.encodeField = createIcebergFieldEncoder(field.type, field.name)
    this.describe = typeToString(field.type)
  }

  /** An encoder of the named key column of `rowType` (the same as the constructor). */
  static of(rowType: RowType, keyNames: readonly string[]): IcebergKeyEncoder {
    return new IcebergKeyEncoder(rowType, keyNames)
  }

  /** Encodes the key; the result may share a reused buffer and is valid until the next call. */
  encodeKeyView(row: readonly Value[]): Buffer {
    const v = row[this.position]
    if (v === null || v === undefined) {
      throw new FlussError(
        'INVALID_REQUEST',
        `Null value is not allowed for iceberg key encoder in position 0 with type ${this.describe}.`,
      )
    }
    return this.encodeField(v)
  }

  /** Encodes the key into a new buffer owned by the caller. */
  encodeKey(row: readonly Value[]): Buffer {
    return Buffer.from(this.encodeKeyView(row))
  }
}

/** Checks and encodes one non-null key value. */
type IcebergFieldEncoder = (value: Value) => Buffer

/** The encoder of one key column's values; INVALID_CONFIG_EXCEPTION for types Iceberg keys lack. */
export function createIcebergFieldEncoder(type: DataType, column: string): IcebergFieldEncoder {
  const check = createNonNullChecker(type, column)
  const long = Buffer.alloc(8)
  const checked =
    (encode: (v: Value) => Buffer): IcebergFieldEncoder =>
    v => {
      check(v)
      return encode(v)
    }
  switch (type.type) {
    case 'INTEGER':
    case 'DATE':
      return checked(v => writeLong(long, BigInt(v as number)))
    case 'TIME_WITHOUT_TIME_ZONE':
      return checked(v => writeLong(long, BigInt(v as number) * 1000n))
    case 'BIGINT':
      return checked(v => writeLong(long, v as bigint))
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return checked(v => writeLong(long, (v as Timestamp).toMicros()))
    case 'FLOAT': {
      const float = Buffer.alloc(4)
      return checked(v => {
        float.writeFloatLE(v as number)
        return float
      })
    }
    case 'DOUBLE':
      return checked(v => {
        long.writeDoubleLE(v as number)
        return long
      })
    case 'DECIMAL': {
      const fail = (value: Value, reason: string): never => {
        throw invalidValue(column, type, value, reason)
      }
      return v => Buffer.from(unscaledToBytes(decimalUnscaled(type, v, fail)))
    }
    case 'CHAR':
    case 'STRING':
      return checked(v => Buffer.from(v as string, 'utf8'))
    case 'BINARY':
    case 'BYTES':
      return checked(v => asBuffer(v as Uint8Array))
    case 'ARRAY':
      throw unsupportedKey('Array types cannot be used as bucket keys. Bucket keys must be scalar types.')
    case 'MAP':
      throw unsupportedKey('Map types cannot be used as bucket keys. Bucket keys must be scalar types.')
    default:
      throw unsupportedKey(`Unsupported type for Iceberg binary row writer: ${typeToString(type)}`)
  }
}

function writeLong(buffer: Buffer, value: bigint): Buffer {
  buffer.writeBigInt64LE(value)
  return buffer
}

function unsupportedKey(message: string): FlussError {
  return new FlussError('INVALID_CONFIG_EXCEPTION', message)
}
