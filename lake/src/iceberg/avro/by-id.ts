import { FlussError } from '@sluice/core/errors'

/**
 * Reading Iceberg Avro records by field id, not by name: other writers name some fields
 * differently (Athena writes `added_data_files_count` for field 504), and ids are what the spec
 * defines. An index maps each `field-id` of a writer record schema to the field's name and type.
 */

export interface FieldRef {
  readonly name: string
  readonly type: unknown
}

export type FieldIndex = ReadonlyMap<number, FieldRef>

function corrupt(message: string): FlussError {
  return new FlussError('CORRUPT_MESSAGE', message)
}

/** The non-null branch of `["null", T]`, or the type itself. */
export function unwrapOptional(type: unknown): unknown {
  if (!Array.isArray(type)) return type
  const branches = type.filter(t => t !== 'null')
  return branches.length === 1 ? branches[0] : type
}

/** The fields of a record type (an optional record is unwrapped). */
export function recordFields(type: unknown, what: string): readonly Record<string, unknown>[] {
  const t = unwrapOptional(type) as Record<string, unknown>
  if (typeof t !== 'object' || t === null || t.type !== 'record' || !Array.isArray(t.fields)) {
    throw corrupt(`${what} is not an Avro record`)
  }
  return t.fields as Record<string, unknown>[]
}

export function fieldIndex(recordType: unknown, what: string): FieldIndex {
  const index = new Map<number, FieldRef>()
  for (const f of recordFields(recordType, what)) {
    const id = f['field-id']
    if (typeof id === 'number') index.set(id, { name: String(f.name), type: f.type })
  }
  return index
}

/** The value of field `id` of a decoded record (undefined when the writer schema lacks it). */
export function byId(record: unknown, index: FieldIndex, id: number): unknown {
  const ref = index.get(id)
  if (ref === undefined) return undefined
  return (record as Record<string, unknown>)[ref.name]
}

/** A required field; CORRUPT_MESSAGE when the writer schema lacks it. */
export function requiredById(record: unknown, index: FieldIndex, id: number, what: string): unknown {
  const v = byId(record, index, id)
  if (v === undefined || v === null) throw corrupt(`${what} (field id ${id}) is missing`)
  return v
}

/** A long decoded as bigint (or int as number) converted to a safe JavaScript number. */
export function toSafeNumber(v: unknown, what: string): number {
  const n = typeof v === 'bigint' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isSafeInteger(n))
    throw corrupt(`${what} is not a safe integer: ${String(v)}`)
  return n
}

export function toBigInt(v: unknown, what: string): bigint {
  if (typeof v === 'bigint') return v
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v)
  throw corrupt(`${what} is not an integer: ${String(v)}`)
}

export function toBytes(v: unknown): Uint8Array | null {
  if (v === null || v === undefined) return null
  if (v instanceof Uint8Array) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
  throw corrupt('expected Avro bytes')
}

/** Uint8Array → Buffer without copying (avsc's bytes type wants Buffers). */
export function toBuffer(v: Uint8Array | null | undefined): Buffer | null {
  if (v === null || v === undefined) return null
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength)
}
