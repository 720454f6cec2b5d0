import { type DataType, Decimal, type Value } from '@sluice/core'
import { FlussError } from '@sluice/core/errors'
import { unscaledForColumn } from '@sluice/core/row'
import { MAX_TYPE_NESTING_DEPTH } from '@sluice/core/types'
import { invalidArgument } from '../errors/gateway-error.js'
import { numberLiteralToPlain, parseDecimalText } from './decimal-text.js'
import { parseSpecialFloat } from './float-text.js'
import { LongNumber } from './long-number.js'
import { arrayJsonReader, mapJsonReader, rowJsonReader } from './nested-json.js'
import { readTemporal } from './temporal-values.js'
import { valueJsonWriter } from './value-to-json.js'

/**
 * Converts one JSON value to the in-memory value of a Fluss type (the mapping is documented in
 * docs/gateway.md). `path` names the value in errors: `rows[3].amount: ...`. JSON null is null;
 * nullability, lengths and precisions are checked afterwards by the column's value checker.
 */
export type JsonValueReader = (json: unknown, path: string) => Value

const BIGINT_TEXT = /^-?\d{1,20}$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

export function jsonValueReader(type: DataType, depth = 0): JsonValueReader {
  if (depth > MAX_TYPE_NESTING_DEPTH) throw new FlussError('INVALID_REQUEST', 'type nests too deeply')
  const read = nonNullReader(type, depth)
  return (json, path) => (json === null ? null : read(json, path))
}

function fail(path: string, reason: string): never {
  throw invalidArgument(`${path}: ${reason}`)
}

function describe(json: unknown): string {
  if (json instanceof LongNumber) return 'number'
  return Array.isArray(json) ? 'array' : typeof json === 'object' ? 'object' : typeof json
}

function nonNullReader(type: DataType, depth: number): JsonValueReader {
  switch (type.type) {
    case 'BOOLEAN':
      return (json, path) =>
        typeof json === 'boolean' ? json : fail(path, `expected true or false, got ${describe(json)}`)
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
      return readInteger
    case 'BIGINT':
      return readBigint
    case 'FLOAT':
    case 'DOUBLE':
      return readFloating
    case 'DECIMAL':
      return (json, path) => readDecimal(json, path, type)
    case 'CHAR':
    case 'STRING':
      return (json, path) =>
        typeof json === 'string' ? json : fail(path, `expected a string, got ${describe(json)}`)
    case 'BINARY':
    case 'BYTES':
      return readBase64
    case 'DATE':
    case 'TIME_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return (json, path) => readTemporal(type, json, path)
    case 'ARRAY':
      return arrayJsonReader(type, t => jsonValueReader(t, depth + 1))
    case 'MAP':
      return mapJsonReader(type, t => jsonValueReader(t, depth + 1), valueJsonWriter)
    case 'ROW':
      return rowJsonReader(type, t => jsonValueReader(t, depth + 1))
  }
}

function readInteger(json: unknown, path: string): Value {
  if (typeof json !== 'number' || !Number.isInteger(json)) {
    return fail(
      path,
      json instanceof LongNumber ? 'out of range' : `expected an integer number, got ${describe(json)}`,
    )
  }
  return json
}

function readBigint(json: unknown, path: string): Value {
  if (typeof json === 'number') {
    if (!Number.isSafeInteger(json)) {
      return fail(path, 'a BIGINT number must be a safe integer (|n| < 2^53); send larger values as a string')
    }
    return BigInt(json)
  }
  if (json instanceof LongNumber) {
    return fail(path, 'a BIGINT number must be a safe integer (|n| < 2^53); send larger values as a string')
  }
  if (typeof json === 'string' && BIGINT_TEXT.test(json)) return BigInt(json)
  return fail(path, `expected a BIGINT as a decimal string or a safe integer, got ${describe(json)}`)
}

function readFloating(json: unknown, path: string): Value {
  if (typeof json === 'number') return Number.isFinite(json) ? json : fail(path, 'the number is out of range')
  if (json instanceof LongNumber) {
    const n = json.toNumber()
    return Number.isFinite(n) ? n : fail(path, 'the number is out of range')
  }
  if (typeof json === 'string') {
    const special = parseSpecialFloat(json)
    if (special !== undefined) return special
  }
  return fail(path, `expected a number or "NaN", "Infinity", "-Infinity", got ${describe(json)}`)
}

function readDecimal(json: unknown, path: string, type: Extract<DataType, { type: 'DECIMAL' }>): Value {
  let text: string | null = null
  if (typeof json === 'string') text = json
  else if (json instanceof LongNumber) text = numberLiteralToPlain(json.text)
  else if (typeof json === 'number' && Number.isFinite(json)) text = numberLiteralToPlain(String(json))
  const parsed = text === null ? null : parseDecimalText(text)
  if (parsed === null) {
    const got = typeof json === 'string' ? JSON.stringify(json.slice(0, 40)) : describe(json)
    return fail(path, `expected a DECIMAL as a string like "-123.45", got ${got}`)
  }
  try {
    return new Decimal(unscaledForColumn(type, parsed, path), type.scale)
  } catch (e) {
    if (e instanceof FlussError)
      return fail(
        path,
        `${parsed.toString()} does not fit DECIMAL(${type.precision}, ${type.scale}): ${e.message.replace(/^.*: /, '')}`,
      )
    throw e
  }
}

function readBase64(json: unknown, path: string): Value {
  if (typeof json !== 'string') return fail(path, `expected base64 text, got ${describe(json)}`)
  if (!BASE64.test(json)) return fail(path, 'expected standard base64 text (A-Z a-z 0-9 + /, padded with =)')
  const buf = Buffer.from(json, 'base64')
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
}
