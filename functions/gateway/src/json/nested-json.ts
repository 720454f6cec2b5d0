import type { ArrayType, DataType, MapType, RowType, Value } from '@sluice/core'
import { invalidArgument } from '../errors/gateway-error.js'
import { LongNumber } from './long-number.js'

/**
 * Typed JSON of nested values (docs/gateway.md), both directions:
 *
 * | type      | JSON                                                                                  |
 * |-----------|---------------------------------------------------------------------------------------|
 * | ARRAY<T>  | an array of T's JSON                                                                   |
 * | MAP<K, V> | K is CHAR/STRING: an object (`{"a": 1}`); otherwise an array of entries `{"key": k, "value": v}`. Requests also take entries for string keys, and `[key, value]` pairs for any key |
 * | ROW<…>    | an object keyed by field name (fields left out of a request are null)                 |
 *
 * Element, key, value and field readers come from the caller (`jsonValueReader`), so every leaf
 * follows the flat mapping. A map may not name a key twice (JSON objects are already refused with
 * a repeated member; entries are compared by their canonical JSON).
 */

export type NestedJsonReader = (json: unknown, path: string) => Value
export type NestedJsonWriter = (value: Value) => unknown

/** A reader of values of `type` (for the children of a nested type). */
type ReaderOf = (type: DataType) => NestedJsonReader
/** A writer of values of `type`. */
type WriterOf = (type: DataType) => NestedJsonWriter

function fail(path: string, reason: string): never {
  throw invalidArgument(`${path}: ${reason}`)
}

function describe(json: unknown): string {
  if (json instanceof LongNumber) return 'number'
  return Array.isArray(json) ? 'array' : typeof json === 'object' ? 'object' : typeof json
}

function isObject(json: unknown): json is Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && !(json instanceof LongNumber)
}

/** Whether MAP<K, V> values are JSON objects (K is CHAR or STRING). */
export function stringKeyed(type: MapType): boolean {
  return type.keyType.type === 'STRING' || type.keyType.type === 'CHAR'
}

export function arrayJsonReader(type: ArrayType, readerOf: ReaderOf): NestedJsonReader {
  const element = readerOf(type.elementType)
  return (json, path) => {
    if (!Array.isArray(json)) return fail(path, `expected an array, got ${describe(json)}`)
    return json.map((e, i) => element(e, `${path}[${i}]`))
  }
}

export function mapJsonReader(type: MapType, readerOf: ReaderOf, writerOf: WriterOf): NestedJsonReader {
  const key = readerOf(type.keyType)
  const value = readerOf(type.valueType)
  const keyText = writerOf(type.keyType)
  const objects = stringKeyed(type)
  const expected = objects
    ? 'an object, or an array of {"key", "value"} entries'
    : 'an array of {"key", "value"} entries (or [key, value] pairs)'
  const readEntries = (json: unknown[], path: string): Map<Value, Value> => {
    const out = new Map<Value, Value>()
    const seen = new Set<string>()
    for (const [i, entry] of json.entries()) {
      const at = `${path}[${i}]`
      const [k, v] = entryOf(entry, at)
      if (k === null) fail(`${at}.key`, 'a MAP key cannot be null')
      const mapKey = key(k, `${at}.key`)
      const canonical = JSON.stringify(keyText(mapKey))
      if (seen.has(canonical)) fail(`${at}.key`, `the key ${canonical} is given twice`)
      seen.add(canonical)
      out.set(mapKey, value(v, `${at}.value`))
    }
    return out
  }
  return (json, path) => {
    if (Array.isArray(json)) return readEntries(json, path)
    if (objects && isObject(json)) {
      return new Map(Object.entries(json).map(([k, v]) => [k, value(v, `${path}.${k}`)]))
    }
    return fail(path, `expected ${expected}, got ${describe(json)}`)
  }
}

/** The key and value of one map entry: `{"key": k, "value": v}` (value optional) or `[k, v]`. */
function entryOf(entry: unknown, path: string): [unknown, unknown] {
  if (Array.isArray(entry) && entry.length === 2) return [entry[0], entry[1]]
  if (isObject(entry) && Object.hasOwn(entry, 'key')) {
    const other = Object.keys(entry).find(m => m !== 'key' && m !== 'value')
    if (other !== undefined) fail(`${path}.${other}`, 'a map entry has only "key" and "value"')
    return [entry.key, Object.hasOwn(entry, 'value') ? entry.value : null]
  }
  return fail(path, 'expected a {"key", "value"} entry or a [key, value] pair')
}

export function rowJsonReader(type: RowType, readerOf: ReaderOf): NestedJsonReader {
  const fields = type.fields
  const readers = fields.map(f => readerOf(f.type))
  const names = new Set(fields.map(f => f.name))
  return (json, path) => {
    if (!isObject(json))
      return fail(path, `expected an object of field names to values, got ${describe(json)}`)
    for (const k of Object.keys(json))
      if (!names.has(k)) fail(`${path}.${k}`, 'no such field in the ROW type')
    return fields.map((f, i) =>
      readers[i](Object.hasOwn(json, f.name) ? json[f.name] : null, `${path}.${f.name}`),
    )
  }
}

export function arrayJsonWriter(type: ArrayType, writerOf: WriterOf): NestedJsonWriter {
  const element = writerOf(type.elementType)
  return v => (v as Value[]).map(element)
}

export function mapJsonWriter(type: MapType, writerOf: WriterOf): NestedJsonWriter {
  const key = writerOf(type.keyType)
  const value = writerOf(type.valueType)
  if (stringKeyed(type)) {
    return v => Object.fromEntries([...(v as Map<Value, Value>)].map(([k, e]) => [k as string, value(e)]))
  }
  return v => [...(v as Map<Value, Value>)].map(([k, e]) => ({ key: key(k), value: value(e) }))
}

export function rowJsonWriter(type: RowType, writerOf: WriterOf): NestedJsonWriter {
  const names = type.fields.map(f => f.name)
  const writers = type.fields.map(f => writerOf(f.type))
  return v => Object.fromEntries(names.map((name, i) => [name, writers[i]((v as Value[])[i])]))
}
