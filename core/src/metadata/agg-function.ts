import { type DataType, type TypeRoot, typeToString } from '../types/data-type.js'

/**
 * Aggregation functions of the aggregation merge engine (Fluss's `AggFunctionType`, `AggFunction`).
 * A function is stored in the schema, per non-primary-key column; its JSON form is
 * `{"type":"listagg","parameters":{"delimiter":";"}}`.
 */

export const AGG_FUNCTION_TYPES = [
  'sum',
  'product',
  'max',
  'min',
  'last_value',
  'last_value_ignore_nulls',
  'first_value',
  'first_value_ignore_nulls',
  'listagg',
  'string_agg',
  'bool_and',
  'bool_or',
  'rbm32',
  'rbm64',
] as const

export type AggFunctionType = (typeof AGG_FUNCTION_TYPES)[number]

export interface AggFunction {
  readonly type: AggFunctionType
  readonly parameters: Readonly<Record<string, string>>
}

/** The LISTAGG / STRING_AGG separator parameter. */
export const PARAM_DELIMITER = 'delimiter'

export function aggFunction(
  type: AggFunctionType,
  parameters: Readonly<Record<string, string>> = {},
): AggFunction {
  return { type, parameters: Object.fromEntries(Object.entries(parameters)) }
}

/** Constructors in the style of Fluss's `AggFunctions`. */
export const AggFunctions = {
  SUM: () => aggFunction('sum'),
  PRODUCT: () => aggFunction('product'),
  MAX: () => aggFunction('max'),
  MIN: () => aggFunction('min'),
  LAST_VALUE: () => aggFunction('last_value'),
  LAST_VALUE_IGNORE_NULLS: () => aggFunction('last_value_ignore_nulls'),
  FIRST_VALUE: () => aggFunction('first_value'),
  FIRST_VALUE_IGNORE_NULLS: () => aggFunction('first_value_ignore_nulls'),
  LISTAGG: (delimiter?: string) =>
    aggFunction('listagg', delimiter === undefined ? {} : { [PARAM_DELIMITER]: delimiter }),
  STRING_AGG: (delimiter?: string) =>
    aggFunction('string_agg', delimiter === undefined ? {} : { [PARAM_DELIMITER]: delimiter }),
  BOOL_AND: () => aggFunction('bool_and'),
  BOOL_OR: () => aggFunction('bool_or'),
  RBM32: () => aggFunction('rbm32'),
  RBM64: () => aggFunction('rbm64'),
} as const

/** Parses `sum`, `LAST_VALUE`, `last-value-ignore-nulls`...; undefined when unknown. */
export function parseAggFunctionType(name: string): AggFunctionType | undefined {
  const normalized = name.replaceAll('-', '_').trim().toLowerCase()
  return (AGG_FUNCTION_TYPES as readonly string[]).includes(normalized)
    ? (normalized as AggFunctionType)
    : undefined
}

const NUMERIC: readonly TypeRoot[] = [
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
  'DECIMAL',
]
const MAX_MIN: readonly TypeRoot[] = [
  'CHAR',
  'STRING',
  ...NUMERIC,
  'DATE',
  'TIME_WITHOUT_TIME_ZONE',
  'TIMESTAMP_WITHOUT_TIME_ZONE',
  'TIMESTAMP_WITH_LOCAL_TIME_ZONE',
]
/** Every root, in Fluss's `DataTypeRoot` declaration order. */
const ALL: readonly TypeRoot[] = [
  'CHAR',
  'STRING',
  'BOOLEAN',
  'BINARY',
  'BYTES',
  'DECIMAL',
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
  'DATE',
  'TIME_WITHOUT_TIME_ZONE',
  'TIMESTAMP_WITHOUT_TIME_ZONE',
  'TIMESTAMP_WITH_LOCAL_TIME_ZONE',
  'ARRAY',
  'MAP',
  'ROW',
]

export function aggSupportedTypeRoots(type: AggFunctionType): readonly TypeRoot[] {
  switch (type) {
    case 'bool_and':
    case 'bool_or':
      return ['BOOLEAN']
    case 'rbm32':
    case 'rbm64':
      return ['BYTES']
    case 'listagg':
    case 'string_agg':
      return ['STRING', 'CHAR']
    case 'sum':
    case 'product':
      return NUMERIC
    case 'max':
    case 'min':
      return MAX_MIN
    default:
      return ALL
  }
}

/** `sum` or `listagg{delimiter=;}`, as Fluss prints a function. */
export function aggFunctionToString(f: AggFunction): string {
  const entries = Object.entries(f.parameters)
  return entries.length === 0 ? f.type : `${f.type}{${entries.map(([k, v]) => `${k}=${v}`).join(', ')}}`
}

/**
 * Why `f` cannot aggregate a column of type `t` (unsupported parameter, empty delimiter, wrong
 * type), in Fluss's words; undefined when it can.
 */
export function aggFunctionProblem(f: AggFunction, t: DataType): string | undefined {
  const supportsDelimiter = f.type === 'listagg' || f.type === 'string_agg'
  for (const [name, value] of Object.entries(f.parameters)) {
    if (!supportsDelimiter || name !== PARAM_DELIMITER) {
      const supported = supportsDelimiter ? `[${PARAM_DELIMITER}]` : 'none'
      return `Parameter '${name}' is not supported for aggregation function '${f.type}'. Supported parameters: ${supported}`
    }
    if (value === '') {
      return `Parameter '${name}' for aggregation function '${f.type}' must be a non-empty string`
    }
  }
  const roots = aggSupportedTypeRoots(f.type)
  if (!roots.includes(t.type)) {
    return `Data type for ${f.type} column must be part of [${roots.join(', ')}] but was '${typeToString(t)}'.`
  }
  return undefined
}
