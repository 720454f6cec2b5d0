import { type DataType, DataTypes, withNullability } from '../types/data-type.js'

/**
 * Arrow types as Fluss uses them (`ArrowUtils.toArrowType`), plus the type ids of Schema.fbs.
 * Nested types map List ↔ ARRAY, Map ↔ MAP, Struct ↔ ROW; their children are schema fields.
 */
export type ArrowTimeUnit = 'SECOND' | 'MILLISECOND' | 'MICROSECOND' | 'NANOSECOND'

export type ArrowType =
  | { readonly id: 'Bool' }
  | { readonly id: 'Int'; readonly bitWidth: 8 | 16 | 32 | 64; readonly signed: boolean }
  | { readonly id: 'FloatingPoint'; readonly precision: 'HALF' | 'SINGLE' | 'DOUBLE' }
  | { readonly id: 'Utf8' }
  | { readonly id: 'Binary' }
  | { readonly id: 'FixedSizeBinary'; readonly byteWidth: number }
  | { readonly id: 'Decimal'; readonly precision: number; readonly scale: number; readonly bitWidth: number }
  | { readonly id: 'Date'; readonly unit: 'DAY' | 'MILLISECOND' }
  | { readonly id: 'Time'; readonly unit: ArrowTimeUnit; readonly bitWidth: 32 | 64 }
  | { readonly id: 'Timestamp'; readonly unit: ArrowTimeUnit; readonly timezone: string | null }
  | { readonly id: 'List' }
  | { readonly id: 'Struct' }
  | { readonly id: 'Map'; readonly keysSorted: boolean }
  | { readonly id: 'Unsupported'; readonly typeId: number }

/** The `Type` union tags of Schema.fbs. */
export const ARROW_TYPE_IDS = {
  Int: 2,
  FloatingPoint: 3,
  Binary: 4,
  Utf8: 5,
  Bool: 6,
  Decimal: 7,
  Date: 8,
  Time: 9,
  Timestamp: 10,
  List: 12,
  Struct: 13,
  FixedSizeBinary: 15,
  Map: 17,
} as const

export const TIME_UNITS: readonly ArrowTimeUnit[] = ['SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND']

/** How a column is laid out and which value conversion applies; numbered for fast switches. */
export const ColumnKind = {
  BOOL: 0,
  INT8: 1,
  INT16: 2,
  INT32: 3,
  INT64: 4,
  FLOAT32: 5,
  FLOAT64: 6,
  UTF8: 7,
  BINARY: 8,
  FIXED_BINARY: 9,
  DECIMAL128: 10,
  DATE_DAY: 11,
  TIME_SECOND: 12,
  TIME_MILLI: 13,
  TIME_MICRO: 14,
  TIME_NANO: 15,
  TIMESTAMP_SECOND: 16,
  TIMESTAMP_MILLI: 17,
  TIMESTAMP_MICRO: 18,
  TIMESTAMP_NANO: 19,
  LIST: 20,
  MAP: 21,
  STRUCT: 22,
} as const

const PRECISION_OF_UNIT: Record<ArrowTimeUnit, number> = {
  SECOND: 0,
  MILLISECOND: 3,
  MICROSECOND: 6,
  NANOSECOND: 9,
}

/**
 * The Fluss type an Arrow type maps back to, or null when there is none. A Timestamp with a time
 * zone maps to TIMESTAMP_LTZ (Fluss itself writes both without a zone).
 */
export function toFlussType(a: ArrowType, nullable: boolean): DataType | null {
  const t = flussTypeOf(a)
  return t === null ? null : withNullability(t, nullable)
}

function flussTypeOf(a: ArrowType): DataType | null {
  switch (a.id) {
    case 'Bool':
      return DataTypes.BOOLEAN()
    case 'Int':
      if (!a.signed) return null
      return [DataTypes.TINYINT, DataTypes.SMALLINT, DataTypes.INT, DataTypes.BIGINT][
        Math.log2(a.bitWidth) - 3
      ]()
    case 'FloatingPoint':
      return a.precision === 'SINGLE'
        ? DataTypes.FLOAT()
        : a.precision === 'DOUBLE'
          ? DataTypes.DOUBLE()
          : null
    case 'Utf8':
      return DataTypes.STRING()
    case 'Binary':
      return DataTypes.BYTES()
    case 'FixedSizeBinary':
      return a.byteWidth > 0 ? DataTypes.BINARY(a.byteWidth) : null
    case 'Decimal':
      return a.bitWidth === 128 &&
        a.precision >= 1 &&
        a.precision <= 38 &&
        a.scale >= 0 &&
        a.scale <= a.precision
        ? DataTypes.DECIMAL(a.precision, a.scale)
        : null
    case 'Date':
      return a.unit === 'DAY' ? DataTypes.DATE() : null
    case 'Time':
      return DataTypes.TIME(PRECISION_OF_UNIT[a.unit])
    case 'Timestamp':
      return a.timezone === null
        ? DataTypes.TIMESTAMP(PRECISION_OF_UNIT[a.unit])
        : DataTypes.TIMESTAMP_LTZ(PRECISION_OF_UNIT[a.unit])
    default:
      return null
  }
}
