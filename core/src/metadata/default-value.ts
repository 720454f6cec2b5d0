import { FlussError } from '../errors/index.js'
import { checkValue } from '../row/check-value.js'
import { Decimal, Timestamp, type Value } from '../row/value.js'
import { type DataType, isNested, nullable, typeToString } from '../types/data-type.js'

/**
 * Column defaults (beyond Fluss 0.9.1, whose schemas have none). A default is a write default, as
 * in SQL's `DEFAULT`: writers of this SDK and the gateway fill it in for a column a row leaves out.
 * It never changes stored rows, so rows written before a column existed read NULL there, as in an
 * Iceberg v2 table and in every Fluss client.
 *
 * A default is stored as text in the column's JSON (`"default_value"`, which Fluss's own JSON
 * reader ignores), in this form per type:
 *
 *   BOOLEAN true|false · TINYINT..BIGINT an integer · FLOAT, DOUBLE a number · DECIMAL a decimal
 *   number · CHAR, STRING the text itself · BINARY, BYTES base64 · DATE YYYY-MM-DD ·
 *   TIME HH:MM:SS[.fff] · TIMESTAMP, TIMESTAMP_LTZ YYYY-MM-DDTHH:MM:SS[.fffffffff][Z] (UTC)
 *
 * Nested columns (ARRAY, MAP, ROW) take no default.
 */

const MILLIS_PER_DAY = 86_400_000

function bad(column: string, type: DataType, text: string, why: string): FlussError {
  return new FlussError(
    'INVALID_ALTER_TABLE_EXCEPTION',
    `Invalid default ${JSON.stringify(text)} for column '${column}' of type ${typeToString(type)}: ${why}`,
  )
}

/** The value of a default's text; INVALID_ALTER_TABLE_EXCEPTION when it does not fit the type. */
export function parseDefaultValue(type: DataType, text: string, column: string): Value {
  if (isNested(type)) throw bad(column, type, text, 'nested columns take no default')
  const value = parseText(type, text)
  if (value === undefined) throw bad(column, type, text, expected(type))
  try {
    checkValue(nullable(type), value, column)
  } catch (e) {
    throw bad(column, type, text, e instanceof Error ? e.message : String(e))
  }
  return value
}

function parseText(type: DataType, text: string): Value | undefined {
  switch (type.type) {
    case 'BOOLEAN':
      return /^(true|false)$/i.test(text) ? text.toLowerCase() === 'true' : undefined
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
      return /^-?\d+$/.test(text) ? Number(text) : undefined
    case 'BIGINT':
      return /^-?\d+$/.test(text) ? BigInt(text) : undefined
    case 'FLOAT':
    case 'DOUBLE': {
      const n = text.trim() === '' ? Number.NaN : Number(text)
      return Number.isFinite(n) ? n : undefined
    }
    case 'DECIMAL':
      try {
        return Decimal.parse(text, type.scale)
      } catch {
        return undefined
      }
    case 'CHAR':
    case 'STRING':
      return text
    case 'BINARY':
    case 'BYTES':
      return /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0
        ? new Uint8Array(Buffer.from(text, 'base64'))
        : undefined
    case 'DATE':
      return parseDate(text)
    case 'TIME_WITHOUT_TIME_ZONE':
      return parseTime(text)
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return parseTimestamp(text)
    default:
      return undefined
  }
}

function expected(type: DataType): string {
  switch (type.type) {
    case 'BOOLEAN':
      return 'expected true or false'
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'BIGINT':
      return 'expected an integer'
    case 'FLOAT':
    case 'DOUBLE':
      return 'expected a finite number'
    case 'DECIMAL':
      return `expected a decimal number with at most ${type.scale} fraction digits`
    case 'BINARY':
    case 'BYTES':
      return 'expected base64'
    case 'DATE':
      return 'expected YYYY-MM-DD'
    case 'TIME_WITHOUT_TIME_ZONE':
      return 'expected HH:MM:SS[.fff]'
    default:
      return 'expected YYYY-MM-DDTHH:MM:SS[.fffffffff][Z]'
  }
}

function parseDate(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (m === null) return undefined
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  const d = new Date(ms)
  if (d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return undefined
  return ms / MILLIS_PER_DAY
}

function parseTime(text: string): number | undefined {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(text)
  if (m === null) return undefined
  const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (h > 23 || min > 59 || s > 59) return undefined
  return ((h * 60 + min) * 60 + s) * 1000 + Number((m[4] ?? '').padEnd(3, '0'))
}

function parseTimestamp(text: string): Timestamp | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z?$/.exec(text)
  if (m === null) return undefined
  const day = parseDate(m[1])
  const time = parseTime(m[2])
  if (day === undefined || time === undefined) return undefined
  const fraction = (m[3] ?? '').padEnd(9, '0')
  const millis = day * MILLIS_PER_DAY + time + Number(fraction.slice(0, 3))
  return new Timestamp(millis, Number(fraction.slice(3)))
}
