import { Decimal, Timestamp, type Value } from '@sluice/core/row'
import { type DataType, DataTypes, notNull, nullable, parseTypeString } from '@sluice/core/types'

/**
 * The canonical text of a value, shared by the TypeScript, Java and Python drivers so that rows
 * can be compared across languages exactly:
 *
 * | type                         | canonical text                                        |
 * |------------------------------|-------------------------------------------------------|
 * | BOOLEAN                      | `true` / `false`                                      |
 * | TINYINT … BIGINT             | decimal integer                                       |
 * | FLOAT / DOUBLE               | `NaN`, else `0x` + IEEE-754 bits (8 / 16 hex digits)  |
 * | DECIMAL(p, s)                | plain decimal with exactly s fraction digits          |
 * | CHAR, STRING                 | the string                                            |
 * | BINARY, BYTES                | lowercase hex                                         |
 * | DATE                         | days since 1970-01-01                                 |
 * | TIME(p)                      | milliseconds of the day                               |
 * | TIMESTAMP(p), TIMESTAMP_LTZ(p)| nanoseconds since the epoch                          |
 * | ARRAY, MAP, ROW              | compact JSON text of an array: the elements; the [key, value] pairs ordered by key text; the fields — each as its own canonical text or null |
 *
 * null stays null.
 */
export type Canonical = string | null

/** A column of a table spec; `type` uses Fluss's type syntax (`DECIMAL(10, 2)`, `TIMESTAMP_LTZ(9)`). */
export interface ColumnSpec {
  readonly name: string
  readonly type: string
  readonly nullable?: boolean
  /** Aggregate function of an aggregation merge-engine table (`sum`, `max`, `listagg`, …). */
  readonly agg?: string
}

/** A table as every driver creates it (written to a JSON file for the Java and Python drivers). */
export interface TableSpec {
  readonly columns: readonly ColumnSpec[]
  readonly primaryKey?: readonly string[]
  /** The auto-increment column (Fluss's `Schema.Builder#enableAutoIncrement`). */
  readonly autoIncrement?: string
  readonly partitionKeys?: readonly string[]
  readonly bucketKeys?: readonly string[]
  readonly buckets: number
  readonly properties?: Readonly<Record<string, string>>
}

/**
 * Parses the type syntax of a ColumnSpec into our DataType model. Nested types take Fluss's syntax
 * (`ARRAY<MAP<STRING, ROW<values ARRAY<FLOAT>, ts TIMESTAMP_LTZ(3)>>>`), as the Java driver's
 * `DataTypes.parse` does.
 */
export function parseType(text: string, isNullable = true): DataType {
  if (text.includes('<')) {
    const t = parseTypeString(text)
    return isNullable ? nullable(t) : notNull(t)
  }
  const m = /^([A-Z_]+)(?:\((\d+)(?:,\s*(\d+))?\))?$/.exec(text.trim().toUpperCase())
  if (!m) throw new Error(`unsupported type syntax: ${text}`)
  const [, root, a, b] = m
  const n = a === undefined ? undefined : Number(a)
  const t = typeOf(root, n, b === undefined ? undefined : Number(b))
  return isNullable ? t : notNull(t)
}

