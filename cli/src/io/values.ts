import { Decimal, Timestamp, type Value } from '@sluice/core/row'
import { type DataType, type MapType, parseTypeString, type RowType } from '@sluice/core/types'

/**
 * Values as the CLI reads and writes them: CSV cells and `key=value` arguments as text, JSON lines
 * and Parquet cells as JSON-like values, and rows printed as JSON. BIGINT is a JSON number or a
 * decimal string; DECIMAL a number or string; DATE 'YYYY-MM-DD'; TIME 'HH:MM:SS[.fff]';
 * TIMESTAMP an ISO date-time (without zone: taken as UTC) or epoch milliseconds; BYTES base64;
 * ARRAY a JSON array; MAP a JSON object (CHAR/STRING keys) or an array of `{"key", "value"}`
 * entries; ROW a JSON object by field name (or an array in field order). Text cells hold nested
 * values as JSON text.
 */
export class ValueError extends Error {}

const MILLIS_PER_DAY = 86_400_000

function fail(type: DataType, got: unknown): never {
  throw new ValueError(
    `expected ${type.type}, got ${JSON.stringify(typeof got === 'bigint' ? String(got) : got)}`,
  )
}

/** A text cell (CSV, `key=value`) as a value of `type`; the empty cell is null. */
export function textToValue(type: DataType, text: string): Value {
  if (text === '') return null
  switch (type.type) {
    case 'STRING':
    case 'CHAR':
      return text
    case 'BOOLEAN':
      if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true'
      return fail(type, text)
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
      return jsonToValue(type, /^-?\d+$/.test(text) ? Number(text) : text)
    case 'ARRAY':
    case 'MAP':
    case 'ROW':
      return jsonToValue(type, nestedJson(type, text))
    default:
      return jsonToValue(type, text)
  }
}

/** The JSON text of a nested value in a text cell. */
function nestedJson(type: DataType, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new ValueError(`expected ${type.type} as JSON, got ${JSON.stringify(text)}`)
  }
}

/** A JSON value (or a Parquet cell) as a value of `type`; null is null. */
export function jsonToValue(type: DataType, v: unknown): Value {
  if (v === null || v === undefined) return null
  switch (type.type) {
    case 'BOOLEAN':
      return typeof v === 'boolean' ? v : fail(type, v)
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
      if (typeof v === 'bigint') return Number(v)
      return typeof v === 'number' && Number.isInteger(v) ? v : fail(type, v)
    case 'BIGINT':
      if (typeof v === 'bigint') return v
      if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v)
      return typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : fail(type, v)
    case 'FLOAT':
    case 'DOUBLE':
      if (typeof v === 'number') return v
      return typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : fail(type, v)
    case 'DECIMAL':
      if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)))
        return Decimal.parse(String(v), type.scale)
      return fail(type, v)
    case 'STRING':
    case 'CHAR':
      return typeof v === 'string' ? v : fail(type, v)
    case 'BYTES':
    case 'BINARY':
      if (v instanceof Uint8Array) return v
      return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : fail(type, v)
    case 'DATE':
      return dateValue(type, v)
    case 'TIME_WITHOUT_TIME_ZONE':
      return timeValue(type, v)
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return timestampValue(type, v)
    case 'ARRAY':
      return Array.isArray(v) ? v.map(e => jsonToValue(type.elementType, e)) : fail(type, v)
    case 'MAP':
      return mapValue(type, v)
    case 'ROW':
      return rowValue(type, v)
    default:
      throw new ValueError(`${(type as DataType).type} columns are not supported by the CLI`)
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array)
const stringKeyed = (t: DataType) => t.type === 'STRING' || t.type === 'CHAR'

/**
 * A MAP from JSON: an object when the keys are CHAR/STRING, else (or also) an array of
 * `{"key": k, "value": v}` entries or `[k, v]` pairs. Keys are never null nor repeated.
 */
function mapValue(type: MapType, v: unknown): Map<Value, Value> {
  let entries: [unknown, unknown][]
  if (Array.isArray(v)) {
    entries = v.map(e => {
      if (Array.isArray(e) && e.length === 2) return [e[0], e[1]]
      if (isPlainObject(e) && 'key' in e) return [e.key, e.value]
      throw new ValueError(
        `expected a MAP entry {"key": …, "value": …} or [key, value], got ${JSON.stringify(e)}`,
      )
    })
  } else if (isPlainObject(v) && stringKeyed(type.keyType)) {
    entries = Object.entries(v)
  } else {
    return fail(type, v)
  }
  const out = new Map<Value, Value>()
  const seen = new Set<string>()
  for (const [k, e] of entries) {
    const key = jsonToValue(type.keyType, k)
    if (key === null) throw new ValueError('MAP keys cannot be null')
    const text = JSON.stringify(valueToJson(type.keyType, key))
    if (seen.has(text)) throw new ValueError(`MAP key ${text} appears twice`)
    seen.add(text)
    out.set(key, jsonToValue(type.valueType, e))
  }
  return out
}

