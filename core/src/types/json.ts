import { type ErrorName, FlussError } from '../errors/index.js'
import { type DataType, DataTypes, dataTypeProblem, type RowField, withNullability } from './data-type.js'

/**
 * Fluss's JSON form of data types (`DataTypeJsonSerde`, release 0.9.1), byte for byte:
 * `{"type":"DECIMAL","nullable":false,"precision":10,"scale":2}`. `nullable` is written only when
 * false; ROW fields are `{"name","field_type","description"?,"field_id"}`.
 *
 * Also home of `JsonNode`, the strict reader every metadata JSON parser uses: each wrong shape
 * becomes a FlussError naming the JSON path, never a TypeError.
 */

/** The JSON object of a data type, keys in Fluss's order. */
export function dataTypeToJsonValue(t: DataType): Record<string, unknown> {
  const out: Record<string, unknown> = { type: t.type }
  if (!t.nullable) out.nullable = false
  switch (t.type) {
    case 'CHAR':
    case 'BINARY':
      out.length = t.length
      break
    case 'DECIMAL':
      out.precision = t.precision
      out.scale = t.scale
      break
    case 'TIME_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      out.precision = t.precision
      break
    case 'ARRAY':
      out.element_type = dataTypeToJsonValue(t.elementType)
      break
    case 'MAP':
      out.key_type = dataTypeToJsonValue(t.keyType)
      out.value_type = dataTypeToJsonValue(t.valueType)
      break
    case 'ROW':
      out.fields = t.fields.map(f => ({
        name: f.name,
        field_type: dataTypeToJsonValue(f.type),
        ...(f.description === undefined ? {} : { description: f.description }),
        field_id: f.fieldId,
      }))
      break
  }
  return out
}

export function dataTypeToJson(t: DataType): string {
  return JSON.stringify(dataTypeToJsonValue(t))
}

/** Parses a data type from JSON text/bytes; errors carry `errorName` (INVALID_TABLE_EXCEPTION by default). */
export function dataTypeFromJson(
  json: string | Uint8Array,
  errorName: ErrorName = 'INVALID_TABLE_EXCEPTION',
): DataType {
  return readDataType(JsonNode.parse(json, 'data type', errorName))
}

const SIMPLE: Record<string, () => DataType> = {
  BOOLEAN: DataTypes.BOOLEAN,
  TINYINT: DataTypes.TINYINT,
  SMALLINT: DataTypes.SMALLINT,
  INTEGER: DataTypes.INT,
  BIGINT: DataTypes.BIGINT,
  FLOAT: DataTypes.FLOAT,
  DOUBLE: DataTypes.DOUBLE,
  STRING: DataTypes.STRING,
  BYTES: DataTypes.BYTES,
  DATE: DataTypes.DATE,
}

/** Deepest nesting of ARRAY/MAP/ROW types a parser accepts (a guard against stack exhaustion). */
export const MAX_TYPE_NESTING_DEPTH = 64

/** Reads a data type from a parsed JSON node (nested types included). */
export function readDataType(node: JsonNode, depth = 0): DataType {
  if (depth > MAX_TYPE_NESTING_DEPTH) node.fail(`nests types deeper than ${MAX_TYPE_NESTING_DEPTH} levels`)
  const root = node.require('type').string()
  const nullableNode = node.get('nullable')
  const isNullable = nullableNode === undefined ? true : nullableNode.boolean()
  const t = withNullability(readRoot(node, root, depth + 1), isNullable)
  const problem = dataTypeProblem(t)
  if (problem !== undefined) node.fail(problem)
  return t
}

