import { FlussError } from '../errors/index.js'
import {
  type ArrayType,
  type DataType,
  DataTypes,
  type MapType,
  notNull,
  type RowType,
  typeToString,
} from '../types/data-type.js'
import { type ArrowTimeUnit, type ArrowType, ColumnKind, TIME_UNITS } from './arrow-type.js'

/**
 * How a Fluss column is laid out in an Arrow IPC batch (Fluss `ArrowUtils.toArrowField`). A batch
 * lists the field nodes and buffers of every column depth-first: a column's own node and buffers,
 * then its children's. Nested columns:
 *
 * | Fluss type | Arrow type          | own buffers         | children                              |
 * |------------|---------------------|---------------------|---------------------------------------|
 * | ARRAY<T>   | List                | validity, offsets   | `element` T                           |
 * | MAP<K, V>  | Map(keysSorted=false)| validity, offsets  | `entries` Struct NOT NULL of `key` K NOT NULL, `value` V |
 * | ROW<...>   | Struct              | validity            | one per ROW field, by field name      |
 */
export interface ColumnLayout {
  readonly kind: number
  /** Bytes per value in the data buffer; 0 for bit-packed booleans, variable-length and nested columns. */
  readonly byteWidth: number
  /**
   * Buffers of this field node alone: validity + data (2), validity + offsets + data (3), validity
   * + offsets of a List or Map (2), validity of a Struct (1).
   */
  readonly bufferCount: 1 | 2 | 3
  readonly arrowType: ArrowType
  /** The child fields of List, Map and Struct columns; empty for flat columns. */
  readonly children: readonly ChildField[]
  /** Field nodes of the column with all its descendants. */
  readonly nodeCount: number
  /** Buffers of the column with all its descendants. */
  readonly totalBufferCount: number
}

/** A child field of a nested column, named as Fluss names it in the Arrow schema. */
export interface ChildField {
  readonly name: string
  readonly type: DataType
  readonly layout: ColumnLayout
}

/** The Arrow field names of list elements and map entries (Arrow Java's `ListVector`/`MapVector`). */
export const LIST_ELEMENT_NAME = 'element'
export const MAP_ENTRIES_NAME = 'entries'
export const MAP_KEY_NAME = 'key'
export const MAP_VALUE_NAME = 'value'

/** The Arrow layout of a Fluss column type (Fluss `ArrowUtils.toArrowType` / `toArrowField`). */
export function columnLayout(t: DataType): ColumnLayout {
  return flatLayout(t)
}

const layoutsByRowType = new WeakMap<RowType, readonly ColumnLayout[]>()

/** Layouts of every column of a row type (computed once per row type object). */
export function rowLayouts(rowType: RowType): readonly ColumnLayout[] {
  let layouts = layoutsByRowType.get(rowType)
  if (layouts === undefined) {
    layouts = rowType.fields.map(f => columnLayout(f.type))
    layoutsByRowType.set(rowType, layouts)
  }
  return layouts
}

/**
 * Field nodes of a RecordBatch of `rowType`: one per column plus one per nested child, so more than
 * the column count when a column is ARRAY, MAP or ROW (compare `RecordBatchInfo.fieldCount` with this).
 */
export function arrowNodeCount(rowType: RowType): number {
  let n = 0
  for (const l of rowLayouts(rowType)) n += l.nodeCount
  return n
}

/** The ROW type of a MAP's `entries` struct: `key` (never null) and `value`. */
export function mapEntriesType(t: MapType): RowType {
  return notNull(
    DataTypes.ROW([
      { name: MAP_KEY_NAME, type: notNull(t.keyType), fieldId: -1 },
      { name: MAP_VALUE_NAME, type: t.valueType, fieldId: -1 },
    ]),
  )
}

function unitOf(precision: number): ArrowTimeUnit {
  if (precision === 0) return 'SECOND'
  if (precision <= 3) return 'MILLISECOND'
  if (precision <= 6) return 'MICROSECOND'
  return 'NANOSECOND'
}

function layout(kind: number, byteWidth: number, arrowType: ArrowType, bufferCount: 2 | 3 = 2): ColumnLayout {
  return {
    kind,
    byteWidth,
    bufferCount,
    arrowType,
    children: [],
    nodeCount: 1,
    totalBufferCount: bufferCount,
  }
}

function checkPrecision(t: DataType, precision: number, min: number, max: number): void {
  if (!Number.isInteger(precision) || precision < min || precision > max) {
    throw new FlussError('INVALID_REQUEST', `${typeToString(t)} has a precision outside ${min}..${max}`)
  }
}

function child(name: string, type: DataType): ChildField {
  return { name, type, layout: columnLayout(type) }
}

function nestedLayout(t: ArrayType | MapType | RowType): ColumnLayout {
  let children: ChildField[]
  let kind: number
  let arrowType: ArrowType
  let bufferCount: 1 | 2
  switch (t.type) {
    case 'ARRAY':
      children = [child(LIST_ELEMENT_NAME, t.elementType)]
      kind = ColumnKind.LIST
      arrowType = { id: 'List' }
      bufferCount = 2
      break
    case 'MAP':
      children = [child(MAP_ENTRIES_NAME, mapEntriesType(t))]
      kind = ColumnKind.MAP
      arrowType = { id: 'Map', keysSorted: false }
      bufferCount = 2
      break
    case 'ROW':
      children = t.fields.map(f => child(f.name, f.type))
      kind = ColumnKind.STRUCT
      arrowType = { id: 'Struct' }
      bufferCount = 1
      break
  }
  let nodeCount = 1
  let totalBufferCount: number = bufferCount
  for (const c of children) {
    nodeCount += c.layout.nodeCount
    totalBufferCount += c.layout.totalBufferCount
  }
  return { kind, byteWidth: 0, bufferCount, arrowType, children, nodeCount, totalBufferCount }
}

function flatLayout(t: DataType): ColumnLayout {
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
    case 'ARRAY':
    case 'MAP':
    case 'ROW':
      return nestedLayout(t)
  }
}
