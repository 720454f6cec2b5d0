/**
 * Fluss data types. The `type` tag is Fluss's `DataTypeRoot` name, so a type is
 * also its own JSON form (see `types/json.ts`): `{"type":"DECIMAL","precision":10,"scale":2}`.
 */

export type PrimitiveRoot =
  | 'BOOLEAN'
  | 'TINYINT'
  | 'SMALLINT'
  | 'INTEGER'
  | 'BIGINT'
  | 'FLOAT'
  | 'DOUBLE'
  | 'STRING'
  | 'BYTES'
  | 'DATE'

export type TypeRoot =
  | PrimitiveRoot
  | 'CHAR'
  | 'BINARY'
  | 'DECIMAL'
  | 'TIME_WITHOUT_TIME_ZONE'
  | 'TIMESTAMP_WITHOUT_TIME_ZONE'
  | 'TIMESTAMP_WITH_LOCAL_TIME_ZONE'
  | 'ARRAY'
  | 'MAP'
  | 'ROW'

interface Base {
  readonly nullable: boolean
}

export interface PrimitiveType extends Base {
  readonly type: PrimitiveRoot
}
export interface CharType extends Base {
  readonly type: 'CHAR'
  readonly length: number
}
export interface BinaryType extends Base {
  readonly type: 'BINARY'
  readonly length: number
}
export interface DecimalType extends Base {
  readonly type: 'DECIMAL'
  readonly precision: number
  readonly scale: number
}
export interface TimeType extends Base {
  readonly type: 'TIME_WITHOUT_TIME_ZONE'
  readonly precision: number
}
export interface TimestampType extends Base {
  readonly type: 'TIMESTAMP_WITHOUT_TIME_ZONE'
  readonly precision: number
}
export interface LocalZonedTimestampType extends Base {
  readonly type: 'TIMESTAMP_WITH_LOCAL_TIME_ZONE'
  readonly precision: number
}
export interface ArrayType extends Base {
  readonly type: 'ARRAY'
  readonly elementType: DataType
}
export interface MapType extends Base {
  readonly type: 'MAP'
  readonly keyType: DataType
  readonly valueType: DataType
}
export interface RowField {
  readonly name: string
  readonly type: DataType
  readonly description?: string
  readonly fieldId: number
}
export interface RowType extends Base {
  readonly type: 'ROW'
  readonly fields: readonly RowField[]
}

export type DataType =
  | PrimitiveType
  | CharType
  | BinaryType
  | DecimalType
  | TimeType
  | TimestampType
  | LocalZonedTimestampType
  | ArrayType
  | MapType
  | RowType

export const MAX_DECIMAL_PRECISION = 38
export const MAX_TIME_PRECISION = 9
export const MAX_TIMESTAMP_PRECISION = 9
export const MAX_LENGTH = 2_147_483_647

/** Constructors in the style of Fluss's `DataTypes`. Every type is nullable unless `.notNull()`-ed with `notNull()`. */
export const DataTypes = {
  BOOLEAN: (): PrimitiveType => ({ type: 'BOOLEAN', nullable: true }),
  TINYINT: (): PrimitiveType => ({ type: 'TINYINT', nullable: true }),
  SMALLINT: (): PrimitiveType => ({ type: 'SMALLINT', nullable: true }),
  INT: (): PrimitiveType => ({ type: 'INTEGER', nullable: true }),
  BIGINT: (): PrimitiveType => ({ type: 'BIGINT', nullable: true }),
  FLOAT: (): PrimitiveType => ({ type: 'FLOAT', nullable: true }),
  DOUBLE: (): PrimitiveType => ({ type: 'DOUBLE', nullable: true }),
  STRING: (): PrimitiveType => ({ type: 'STRING', nullable: true }),
  BYTES: (): PrimitiveType => ({ type: 'BYTES', nullable: true }),
  DATE: (): PrimitiveType => ({ type: 'DATE', nullable: true }),
  CHAR: (length: number): CharType => ({ type: 'CHAR', length, nullable: true }),
  BINARY: (length: number): BinaryType => ({ type: 'BINARY', length, nullable: true }),
  DECIMAL: (precision: number, scale: number): DecimalType => ({
    type: 'DECIMAL',
    precision,
    scale,
    nullable: true,
  }),
  TIME: (precision = 0): TimeType => ({ type: 'TIME_WITHOUT_TIME_ZONE', precision, nullable: true }),
  TIMESTAMP: (precision = 6): TimestampType => ({
    type: 'TIMESTAMP_WITHOUT_TIME_ZONE',
    precision,
    nullable: true,
  }),
  TIMESTAMP_LTZ: (precision = 6): LocalZonedTimestampType => ({
    type: 'TIMESTAMP_WITH_LOCAL_TIME_ZONE',
    precision,
    nullable: true,
  }),
  ARRAY: (elementType: DataType): ArrayType => ({ type: 'ARRAY', elementType, nullable: true }),
  MAP: (keyType: DataType, valueType: DataType): MapType => ({
    type: 'MAP',
    keyType: notNull(keyType),
    valueType,
    nullable: true,
  }),
  ROW: (fields: readonly RowField[]): RowType => ({ type: 'ROW', fields, nullable: true }),
} as const

export function notNull<T extends DataType>(t: T): T {
  return { ...t, nullable: false }
}

