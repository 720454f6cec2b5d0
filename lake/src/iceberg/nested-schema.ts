import type { FieldMetadataTree } from '@sluice/core/arrow'
import { PARQUET_FIELD_ID_METADATA_KEY } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import type { ArrayType, DataType, MapType, RowType } from '@sluice/core/types'
import { icebergTypeOf, SYSTEM_FIELD_ID_BASE } from './schema.js'
import type { IcebergField, IcebergType } from './types.js'

/**
 * Iceberg types of nested Fluss columns (ARRAY → list, MAP → map, ROW → struct), with a field id on
 * every nested field, derived so that it never changes for the life of the table:
 *
 * - a ROW field has a Fluss field id `f` of its own (unique across the table's columns and ROW
 *   fields, never reused, as column ids), and gets Iceberg id `f + 1`, like a column;
 * - list elements, map keys and map values have no Fluss id: they are numbered from the Fluss id
 *   `o` of the column or ROW field that owns them (the nearest one above), `10000000 + o * 1000 + k`,
 *   with `k` counting the owner's elements, keys and values depth-first (a map's key before its
 *   value, each before its own children). Ids of one column therefore depend on that column alone,
 *   never on the columns around it, so adding, dropping or renaming other columns leaves them be.
 *
 * An owner may have at most 1000 such fields (a type nested deeper is refused), and the owner ids
 * stay below the system columns' band, so the ids never collide with column ids or system ids.
 * Lake types convert inside nested children as for columns (TINYINT and SMALLINT as int, CHAR as
 * string, TIME and TIMESTAMP at microseconds). Every nested field's id is also written to Parquet
 * (`PARQUET:field_id` on the Arrow child fields: list `element`, map `key` and `value`, struct fields).
 */

export const NESTED_FIELD_ID_BASE = 10_000_000
export const NESTED_FIELDS_PER_OWNER = 1000

/** The Iceberg type of a column, its lake type, and the field ids of its nested children for Parquet. */
export interface IcebergColumnType {
  readonly icebergType: IcebergType
  readonly lakeType: DataType
  /** `PARQUET:field_id` of the column's nested children (undefined for primitive columns). */
  readonly children?: readonly FieldMetadataTree[]
  /** Every nested field id the type holds (empty for primitive columns). */
  readonly nestedIds: readonly number[]
}

function invalidTable(message: string): FlussError {
  return new FlussError('INVALID_TABLE_EXCEPTION', message)
}

function idMetadata(id: number): Readonly<Record<string, string>> {
  return { [PARQUET_FIELD_ID_METADATA_KEY]: String(id) }
}

/** Numbers the anonymous fields (elements, keys, values) of one owner. */
class OwnerIds {
  private next = 0

  constructor(
    private readonly owner: number,
    private readonly name: string,
  ) {
    if (!Number.isSafeInteger(owner) || owner < 0 || owner + 1 >= SYSTEM_FIELD_ID_BASE)
      throw invalidTable(`Field '${name}' has field id ${owner}, outside 0..${SYSTEM_FIELD_ID_BASE - 2}`)
  }

  take(): number {
    if (this.next >= NESTED_FIELDS_PER_OWNER) {
      throw invalidTable(
        `Field '${this.name}' nests more than ${NESTED_FIELDS_PER_OWNER} list elements, map keys and values; the lake cannot number them`,
      )
    }
    return NESTED_FIELD_ID_BASE + this.owner * NESTED_FIELDS_PER_OWNER + this.next++
  }
}

/** The Iceberg type of a column of type `t` whose Fluss column id is `columnId`. */
export function icebergColumnType(t: DataType, columnId: number, name: string): IcebergColumnType {
  const ids: number[] = []
  const converted = convert(t, new OwnerIds(columnId, name), name, ids)
  return { ...converted, nestedIds: ids }
}

interface Converted {
  readonly icebergType: IcebergType
  readonly lakeType: DataType
  readonly children?: readonly FieldMetadataTree[]
}

function convert(t: DataType, owner: OwnerIds, path: string, ids: number[]): Converted {
  switch (t.type) {
    case 'ARRAY':
      return list(t, owner, path, ids)
    case 'MAP':
      return map(t, owner, path, ids)
    case 'ROW':
      return struct(t, path, ids)
    default:
      return icebergTypeOf(t)
  }
}

