import { FlussError } from '@sluice/core/errors'
import { sameIcebergType } from './nested-schema.js'
import type { LakeSchema } from './schema.js'
import type { IcebergSchema, IcebergType, TableMetadata } from './types.js'

/**
 * Iceberg schema evolution of a lake table after its Fluss table changed (`ALTER TABLE`): fields
 * are matched by id (Fluss column id + 1, never reused), so a renamed column keeps its field, a
 * dropped column's field leaves the current schema (its id stays taken: `last-column-id` only
 * grows), an added column is a new optional field, and a widened type is one of Iceberg's
 * promotions: int → long, float → double, decimal(P, S) → decimal(P', S) with P' ≥ P. Data files
 * written before are never rewritten: readers resolve their columns by field id.
 */

const DECIMAL = /^decimal\((\d+),\s*(\d+)\)$/

/**
 * Whether Iceberg reads values of type `from` as `to`: the same type, or a promotion of a primitive
 * (list, map and struct types must stay as they are).
 */
export function isIcebergPromotion(from: IcebergType, to: IcebergType): boolean {
  if (sameIcebergType(from, to)) return true
  if (typeof from !== 'string' || typeof to !== 'string') return false
  if (from === 'int' && to === 'long') return true
  if (from === 'float' && to === 'double') return true
  const a = DECIMAL.exec(from)
  const b = DECIMAL.exec(to)
  return a !== null && b !== null && a[2] === b[2] && Number(b[1]) >= Number(a[1])
}

const typeText = (t: IcebergType) => (typeof t === 'string' ? t : JSON.stringify(t))

function refuse(message: string): FlussError {
  return new FlussError('INVALID_TABLE_EXCEPTION', `The lake table cannot follow the Fluss table: ${message}`)
}

/**
 * The next Iceberg schema of `md` for the Fluss table's lake schema `next`, or undefined when the
 * current schema already has its fields. INVALID_TABLE_EXCEPTION for a change Iceberg cannot make
 * without rewriting files (a type that is no promotion, an optional field made required, a new
 * required field, other identifier fields).
 */
export function evolvedIcebergSchema(md: TableMetadata, next: LakeSchema): IcebergSchema | undefined {
  const current = md.schemas.find(s => s['schema-id'] === md['current-schema-id'])
  if (current === undefined) throw refuse('it has no current schema')
  const byId = new Map(current.fields.map(f => [f.id, f]))
  const ids = (s: IcebergSchema) => (s['identifier-field-ids'] ?? []).join(',')
  if (ids(current) !== ids(next.iceberg)) throw refuse('its identifier fields differ')
  let changed = current.fields.length !== next.iceberg.fields.length
  for (const [i, f] of next.iceberg.fields.entries()) {
    const old = byId.get(f.id)
    if (old === undefined) {
      if (f.id <= md['last-column-id'] && md.schemas.some(s => s.fields.some(g => g.id === f.id)))
        throw refuse(`field id ${f.id} (${f.name}) belonged to a dropped field`)
      if (f.required) throw refuse(`the new field ${f.name} is required`)
      changed = true
      continue
    }
    if (!isIcebergPromotion(old.type, f.type))
      throw refuse(
        `field ${old.name} (id ${f.id}) cannot change from ${typeText(old.type)} to ${typeText(f.type)}`,
      )
    if (!old.required && f.required) throw refuse(`field ${old.name} (id ${f.id}) cannot become required`)
    const sameAt = current.fields[i]?.id === f.id
    if (
      !sameAt ||
      old.name !== f.name ||
      !sameIcebergType(old.type, f.type) ||
      old.required !== f.required ||
      old.doc !== f.doc
    )
      changed = true
  }
  if (!changed) return undefined
  const schemaId = Math.max(...md.schemas.map(s => s['schema-id'])) + 1
  return { ...next.iceberg, 'schema-id': schemaId }
}