/** A ROW from JSON: an object by field name (fields left out are null) or an array in field order. */
function rowValue(type: RowType, v: unknown): Value[] {
  if (Array.isArray(v)) {
    if (v.length !== type.fields.length)
      throw new ValueError(`expected ${type.fields.length} ROW fields, got ${v.length}`)
    return type.fields.map((f, i) => jsonToValue(f.type, v[i]))
  }
  if (!isPlainObject(v)) return fail(type, v)
  const unknown = Object.keys(v).filter(k => !type.fields.some(f => f.name === k))
  if (unknown.length > 0) throw new ValueError(`unknown ROW field(s): ${unknown.join(', ')}`)
  return type.fields.map(f => jsonToValue(f.type, v[f.name]))
}

function dateValue(type: DataType, v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v
  if (v instanceof Date) return Math.floor(v.getTime() / MILLIS_PER_DAY)
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const ms = Date.parse(`${v}T00:00:00Z`)
    if (!Number.isNaN(ms)) return ms / MILLIS_PER_DAY
  }
  return fail(type, v)
}

function timeValue(type: DataType, v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v
  const m = typeof v === 'string' ? v.match(/^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?$/) : null
  if (!m) return fail(type, v)
  const [, h, min, s = '0', frac = '0'] = m
  return ((Number(h) * 60 + Number(min)) * 60 + Number(s)) * 1000 + Number(frac.padEnd(3, '0'))
}

function timestampValue(type: DataType, v: unknown): Timestamp {
  if (v instanceof Timestamp) return v
  if (v instanceof Date) return new Timestamp(v.getTime(), 0)
  if (typeof v === 'number' && Number.isFinite(v)) return new Timestamp(Math.trunc(v), 0)
  if (typeof v === 'bigint') return new Timestamp(Number(v), 0)
  if (typeof v === 'string') {
    const m = v.match(
      /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/,
    )
    if (m) {
      const [, date, clock, frac = '', zone = 'Z'] = m
      const millis = Date.parse(`${date}T${clock}${zone}`)
      if (!Number.isNaN(millis)) {
        const digits = frac.padEnd(9, '0')
        return new Timestamp(millis + Number(digits.slice(0, 3)), Number(digits.slice(3, 9)))
      }
    }
  }
  return fail(type, v)
}

/** A value as JSON for output (BIGINT as a number when safe, else a string). */
export function valueToJson(type: DataType, v: Value): unknown {
  if (v === null) return null
  switch (type.type) {
    case 'BIGINT': {
      const n = v as bigint
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(n)
        : String(n)
    }
    case 'DECIMAL':
      return (v as Decimal).toString()
    case 'BYTES':
    case 'BINARY':
      return Buffer.from(v as Uint8Array).toString('base64')
    case 'DATE':
      return new Date((v as number) * MILLIS_PER_DAY).toISOString().slice(0, 10)
    case 'TIME_WITHOUT_TIME_ZONE':
      return new Date(v as number).toISOString().slice(11, 23)
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE': {
      const t = v as Timestamp
      const iso = new Date(t.millis).toISOString()
      return type.type === 'TIMESTAMP_WITHOUT_TIME_ZONE' ? iso.slice(0, -1) : iso
    }
    case 'ARRAY':
      return (v as Value[]).map(e => valueToJson(type.elementType, e))
    case 'MAP': {
      const entries = [...(v as Map<Value, Value>)].map(([k, e]) => ({
        key: valueToJson(type.keyType, k),
        value: valueToJson(type.valueType, e),
      }))
      if (!stringKeyed(type.keyType)) return entries
      const out: Record<string, unknown> = Object.create(null)
      for (const { key, value } of entries) out[key as string] = value
      return out
    }
    case 'ROW': {
      const out: Record<string, unknown> = Object.create(null)
      type.fields.forEach((f, i) => {
        out[f.name] = valueToJson(f.type, (v as Value[])[i])
      })
      return out
    }
    default:
      return typeof v === 'bigint' ? String(v) : v
  }
}

/**
 * A column type as written on the command line, in Fluss's type notation: `BIGINT`,
 * `STRING NOT NULL`, `DECIMAL(10, 2)`, `TIMESTAMP_LTZ(3)`, `ARRAY<INT>`.
 */
export function parseColumnType(text: string): DataType {
  try {
    return parseTypeString(text)
  } catch (e) {
    throw new ValueError((e as Error).message)
  }
}