export function nullable<T extends DataType>(t: T): T {
  return { ...t, nullable: true }
}

export function withNullability<T extends DataType>(t: T, isNullable: boolean): T {
  return t.nullable === isNullable ? t : { ...t, nullable: isNullable }
}

export function isNested(t: DataType): t is ArrayType | MapType | RowType {
  return t.type === 'ARRAY' || t.type === 'MAP' || t.type === 'ROW'
}

/** Fluss's SQL-ish summary string, used in error messages: `DECIMAL(10, 2) NOT NULL`. */
export function typeToString(t: DataType): string {
  const suffix = t.nullable ? '' : ' NOT NULL'
  switch (t.type) {
    case 'CHAR':
    case 'BINARY':
      return `${t.type}(${t.length})${suffix}`
    case 'DECIMAL':
      return `DECIMAL(${t.precision}, ${t.scale})${suffix}`
    case 'TIME_WITHOUT_TIME_ZONE':
      return `TIME(${t.precision})${suffix}`
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return `TIMESTAMP(${t.precision})${suffix}`
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return `TIMESTAMP_LTZ(${t.precision})${suffix}`
    case 'ARRAY':
      return `ARRAY<${typeToString(t.elementType)}>${suffix}`
    case 'MAP':
      return `MAP<${typeToString(t.keyType)}, ${typeToString(t.valueType)}>${suffix}`
    case 'ROW':
      return `ROW<${t.fields.map(f => `${f.name} ${typeToString(f.type)}`).join(', ')}>${suffix}`
    case 'INTEGER':
      return `INT${suffix}`
    default:
      return `${t.type}${suffix}`
  }
}

/** Structural equality, ignoring descriptions. */
export function typeEquals(a: DataType, b: DataType, ignoreNullability = false): boolean {
  if (a.type !== b.type) return false
  if (!ignoreNullability && a.nullable !== b.nullable) return false
  switch (a.type) {
    case 'CHAR':
    case 'BINARY':
      return a.length === (b as CharType | BinaryType).length
    case 'DECIMAL':
      return a.precision === (b as DecimalType).precision && a.scale === (b as DecimalType).scale
    case 'TIME_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return a.precision === (b as TimeType).precision
    case 'ARRAY':
      return typeEquals(a.elementType, (b as ArrayType).elementType, ignoreNullability)
    case 'MAP':
      return (
        typeEquals(a.keyType, (b as MapType).keyType, ignoreNullability) &&
        typeEquals(a.valueType, (b as MapType).valueType, ignoreNullability)
      )
    case 'ROW': {
      const bf = (b as RowType).fields
      return (
        a.fields.length === bf.length &&
        a.fields.every((f, i) => f.name === bf[i].name && typeEquals(f.type, bf[i].type, ignoreNullability))
      )
    }
    default:
      return true
  }
}

/**
 * Why a type's parameters are outside Fluss's bounds (lengths, precisions, scales, ROW field
 * names), searching nested types too; undefined when the type is valid.
 */
export function dataTypeProblem(t: DataType): string | undefined {
  const bad = (n: number, min: number, max: number) => !Number.isInteger(n) || n < min || n > max
  switch (t.type) {
    case 'CHAR':
      return bad(t.length, 1, MAX_LENGTH)
        ? `Character string length must be between 1 and ${MAX_LENGTH} (both inclusive).`
        : undefined
    case 'BINARY':
      return bad(t.length, 1, MAX_LENGTH)
        ? `Binary string length must be between 1 and ${MAX_LENGTH} (both inclusive).`
        : undefined
    case 'DECIMAL':
      if (bad(t.precision, 1, MAX_DECIMAL_PRECISION))
        return `Decimal precision must be between 1 and ${MAX_DECIMAL_PRECISION} (both inclusive).`
      return bad(t.scale, 0, t.precision)
        ? `Decimal scale must be between 0 and the precision ${t.precision} (both inclusive).`
        : undefined
    case 'TIME_WITHOUT_TIME_ZONE':
      return bad(t.precision, 0, MAX_TIME_PRECISION)
        ? `Time precision must be between 0 and ${MAX_TIME_PRECISION} (both inclusive).`
        : undefined
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return bad(t.precision, 0, MAX_TIMESTAMP_PRECISION)
        ? `Timestamp precision must be between 0 and ${MAX_TIMESTAMP_PRECISION} (both inclusive).`
        : undefined
    case 'ARRAY':
      return dataTypeProblem(t.elementType)
    case 'MAP':
      return dataTypeProblem(t.keyType) ?? dataTypeProblem(t.valueType)
    case 'ROW':
      return rowTypeProblem(t)
    default:
      return undefined
  }
}

function rowTypeProblem(t: RowType): string | undefined {
  const names = t.fields.map(f => f.name)
  if (names.some(n => n.trim() === ''))
    return 'Field names must contain at least one non-whitespace character.'
  const seen = new Set<string>()
  const repeated = new Set<string>()
  for (const n of names) (seen.has(n) ? repeated : seen).add(n)
  const duplicates = [...repeated]
  if (duplicates.length > 0) return `Field names must be unique. Found duplicates: [${duplicates.join(', ')}]`
  for (const f of t.fields) {
    const problem = dataTypeProblem(f.type)
    if (problem !== undefined) return problem
  }
  return undefined
}