function list(t: ArrayType, owner: OwnerIds, path: string, ids: number[]): Converted {
  const id = owner.take()
  ids.push(id)
  const element = convert(t.elementType, owner, `${path}.element`, ids)
  return {
    icebergType: {
      type: 'list',
      'element-id': id,
      element: element.icebergType,
      'element-required': !t.elementType.nullable,
    },
    lakeType: { ...t, elementType: element.lakeType },
    children: [tree(id, element)],
  }
}

function map(t: MapType, owner: OwnerIds, path: string, ids: number[]): Converted {
  const keyId = owner.take()
  const valueId = owner.take()
  ids.push(keyId, valueId)
  const key = convert(t.keyType, owner, `${path}.key`, ids)
  const value = convert(t.valueType, owner, `${path}.value`, ids)
  return {
    icebergType: {
      type: 'map',
      'key-id': keyId,
      key: key.icebergType,
      'value-id': valueId,
      value: value.icebergType,
      'value-required': !t.valueType.nullable,
    },
    lakeType: { ...t, keyType: key.lakeType, valueType: value.lakeType },
    // The Arrow map's `entries` struct has no Iceberg field: its children are the key and value.
    children: [{ children: [tree(keyId, key), tree(valueId, value)] }],
  }
}

function struct(t: RowType, path: string, ids: number[]): Converted {
  const fields: IcebergField[] = []
  const lakeFields: RowType['fields'][number][] = []
  const children: FieldMetadataTree[] = []
  for (const f of t.fields) {
    const owner = new OwnerIds(f.fieldId, `${path}.${f.name}`)
    const id = f.fieldId + 1
    ids.push(id)
    const c = convert(f.type, owner, `${path}.${f.name}`, ids)
    fields.push({
      id,
      name: f.name,
      required: !f.type.nullable,
      type: c.icebergType,
      ...(f.description === undefined ? {} : { doc: f.description }),
    })
    lakeFields.push({ ...f, type: c.lakeType })
    children.push(tree(id, c))
  }
  return { icebergType: { type: 'struct', fields }, lakeType: { ...t, fields: lakeFields }, children }
}

function tree(id: number, c: Converted): FieldMetadataTree {
  return { metadata: idMetadata(id), ...(c.children === undefined ? {} : { children: c.children }) }
}

/** Structural equality of two Iceberg types (member order aside). */
export function sameIcebergType(a: IcebergType, b: IcebergType): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b
  if (a.type !== b.type) return false
  switch (a.type) {
    case 'list': {
      const o = b as typeof a
      return (
        a['element-id'] === o['element-id'] &&
        a['element-required'] === o['element-required'] &&
        sameIcebergType(a.element, o.element)
      )
    }
    case 'map': {
      const o = b as typeof a
      return (
        a['key-id'] === o['key-id'] &&
        a['value-id'] === o['value-id'] &&
        a['value-required'] === o['value-required'] &&
        sameIcebergType(a.key, o.key) &&
        sameIcebergType(a.value, o.value)
      )
    }
    case 'struct': {
      const o = b as typeof a
      return a.fields.length === o.fields.length && a.fields.every((f, i) => sameIcebergField(f, o.fields[i]))
    }
  }
}

/** Same id, name, requiredness and type. */
export function sameIcebergField(a: IcebergField, b: IcebergField): boolean {
  return a.id === b.id && a.name === b.name && a.required === b.required && sameIcebergType(a.type, b.type)
}

/** The type in the Hive/Glue type syntax: `array<int>`, `map<string,struct<x:int>>`. */
export function hiveTypeString(t: IcebergType, primitive: (p: string) => string): string {
  if (typeof t === 'string') return primitive(t)
  switch (t.type) {
    case 'list':
      return `array<${hiveTypeString(t.element, primitive)}>`
    case 'map':
      return `map<${hiveTypeString(t.key, primitive)},${hiveTypeString(t.value, primitive)}>`
    case 'struct':
      return `struct<${t.fields.map(f => `${f.name}:${hiveTypeString(f.type, primitive)}`).join(',')}>`
  }
}
