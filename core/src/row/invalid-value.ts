import { FlussError } from '../errors/index.js'
import { type DataType, typeToString } from '../types/data-type.js'
import { Decimal, Timestamp, type Value } from './value.js'

/** The error of a value that cannot be stored as `type`; `column` is the column or the path in it. */
export function invalidValue(column: string, type: DataType, value: Value, reason: string): FlussError {
  return new FlussError(
    'INVALID_REQUEST',
    `Invalid value ${describeValue(value)} for column '${column}' of type ${typeToString(type)}: ${reason}`,
  )
}

function describeValue(value: Value): string {
  if (value === null) return 'null'
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value instanceof Decimal) return `Decimal(${value.toString()})`
  if (value instanceof Timestamp) return `Timestamp(${value.millis}, ${value.nanoOfMillis})`
  if (value instanceof Uint8Array) return `Uint8Array(${value.length})`
  if (value instanceof Map) return `Map(${value.size})`
  if (Array.isArray(value)) return `Array(${value.length})`
  return typeof value
}
