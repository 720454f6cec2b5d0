import { FlussError } from '@sluice/core/errors'
import { Timestamp, type Value } from '@sluice/core/row'
import { type DataType, type RowType, typeToString } from '@sluice/core/types'

/**
 * The SDK's forms of values, nested ones included.
 *
 * Written values (`RowInput`) take the core value model (`@sluice/core/row` Value) and, as
 * conveniences, at any depth:
 *
 * | type          | also accepted                                                             |
 * |---------------|---------------------------------------------------------------------------|
 * | BIGINT        | a safe-integer number                                                     |
 * | TIMESTAMP(_LTZ)| a Date                                                                   |
 * | ARRAY<T>      | a typed array (Float32Array, Int32Array, ...) besides a plain array        |
 * | MAP<K, V>     | a plain object when K is STRING or CHAR (its own keys, in order)           |
 * | ROW<...>      | a plain object keyed by field name (fields left out are null) besides an array in field order |
 *
 * Read values are core values (ROW as an array in field order, MAP as a JS Map); the object
 * forms (`ScanRecords.objects()`, `LookupResult.objects()`) render every ROW, at any depth, as an
 * object keyed by field name, so a ROW value reads back in the form it may be written in.
 */

/** A value as rendered in object rows: a core value, with every ROW as an object keyed by field name. */
export type ObjectValue =
  | Value
  | ObjectValue[]
  | Map<ObjectValue, ObjectValue>
  | { readonly [field: string]: ObjectValue }

/** A row rendered as an object keyed by column name. */
export type ObjectRow = Record<string, ObjectValue>

/**
 * Converts one written value of a type to the core value model; `path` names it in errors (made
 * only when one is thrown).
 */
export type InputConverter = (value: unknown, path: () => string) => Value

const identity: InputConverter = v => (v === undefined ? null : (v as Value))

function isPlainObject(v: unknown): v is Readonly<Record<string, unknown>> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

function isNumericArray(v: unknown): v is ArrayLike<number | bigint> {
  return ArrayBuffer.isView(v) && !(v instanceof DataView)
}

/** The converter of written values of `type` (see the table above). */
export function inputConverter(type: DataType): InputConverter {
  switch (type.type) {
    case 'BIGINT':
      return v => (typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : identity(v, () => ''))
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return v => (v instanceof Date ? new Timestamp(v.getTime(), 0) : identity(v, () => ''))
    case 'ARRAY': {
      const element = inputConverter(type.elementType)
      return (v, path) => {
        if (Array.isArray(v)) return v.map((e, i) => element(e, () => `${path()}[${i}]`))
        if (isNumericArray(v)) return Array.from(v, (e, i) => element(e, () => `${path()}[${i}]`))
        return identity(v, path)
      }
    }
    case 'MAP':
      return mapConverter(type.keyType, type.valueType)
    case 'ROW':
      return rowConverter(type)
    default:
      return identity
  }
}

function mapConverter(keyType: DataType, valueType: DataType): InputConverter {
  const key = inputConverter(keyType)
  const value = inputConverter(valueType)
  const stringKeys = keyType.type === 'STRING' || keyType.type === 'CHAR'
  return (v, path) => {
    if (v instanceof Map) {
      const out = new Map<Value, Value>()
      for (const [k, e] of v)
        out.set(
          key(k, () => `${path()}.key`),
          value(e, () => `${path()}[${keyText(k)}]`),
        )
      return out
    }
    if (stringKeys && isPlainObject(v)) {
      return new Map<Value, Value>(
        Object.entries(v).map(([k, e]) => [k, value(e, () => `${path()}[${JSON.stringify(k)}]`)]),
      )
    }
    return identity(v, path)
  }
}

/** A map key as the value checkers show it in paths (`["EUR"]`, `[7]`). */
function keyText(k: unknown): string {
  return typeof k === 'string'
    ? JSON.stringify(k)
    : typeof k === 'bigint' || typeof k === 'number'
      ? String(k)
      : '?'
}

function rowConverter(type: RowType): InputConverter {
  const names = type.fields.map(f => f.name)
  const index = new Map(names.map((n, i) => [n, i]))
  const fields = type.fields.map(f => inputConverter(f.type))
  return (v, path) => {
    if (Array.isArray(v))
      return v.map((e, i) => (i < fields.length ? fields[i](e, () => `${path()}.${names[i]}`) : e))
    if (!isPlainObject(v)) return identity(v, path)
    const out = new Array<Value>(fields.length).fill(null)
    for (const [name, e] of Object.entries(v)) {
      const i = index.get(name)
      if (i === undefined) {
        throw new FlussError(
          'INVALID_REQUEST',
          `Invalid value for column '${path()}' of type ${typeToString(type)}: '${name}' is not one of its fields (${names.join(', ')})`,
        )
      }
      out[i] = fields[i](e, () => `${path()}.${name}`)
    }
    return out
  }
}

/** Renders a read value of `type` for object rows: every ROW, at any depth, as an object. */
export type ObjectRenderer = (value: Value) => ObjectValue

const asIs: ObjectRenderer = v => v

/** Whether values of `type` need rendering (they hold a ROW somewhere). */
function holdsRow(type: DataType): boolean {
  switch (type.type) {
    case 'ROW':
      return true
    case 'ARRAY':
      return holdsRow(type.elementType)
    case 'MAP':
      return holdsRow(type.keyType) || holdsRow(type.valueType)
    default:
      return false
  }
}

export function objectRenderer(type: DataType): ObjectRenderer {
  if (!holdsRow(type)) return asIs
  switch (type.type) {
    case 'ARRAY': {
      const element = objectRenderer(type.elementType)
      return v => (v === null ? null : (v as Value[]).map(element))
    }
    case 'MAP': {
      const key = objectRenderer(type.keyType)
      const value = objectRenderer(type.valueType)
      return v => {
        if (v === null) return null
        const out = new Map<ObjectValue, ObjectValue>()
        for (const [k, e] of v as Map<Value, Value>) out.set(key(k), value(e))
        return out
      }
    }
    case 'ROW': {
      const render = rowObjectRenderer(type)
      return v => (v === null ? null : render(v as Value[]))
    }
    default:
      return asIs
  }
}

/** Renders rows of `rowType` as objects keyed by column name (nested ROWs as objects too). */
export function rowObjectRenderer(rowType: RowType): (row: readonly Value[]) => ObjectRow {
  const names = rowType.fields.map(f => f.name)
  const renderers = rowType.fields.map(f => objectRenderer(f.type))
  return row => {
    const out: ObjectRow = {}
    for (let i = 0; i < names.length; i++) out[names[i]] = renderers[i](row[i] ?? null)
    return out
  }
}
