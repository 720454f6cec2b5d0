import { FlussError } from '../errors/index.js'
import type { Row, Value } from '../row/value.js'
import { type ValueConverter, valueNarrower, valueWidener } from '../row/value-widening.js'
import { typeToString } from '../types/data-type.js'
import { classifyTypeChange } from '../types/type-widening.js'
import type { Column, Schema } from './schema.js'

/**
 * How rows written under one schema version are read under another (Fluss's
 * `SchemaUtil.getIndexMapping` + `ProjectedRow`, by column id): each target column takes the source
 * column with the same id, so a renamed column is found under its new name, a column added since
 * reads NULL (padding), a dropped column is left out, and a widened column's values are converted
 * (INT → BIGINT turns numbers into bigints). A reader whose schema is older than a row's gets the
 * values of widened columns narrowed back when they fit, STALE_SCHEMA when they do not. Stored rows
 * are never rewritten for this: the mapping runs where rows are read.
 */
export class ColumnMapping {
  /** Per target column: its position in the source row, or -1 (read as NULL). */
  readonly sourceIndexes: readonly number[]
  /** Per target column: the conversion of a widened (or narrowed-back) column's values, if any. */
  readonly wideners: readonly (ValueConverter | undefined)[]
  /** True when a source row already is a target row (same columns, same order, same JS types). */
  readonly identity: boolean

  private constructor(
    sourceIndexes: number[],
    wideners: (ValueConverter | undefined)[],
    sourceWidth: number,
  ) {
    this.sourceIndexes = sourceIndexes
    this.wideners = wideners
    this.identity =
      sourceIndexes.length === sourceWidth &&
      sourceIndexes.every((s, i) => s === i) &&
      wideners.every(w => w === undefined)
  }

  /** Rows of `source` read as rows of `target`. */
  static between(source: Schema, target: Schema): ColumnMapping {
    return ColumnMapping.ofColumns(source.columns, target.columns)
  }

  /** Rows with `source`'s columns read as rows with `target`'s columns (a projection, possibly). */
  static ofColumns(source: readonly Column[], target: readonly Column[]): ColumnMapping {
    const byId = new Map(source.map((c, i) => [c.columnId, i]))
    const indexes: number[] = []
    const wideners: (ValueConverter | undefined)[] = []
    for (const t of target) {
      const i = byId.get(t.columnId) ?? -1
      indexes.push(i)
      if (i < 0) {
        wideners.push(undefined)
        continue
      }
      const s = source[i]
      const kind = classifyTypeChange(s.type, t.type)
      if (kind === 'same' || kind === 'widening') {
        wideners.push(kind === 'widening' ? valueWidener(s.type, t.type) : undefined)
      } else if (classifyTypeChange(t.type, s.type) === 'widening') {
        // A row of a newer schema read with an older one: values that fit are narrowed back.
        wideners.push(valueNarrower(s.type, t.type, t.name))
      } else {
        throw new FlussError(
          'INVALID_TABLE_EXCEPTION',
          `Expected datatype of column(id=${t.columnId},name=${t.name}) is [${typeToString(t.type)}], while the actual datatype is [${typeToString(s.type)}]`,
        )
      }
    }
    return new ColumnMapping(indexes, wideners, source.length)
  }

  /** The target row of a source row (the row itself when the mapping is the identity). */
  map(row: Row): Row {
    if (this.identity) return row
    const n = this.sourceIndexes.length
    const out: Value[] = new Array(n)
    for (let i = 0; i < n; i++) {
      const s = this.sourceIndexes[i]
      const v = s < 0 || s >= row.length ? null : row[s]
      const widen = this.wideners[i]
      out[i] = widen === undefined ? v : widen(v)
    }
    return out
  }

  /** Target positions of source positions; source columns the target lacks are left out. */
  targetPositions(sourcePositions: readonly number[]): number[] {
    const out: number[] = []
    for (const p of sourcePositions) {
      const t = this.sourceIndexes.indexOf(p)
      if (t >= 0) out.push(t)
    }
    return out
  }
}

/**
 * Mappings from the schema versions of one table to one target schema, built once per version.
 * `schemaOf` must know every version asked for (callers load unknown ids first).
 */
export class ColumnMappings {
  readonly #byId = new Map<number, ColumnMapping>()

  constructor(
    readonly target: Schema,
    private readonly schemaOf: (schemaId: number) => Schema,
  ) {}

  of(schemaId: number): ColumnMapping {
    let mapping = this.#byId.get(schemaId)
    if (mapping === undefined) {
      mapping = ColumnMapping.between(this.schemaOf(schemaId), this.target)
      this.#byId.set(schemaId, mapping)
    }
    return mapping
  }
}
