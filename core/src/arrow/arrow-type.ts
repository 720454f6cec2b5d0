import { FlussError } from '../errors/index.js'
import { type DataType, DataTypes, type RowType, typeToString, withNullability } from '../types/data-type.js'

/**
 * Arrow types as Fluss uses them (`ArrowUtils.toArrowType`), plus the type ids of Schema.fbs.
 * Only the flat types have a Fluss mapping so far; nested types (List, Map, Struct) are rejected.
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
  FixedSizeBinary: 15,
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
} as const

export interface ColumnLayout {
  readonly kind: number
  /** Bytes per value in the data buffer; 0 for bit-packed booleans and variable-length columns. */
  readonly byteWidth: number
  /** Buffers of the column in an IPC body: validity + data, or validity + offsets + data. */
  readonly bufferCount: 2 | 3
  readonly arrowType: ArrowType
}

function unitOf(precision: number): ArrowTimeUnit {
  if (precision === 0) return 'SECOND'
  if (precision <= 3) return 'MILLISECOND'
  if (precision <= 6) return 'MICROSECOND'
  return 'NANOSECOND'
}

function layout(kind: number, byteWidth: number, arrowType: ArrowType, bufferCount: 2 | 3 = 2): ColumnLayout {
  return { kind, byteWidth, bufferCount, arrowType }
}

function checkPrecision(t: DataType, precision: number, min: number, max: number): void {
  if (!Number.isInteger(precision) || precision < min || precision > max) {
    throw new FlussError('INVALID_REQUEST', `${typeToString(t)} has a precision outside ${min}..${max}`)
  }
}

/** The Arrow layout of a Fluss column type (Fluss `ArrowUtils.toArrowType`). */
export function columnLayout(t: DataType): ColumnLayout {
  const K = ColumnKind
  switch (t.type) {
    case 'BOOLEAN':
      return layout(K.BOOL, 0, { id: 'Bool' })
    case 'TINYINT':
      return layout(K.INT8, 1, { id: 'Int', bitWidth: 8, signed: true })
    case 'SMALLINT':
      return layout(K.INT16, 2, { id: 'Int', bitWidth: 16, signed: true })
    case 'INTEGER':
      return layout(K.INT32, 4, { id: 'Int', bitWidth: 32, signed: true })
    case 'BIGINT':
      return layout(K.INT64, 8, { id: 'Int', bitWidth: 64, signed: true })
    case 'FLOAT':
      return layout(K.FLOAT32, 4, { id: 'FloatingPoint', precision: 'SINGLE' })
    case 'DOUBLE':
      return layout(K.FLOAT64, 8, { id: 'FloatingPoint', precision: 'DOUBLE' })
    case 'CHAR':
    case 'STRING':
      return layout(K.UTF8, 0, { id: 'Utf8' }, 3)
    case 'BYTES':
      return layout(K.BINARY, 0, { id: 'Binary' }, 3)
    case 'BINARY':
      checkPrecision(t, t.length, 1, 2147483647)
      return layout(K.FIXED_BINARY, t.length, { id: 'FixedSizeBinary', byteWidth: t.length })
    case 'DECIMAL':
      checkPrecision(t, t.precision, 1, 38)
      if (!Number.isInteger(t.scale) || t.scale < 0 || t.scale > t.precision) {
        throw new FlussError('INVALID_REQUEST', `${typeToString(t)} has a scale outside 0..precision`)
      }
      return layout(K.DECIMAL128, 16, {
        id: 'Decimal',
        precision: t.precision,
        scale: t.scale,
        bitWidth: 128,
      })
    case 'DATE':
      return layout(K.DATE_DAY, 4, { id: 'Date', unit: 'DAY' })
    case 'TIME_WITHOUT_TIME_ZONE': {
      checkPrecision(t, t.precision, 0, 9)
      const unit = unitOf(t.precision)
      const wide = unit === 'MICROSECOND' || unit === 'NANOSECOND'
      return layout(K.TIME_SECOND + TIME_UNITS.indexOf(unit), wide ? 8 : 4, {
        id: 'Time',
        unit,
        bitWidth: wide ? 64 : 32,
      })
    }
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE': {
      checkPrecision(t, t.precision, 0, 9)
      const unit = unitOf(t.precision)
      return layout(K.TIMESTAMP_SECOND + TIME_UNITS.indexOf(unit), 8, {
        id: 'Timestamp',
        unit,
        timezone: null,
      })
    }
    default:
      throw new FlussError(
        'INVALID_REQUEST',
        `column type ${typeToString(t)} is not supported by the Arrow log format yet (nested types are not implemented)`,
      )
  }
}

/** Layouts of every column of a row type. */
export function rowLayouts(rowType: RowType): ColumnLayout[] {
  return rowType.fields.map(f => columnLayout(f.type))
}

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
