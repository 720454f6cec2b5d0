import type { SchemaContext } from '../../kv-schemas.js'
import { aggFunctionOf, createFieldAggregator, type FieldAggregator } from './field-aggregators.js'

/** The aggregate function of every column of one schema version (Fluss's `AggregationContext`). */
export class AggregationContext {
  readonly aggregators: readonly FieldAggregator[]
  readonly primaryKey: readonly boolean[]

  constructor(readonly schema: SchemaContext) {
    const pk = new Set(schema.primaryKeyIndexes)
    this.primaryKey = schema.schema.columns.map((_, i) => pk.has(i))
    this.aggregators = schema.schema.columns.map((column, i) =>
      createFieldAggregator(aggFunctionOf(column, pk.has(i)), column.type, column.name),
    )
  }
}

/** Contexts by schema context (one per schema version in use), and column mappings between them. */
export class AggregationContextCache {
  readonly #contexts = new WeakMap<SchemaContext, AggregationContext>()
  readonly #mappings = new WeakMap<SchemaContext, WeakMap<SchemaContext, readonly number[]>>()

  get(schema: SchemaContext): AggregationContext {
    let context = this.#contexts.get(schema)
    if (context === undefined) {
      context = new AggregationContext(schema)
      this.#contexts.set(schema, context)
    }
    return context
  }

  /**
   * Where each column of `target` sits in rows of `source` (matched by column id), -1 when
   * `source` has no such column.
   */
  mapping(source: SchemaContext, target: SchemaContext): readonly number[] {
    let byTarget = this.#mappings.get(source)
    if (byTarget === undefined) {
      byTarget = new WeakMap()
      this.#mappings.set(source, byTarget)
    }
    let mapping = byTarget.get(target)
    if (mapping === undefined) {
      mapping = target.columnIds.map(id => source.indexByColumnId.get(id) ?? -1)
      byTarget.set(target, mapping)
    }
    return mapping
  }
}
