import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import { FlussError } from '../../errors/index.js'
import type { ItemValue, JsonValue, VersionedItem } from '../metastore.js'

/**
 * How a versioned item is stored in DynamoDB:
 *
 *   pk: S, sk: S, version: N, and one attribute per top-level field of the value
 *
 * Field values map to attribute types one to one: string → S, number → N (decimal text),
 * boolean → BOOL, null → NULL, array → L, object → M (recursively). Exact 64-bit integers are the
 * caller's to pass as strings (the validator refuses unsafe integers), so N never loses digits.
 * Sets and binary attributes are never written; reading one means the item was not written by us.
 */
export function toAttributeValue(v: JsonValue): AttributeValue {
  if (v === null) return { NULL: true }
  if (typeof v === 'string') return { S: v }
  if (typeof v === 'number') return { N: decimalString(v) }
  if (typeof v === 'boolean') return { BOOL: v }
  if (Array.isArray(v)) return { L: v.map(toAttributeValue) }
  const m: Record<string, AttributeValue> = {}
  for (const [k, e] of Object.entries(v as { [k: string]: JsonValue })) m[k] = toAttributeValue(e)
  return { M: m }
}

/** A number in plain decimal notation (`1e-7` → `0.0000001`), the form DynamoDB documents for N. */
export function decimalString(n: number): string {
  const text = String(n)
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
  if (m === null) return text
  const [, sign, lead, frac = '', exponent] = m
  const digits = lead + frac
  const point = 1 + Number(exponent)
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

export function fromAttributeValue(a: AttributeValue, where: string): JsonValue {
  if (a.S !== undefined) return a.S
  if (a.N !== undefined) return Number(a.N)
  if (a.BOOL !== undefined) return a.BOOL
  if (a.NULL !== undefined) return null
  if (a.L !== undefined) return a.L.map((e, i) => fromAttributeValue(e, `${where}[${i}]`))
  if (a.M !== undefined) {
    const out: { [k: string]: JsonValue } = {}
    for (const [k, e] of Object.entries(a.M)) out[k] = fromAttributeValue(e, `${where}.${k}`)
    return out
  }
  throw new FlussError(
    'CORRUPT_MESSAGE',
    `metadata attribute ${where} has unsupported type ${Object.keys(a).join(',')}`,
  )
}

export function toItem(
  pk: string,
  sk: string,
  version: number,
  value: ItemValue,
): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {
    pk: { S: pk },
    sk: { S: sk },
    version: { N: String(version) },
  }
  for (const [field, v] of Object.entries(value)) item[field] = toAttributeValue(v)
  return item
}

export function fromItem(item: Record<string, AttributeValue>): VersionedItem {
  const pk = item.pk?.S
  const sk = item.sk?.S
  const version = Number(item.version?.N)
  if (pk === undefined || sk === undefined || !Number.isSafeInteger(version) || version < 1) {
    throw new FlussError(
      'CORRUPT_MESSAGE',
      `metadata item ${pk}/${sk} lacks pk, sk or a valid version (${item.version?.N})`,
    )
  }
  const value: { [k: string]: JsonValue } = {}
  for (const [field, a] of Object.entries(item)) {
    if (field !== 'pk' && field !== 'sk' && field !== 'version')
      value[field] = fromAttributeValue(a, `${pk}/${sk}.${field}`)
  }
  return { pk, sk, version, value }
}