function typeOf(root: string, n: number | undefined, m: number | undefined): DataType {
  switch (root) {
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'STRING':
    case 'BYTES':
    case 'DATE':
      return DataTypes[root]()
    case 'CHAR':
    case 'BINARY':
      return DataTypes[root](n ?? 1)
    case 'DECIMAL':
      return DataTypes.DECIMAL(n ?? 10, m ?? 0)
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return DataTypes[root](n)
    default:
      throw new Error(`unsupported type: ${root}`)
  }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

/** `NaN`, or `0x` + the IEEE-754 bits of `v` as FLOAT (8 hex digits) or DOUBLE (16). */
export function floatText(v: number, double: boolean): string {
  if (Number.isNaN(v)) return 'NaN'
  const view = new DataView(new ArrayBuffer(8))
  if (double) {
    view.setFloat64(0, v)
    return `0x${view.getBigUint64(0).toString(16).padStart(16, '0')}`
  }
  view.setFloat32(0, v)
  return `0x${view.getUint32(0).toString(16).padStart(8, '0')}`
}

function floatFromBits(s: string, double: boolean): number {
  if (s === 'NaN') return Number.NaN
  const view = new DataView(new ArrayBuffer(8))
  if (double) {
    view.setBigUint64(0, BigInt(s))
    return view.getFloat64(0)
  }
  view.setUint32(0, Number(BigInt(s)))
  return view.getFloat32(0)
}

/** Plain decimal text of `unscaled × 10^-scale` with exactly `scale` fraction digits. */
export function decimalText(unscaled: bigint, scale: number): string {
  return new Decimal(unscaled, scale).toString()
}

function rescale(d: Decimal, scale: number): string {
  if (d.scale === scale) return d.toString()
  if (d.scale < scale) return decimalText(d.unscaled * 10n ** BigInt(scale - d.scale), scale)
  return `${d.toString()} (scale ${d.scale}, expected ${scale})`
}

/** The canonical text of an SDK value of type `t`. */
export function toCanonical(v: Value, t: DataType): Canonical {
  if (v === null || v === undefined) return null
  switch (t.type) {
    case 'BOOLEAN':
      return v ? 'true' : 'false'
    case 'FLOAT':
    case 'DOUBLE':
      return floatText(v as number, t.type === 'DOUBLE')
    case 'DECIMAL':
      return rescale(v as Decimal, t.scale)
    case 'BINARY':
    case 'BYTES':
      return hex(v as Uint8Array)
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return (v as Timestamp).toNanos().toString()
    case 'CHAR':
    case 'STRING':
      return v as string
    case 'ARRAY':
    case 'MAP':
    case 'ROW':
      return JSON.stringify(nestedCanonical(v, t))
    default:
      return String(v)
  }
}

/**
 * Map entries ordered by the canonical text of their keys (UTF-16 code units, as Java's
 * String#compareTo): a MAP has no order, and the clients keep different ones (the Java client's
 * GenericMap is a hash map).
 */
function byKeyText(pairs: [Canonical, Canonical][]): [Canonical, Canonical][] {
  return pairs.sort(([a], [b]) => ((a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0))
}

/** The JSON array of a nested value: canonical texts of its elements, [key, value] pairs or fields. */
function nestedCanonical(v: Value, t: DataType): unknown[] {
  switch (t.type) {
    case 'ARRAY':
      return (v as Value[]).map(e => toCanonical(e, t.elementType))
    case 'MAP':
      return byKeyText(
        [...(v as Map<Value, Value>)].map(([k, e]) => [
          toCanonical(k, t.keyType),
          toCanonical(e, t.valueType),
        ]),
      )
    case 'ROW':
      return t.fields.map((f, i) => toCanonical((v as Value[])[i], f.type))
    default:
      throw new Error(`not a nested type: ${t.type}`)
  }
}

function nestedValue(json: unknown, t: DataType): Value {
  switch (t.type) {
    case 'ARRAY':
      return (json as Canonical[]).map(e => fromCanonical(e, t.elementType))
    case 'MAP':
      return new Map(
        (json as [Canonical, Canonical][]).map(([k, e]) => [
          fromCanonical(k, t.keyType),
          fromCanonical(e, t.valueType),
        ]),
      )
    case 'ROW':
      return t.fields.map((f, i) => fromCanonical((json as Canonical[])[i] ?? null, f.type))
    default:
      throw new Error(`not a nested type: ${t.type}`)
  }
}

/** The canonical text `s` of type `t` with the nanoseconds of timestamps cut to microseconds. */
export function microsecondText(s: Canonical, t: DataType): Canonical {
  if (s === null) return null
  switch (t.type) {
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE': {
      if (t.precision <= 6) return s
      const nanos = BigInt(s)
      return (nanos - (((nanos % 1000n) + 1000n) % 1000n)).toString()
    }
    case 'ARRAY':
      return JSON.stringify((JSON.parse(s) as Canonical[]).map(e => microsecondText(e, t.elementType)))
    case 'MAP':
      return JSON.stringify(
        byKeyText(
          (JSON.parse(s) as [Canonical, Canonical][]).map(([k, v]) => [
            microsecondText(k, t.keyType),
            microsecondText(v, t.valueType),
          ]),
        ),
      )
    case 'ROW':
      return JSON.stringify(
        (JSON.parse(s) as Canonical[]).map((v, i) => microsecondText(v, t.fields[i].type)),
      )
    default:
      return s
  }
}

/** The SDK value of type `t` for a canonical text (the inverse of toCanonical). */
export function fromCanonical(s: Canonical, t: DataType): Value {
  if (s === null) return null
  switch (t.type) {
    case 'BOOLEAN':
      return s === 'true'
    case 'BIGINT':
      return BigInt(s)
    case 'FLOAT':
    case 'DOUBLE':
      return floatFromBits(s, t.type === 'DOUBLE')
    case 'DECIMAL':
      return Decimal.parse(s, t.scale)
    case 'BINARY':
    case 'BYTES':
      return new Uint8Array(Buffer.from(s, 'hex'))
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return Timestamp.fromNanos(BigInt(s))
    case 'CHAR':
    case 'STRING':
      return s
    case 'ARRAY':
    case 'MAP':
    case 'ROW':
      return nestedValue(JSON.parse(s), t)
    default:
      return Number(s)
  }
}
