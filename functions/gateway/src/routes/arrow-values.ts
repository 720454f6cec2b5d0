import { type DataType, Decimal, typeToString, type Value } from '@sluice/core'
import { FlussError } from '@sluice/core/errors'
import { unscaledForColumn } from '@sluice/core/row'
import { invalidArgument } from '../errors/gateway-error.js'

/**
 * How the values of one Arrow field of a request body become values of a table column, nested
 * children included. Arrow has no CHAR/BINARY(n) of its own, and Fluss writes TIMESTAMP_LTZ as an
 * Arrow timestamp without a time zone (the values are instants either way), so a CHAR takes a
 * Utf8, a BINARY a Binary and a TIMESTAMP_LTZ a timestamp with or without a zone; decimals are
 * rescaled exactly to the column's scale. A Struct's children are matched to the ROW's fields by
 * name (fields it lacks are null), as the body's fields are matched to columns; List elements and
 * Map keys and values by position, whatever they are named.
 */
export type ArrowValueConverter = (value: Value, path: string) => Value

const asIs: ArrowValueConverter = v => v

function sameRoot(column: DataType, field: DataType): boolean {
  if (column.type === field.type) return true
  if (column.type === 'CHAR') return field.type === 'STRING'
  if (column.type === 'BINARY') return field.type === 'BYTES'
  if (column.type === 'TIMESTAMP_WITH_LOCAL_TIME_ZONE') return field.type === 'TIMESTAMP_WITHOUT_TIME_ZONE'
  return false
}

function incompatible(name: string, column: DataType, field: DataType, why?: string) {
  return invalidArgument(
    `Arrow field '${name}' has type ${typeToString(field)}, the column is ${typeToString(column)}${why === undefined ? '' : ` (${why})`}`,
  )
}

/**
 * The converter of values of an Arrow field of (Fluss) type `field` into a column of type
 * `column`; `name` is the field's path in errors (`tags.element`). Throws invalid_argument when
 * the types do not fit.
 */
export function arrowValueConverter(column: DataType, field: DataType, name: string): ArrowValueConverter {
  if (!sameRoot(column, field)) throw incompatible(name, column, field)
  switch (column.type) {
    case 'DECIMAL':
      return (v, path) => {
        if (v === null) return null
        try {
          return new Decimal(unscaledForColumn(column, v, path), column.scale)
        } catch (e) {
          if (e instanceof FlussError) throw invalidArgument(`${path}: ${e.message}`)
          throw e
        }
      }
    case 'ARRAY': {
      const f = field as typeof column
      const element = arrowValueConverter(column.elementType, f.elementType, `${name}.element`)
      if (element === asIs) return asIs
      return (v, path) => (v === null ? null : (v as Value[]).map((e, i) => element(e, `${path}[${i}]`)))
    }
    case 'MAP': {
      const f = field as typeof column
      const key = arrowValueConverter(column.keyType, f.keyType, `${name}.key`)
      const value = arrowValueConverter(column.valueType, f.valueType, `${name}.value`)
      if (key === asIs && value === asIs) return asIs
      return (v, path) => {
        if (v === null) return null
        const out = new Map<Value, Value>()
        for (const [k, e] of v as Map<Value, Value>) {
          const at = `${path}[${JSON.stringify(String(k))}]`
          out.set(key(k, `${at}.key`), value(e, at))
        }
        return out
      }
    }
    case 'ROW': {
      const f = field as typeof column
      const index = new Map(column.fields.map((c, i) => [c.name, i]))
      const sources = f.fields.map(child => {
        const i = index.get(child.name)
        if (i === undefined) throw incompatible(name, column, field, `no ROW field '${child.name}'`)
        return { i, convert: arrowValueConverter(column.fields[i].type, child.type, `${name}.${child.name}`) }
      })
      const names = column.fields.map(c => c.name)
      const n = column.fields.length
      const identity = sources.length === n && sources.every((s, k) => s.i === k && s.convert === asIs)
      if (identity) return asIs
      return (v, path) => {
        if (v === null) return null
        const out = new Array<Value>(n).fill(null)
        sources.forEach((s, k) => {
          out[s.i] = s.convert((v as Value[])[k], `${path}.${names[s.i]}`)
        })
        return out
      }
    }
    default:
      return asIs
  }
}
