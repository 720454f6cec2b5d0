import type { JsonSchema } from './json-schema.js'
import type { RouteRegistry } from './registry.js'

/**
 * The schemas of table rows in typed JSON (docs/gateway.md, "Typed JSON"): a row is an object of
 * column names to values; nested values nest (ARRAY as an array, MAP with CHAR/STRING keys as an
 * object and otherwise as an array of `MapEntry`, ROW as an object keyed by field name).
 */

const TYPED_VALUE_REF = { $ref: '#/components/schemas/TypedValue' } as const
const MAP_ENTRY_REF = { $ref: '#/components/schemas/MapEntry' } as const

const TYPED_VALUE: JsonSchema = {
  description:
    'A column value in typed JSON, by the column type: BOOLEAN a boolean; TINYINT, SMALLINT, INT, FLOAT, DOUBLE a number; BIGINT and DECIMAL a string (requests also take numbers that convert exactly); CHAR, STRING, temporal types and base64 bytes a string; ARRAY an array of its elements; MAP with CHAR/STRING keys an object, other MAPs an array of MapEntry ({"key", "value"}; requests also take [key, value] pairs); ROW an object keyed by field name; null for a null value.',
  anyOf: [
    { type: ['null', 'boolean', 'number', 'string', 'object'] },
    { type: 'array', items: { anyOf: [MAP_ENTRY_REF, TYPED_VALUE_REF] } },
  ],
}

const MAP_ENTRY: JsonSchema = {
  type: 'object',
  description: 'One entry of a MAP whose keys are not CHAR/STRING (a missing value is null).',
  required: ['key'],
  additionalProperties: false,
  properties: { key: TYPED_VALUE_REF, value: TYPED_VALUE_REF },
}

const ROW: JsonSchema = {
  type: 'object',
  description: 'Column name → value, typed as in docs/gateway.md (nested values as TypedValue describes).',
  additionalProperties: TYPED_VALUE_REF,
}

/** Registers TypedValue, MapEntry and Row and returns a `$ref` to Row. */
export function typedRowSchema(registry: RouteRegistry): JsonSchema {
  registry.schema('TypedValue', TYPED_VALUE)
  registry.schema('MapEntry', MAP_ENTRY)
  return registry.schema('Row', ROW)
}
