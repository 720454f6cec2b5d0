import type { AttributeCondition, ItemValue, JsonValue, WriteCondition } from './metastore.js'

/**
 * Evaluates a write condition against the current item, with DynamoDB's semantics: a comparison
 * with a missing field, or with a value of another type, is false; strings compare by UTF-8 bytes.
 * Used by the in-memory twin; the DynamoDB adapter sends the same condition as an expression.
 */
export function conditionHolds(
  current: { version: number; value: ItemValue } | undefined,
  condition: WriteCondition,
): boolean {
  if (condition.version === 'absent') {
    if (current !== undefined) return false
  } else if (current === undefined || current.version !== condition.version) {
    return false
  }
  return (condition.attributes ?? []).every(a => attributeHolds(current?.value, a))
}

function attributeHolds(value: ItemValue | undefined, c: AttributeCondition): boolean {
  const stored = value === undefined || !Object.hasOwn(value, c.field) ? undefined : value[c.field]
  if (c.op === 'absent') return stored === undefined
  if (stored === undefined) return false
  if (c.value === undefined) return false
  const order = compare(stored, c.value)
  if (order === undefined) return false
  switch (c.op) {
    case '<':
      return order < 0
    case '<=':
      return order <= 0
    case '=':
      return order === 0
    case '>=':
      return order >= 0
    case '>':
      return order > 0
  }
}

/** -1/0/1 for comparable values of the same type; undefined when they cannot be compared. */
function compare(a: JsonValue, b: number | string | boolean): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b)
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b))
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : undefined
  return undefined
}

/** Sort-key order of DynamoDB string keys: UTF-8 byte order. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}
