import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import type { AttributeCondition, WriteCondition } from '../metastore.js'
import { toAttributeValue } from './item-codec.js'

export interface Expression {
  readonly expression: string
  readonly names: Record<string, string>
  readonly values: Record<string, AttributeValue> | undefined
}

/**
 * Builds the ConditionExpression of a write: the version clause and one clause per attribute
 * condition, joined with AND. Field names always go through placeholders (#a0...), so any field
 * name is safe, reserved words included.
 */
export function conditionExpression(condition: WriteCondition): Expression {
  const names: Record<string, string> = {}
  const values: Record<string, AttributeValue> = {}
  const clauses: string[] = []
  if (condition.version === 'absent') {
    names['#pk'] = 'pk'
    clauses.push('attribute_not_exists(#pk)')
  } else {
    names['#version'] = 'version'
    values[':version'] = { N: String(condition.version) }
    clauses.push('#version = :version')
  }
  ;(condition.attributes ?? []).forEach((a, i) => {
    names[`#a${i}`] = a.field
    clauses.push(attributeClause(a, `#a${i}`, `:a${i}`))
    if (a.op !== 'absent' && a.value !== undefined) values[`:a${i}`] = toAttributeValue(a.value)
  })
  return {
    expression: clauses.join(' AND '),
    names,
    values: Object.keys(values).length > 0 ? values : undefined,
  }
}

function attributeClause(a: AttributeCondition, name: string, value: string): string {
  return a.op === 'absent' ? `attribute_not_exists(${name})` : `${name} ${a.op} ${value}`
}

/** KeyConditionExpression for a query of one partition, optionally by sort-key prefix. */
export function keyConditionExpression(pk: string, prefix: string): Expression {
  const names: Record<string, string> = { '#pk': 'pk' }
  const values: Record<string, AttributeValue> = { ':pk': { S: pk } }
  if (prefix === '') return { expression: '#pk = :pk', names, values }
  names['#sk'] = 'sk'
  values[':prefix'] = { S: prefix }
  return { expression: '#pk = :pk AND begins_with(#sk, :prefix)', names, values }
}
