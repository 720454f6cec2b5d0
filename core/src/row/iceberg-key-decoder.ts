import { FlussError } from '../errors/index.js'
import { type DataType, type RowType, typeToString } from '../types/data-type.js'
import { asBuffer } from './compacted/compacted-row-reader.js'
import { bytesToUnscaled } from './compacted/decimal-bytes.js'
import { keyPositions } from './key-encoder.js'
import { Decimal, type Row, Timestamp, type Value } from './value.js'

/** Reads one key value from the whole encoded key. */
type IcebergFieldDecoder = (bytes: Buffer) => Value

/**
 * Decodes IcebergKeyEncoder bytes back into the one key value (Fluss's IcebergKeyDecoder, used to
 * insert missing keys of a lookup). Fixed-width keys must be exactly their width and decimals
 * non-empty: CORRUPT_RECORD_EXCEPTION otherwise. Types the encoder refuses are refused here too.
 */
export class IcebergKeyDecoder {
  private readonly decodeField: IcebergFieldDecoder

  constructor(rowType: RowType, keyNames: readonly string[]) {
    if (keyNames.length !== 1) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `Key fields must have exactly one field for iceberg format, but got: [${keyNames.join(', ')}]`,
      )
    }
    const field = rowType.fields[keyPositions(rowType, keyNames)[0]]
    this.decodeField = createIcebergFieldDecoder(field.type)
  }

  static of(rowType: RowType, keyNames: readonly string[]): IcebergKeyDecoder {
    return new IcebergKeyDecoder(rowType, keyNames)
  }

  /** The key values, in key order (one value). */
  decodeKey(bytes: Uint8Array): Row {
    return [this.decodeField(asBuffer(bytes))]
  }
}

function createIcebergFieldDecoder(type: DataType): IcebergFieldDecoder {
  const long = (b: Buffer): bigint => {
    if (b.length !== 8) throw corruptKey(`a ${typeToString(type)} key has 8 bytes, got ${b.length}`)
    return b.readBigInt64LE(0)
  }
  switch (type.type) {
    case 'INTEGER':
    case 'DATE':
      return b => Number(BigInt.asIntN(32, long(b)))
    case 'TIME_WITHOUT_TIME_ZONE':
      return b => Number(long(b) / 1000n)
    case 'BIGINT':
      return long
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return b => Timestamp.fromMicros(long(b))
    case 'FLOAT':
      return b => {
        if (b.length !== 4) throw corruptKey(`a FLOAT key has 4 bytes, got ${b.length}`)
        return b.readFloatLE(0)
      }
    case 'DOUBLE':
      return b => {
        if (b.length !== 8) throw corruptKey(`a DOUBLE key has 8 bytes, got ${b.length}`)
        return b.readDoubleLE(0)
      }
    case 'DECIMAL':
      return b => {
        if (b.length === 0) throw corruptKey('a DECIMAL key has no bytes')
        return new Decimal(bytesToUnscaled(b, 0, b.length), type.scale)
      }
    case 'CHAR':
    case 'STRING':
      return b => b.toString('utf8')
    case 'BINARY':
    case 'BYTES':
      return b => new Uint8Array(b)
    default:
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `Unsupported type for Iceberg key decoder: ${typeToString(type)}`,
      )
  }
}

function corruptKey(message: string): FlussError {
  return new FlussError('CORRUPT_RECORD_EXCEPTION', `Corrupt iceberg key: ${message}`)
}