function readRoot(node: JsonNode, root: string, depth: number): DataType {
  const simple = Object.hasOwn(SIMPLE, root) ? SIMPLE[root] : undefined
  if (simple !== undefined) return simple()
  const int = (key: string) => node.require(key).int()
  switch (root) {
    case 'CHAR':
      return DataTypes.CHAR(int('length'))
    case 'BINARY':
      return DataTypes.BINARY(int('length'))
    case 'DECIMAL':
      return DataTypes.DECIMAL(int('precision'), int('scale'))
    case 'TIME_WITHOUT_TIME_ZONE':
      return DataTypes.TIME(int('precision'))
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return DataTypes.TIMESTAMP(int('precision'))
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return DataTypes.TIMESTAMP_LTZ(int('precision'))
    case 'ARRAY':
      return DataTypes.ARRAY(readDataType(node.require('element_type'), depth))
    case 'MAP':
      return DataTypes.MAP(
        readDataType(node.require('key_type'), depth),
        readDataType(node.require('value_type'), depth),
      )
    case 'ROW':
      return DataTypes.ROW(
        node
          .require('fields')
          .array()
          .map(f => readRowField(f, depth)),
      )
    default:
      return node.require('type').fail(`unknown data type root '${root}'`)
  }
}

function readRowField(node: JsonNode, depth: number): RowField {
  const description = node.get('description')?.string()
  return {
    name: node.require('name').string(),
    type: readDataType(node.require('field_type'), depth),
    ...(description === undefined ? {} : { description }),
    fieldId: node.get('field_id')?.int() ?? -1,
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * A position in parsed JSON. Accessors check the shape and fail with a FlussError of the node's
 * error name, with a message like `Failed to parse table descriptor: schema.columns[2].name must be a string`.
 */
export class JsonNode {
  constructor(
    readonly value: unknown,
    readonly path: string,
    readonly what: string,
    readonly errorName: ErrorName,
  ) {}

  /** Parses JSON text or UTF-8 bytes; the root must be an object. */
  static parse(json: string | Uint8Array, what: string, errorName: ErrorName): JsonNode {
    let value: unknown
    try {
      value = JSON.parse(typeof json === 'string' ? json : UTF8.decode(json))
    } catch (e) {
      throw new FlussError(errorName, `Failed to parse ${what}: ${(e as Error).message}`)
    }
    const node = new JsonNode(value, '', what, errorName)
    node.object()
    return node
  }

  fail(problem: string): never {
    const where = this.path === '' ? '' : `${this.path} `
    throw new FlussError(this.errorName, `Failed to parse ${this.what}: ${where}${problem}`)
  }

  /** The member `key`, or undefined when absent or JSON null. */
  get(key: string): JsonNode | undefined {
    const obj = this.object()
    if (!Object.hasOwn(obj, key) || obj[key] === null) return undefined
    return new JsonNode(obj[key], this.path === '' ? key : `${this.path}.${key}`, this.what, this.errorName)
  }

  require(key: string): JsonNode {
    const child = this.get(key)
    if (child === undefined) this.fail(`is missing required field '${key}'`)
    return child
  }

  object(): Record<string, unknown> {
    const v = this.value
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail('must be a JSON object')
    return v as Record<string, unknown>
  }

  array(): JsonNode[] {
    if (!Array.isArray(this.value)) this.fail('must be a JSON array')
    return (this.value as unknown[]).map(
      (v, i) => new JsonNode(v, `${this.path}[${i}]`, this.what, this.errorName),
    )
  }

  string(): string {
    if (typeof this.value !== 'string') this.fail('must be a string')
    return this.value as string
  }

  /** A 32-bit signed integer, as Java's `int`. */
  int(): number {
    const v = this.value
    if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31)
      this.fail('must be a 32-bit integer')
    return v as number
  }

  /** A safe integer (Java `long` values used as ids and times stay below 2^53). */
  long(): number {
    if (!Number.isSafeInteger(this.value)) this.fail('must be an integer')
    return this.value as number
  }

  boolean(): boolean {
    if (typeof this.value !== 'boolean') this.fail('must be a boolean')
    return this.value as boolean
  }

  stringArray(): string[] {
    return this.array().map(n => n.string())
  }

  /** A string map; number and boolean values are read as their text, as Jackson's `asText()` does. */
  stringMap(): Record<string, string> {
    const entries = Object.entries(this.object()).map(([k, v]): [string, string] => {
      if (typeof v === 'string') return [k, v]
      if (typeof v === 'number' || typeof v === 'boolean') return [k, String(v)]
      return this.fail(`value of '${k}' must be a string`)
    })
    return Object.fromEntries(entries)
  }
}
