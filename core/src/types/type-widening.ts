import { type DataType, isNested, type TypeRoot, typeEquals, typeToString } from './data-type.js'

/**
 * Which column type changes keep every stored value valid and readable without rewriting it: the
 * widenings of `ALTER TABLE … MODIFY COLUMN` (beyond Fluss 0.9.1, which refuses every type change).
 * They are the promotions Iceberg allows, plus the ones Iceberg does not even see (TINYINT and
 * SMALLINT are Iceberg ints, CHAR is an Iceberg string):
 *
 *   TINYINT → SMALLINT → INT → BIGINT   (any step up)
 *   FLOAT → DOUBLE
 *   DECIMAL(p, s) → DECIMAL(p', s) with p' > p (the scale stays)
 *   CHAR(n) → CHAR(m) with m > n, CHAR(n) → STRING
 *
 * Nullability is decided apart (`nullabilityChangeProblem`): NOT NULL may become nullable, never
 * the other way. Nested types (ARRAY, MAP, ROW) keep their type.
 */

const INTEGER_RANK: Partial<Record<TypeRoot, number>> = { TINYINT: 0, SMALLINT: 1, INTEGER: 2, BIGINT: 3 }

/** How `from` becomes `to` (nullability ignored): the same type, or a widening. */
export type TypeChangeKind = 'same' | 'widening'

/**
 * The kind of a column type change, or why it is refused (a sentence naming both types); the
 * nullability of the two types is not compared here.
 */
export function classifyTypeChange(from: DataType, to: DataType): TypeChangeKind | { refused: string } {
  if (typeEquals(from, to, true)) return 'same'
  const refused = (why: string) => ({
    refused: `cannot change the type from ${typeToString(from)} to ${typeToString(to)}: ${why}`,
  })
  if (isNested(from) || isNested(to)) return refused('the type of a nested column cannot change')
  const a = INTEGER_RANK[from.type]
  const b = INTEGER_RANK[to.type]
  if (a !== undefined && b !== undefined) {
    return b > a ? 'widening' : refused('narrowing an integer type could lose stored values')
  }
  if (from.type === 'FLOAT' && to.type === 'DOUBLE') return 'widening'
  if (from.type === 'DOUBLE' && to.type === 'FLOAT') {
    return refused('narrowing DOUBLE to FLOAT could lose stored values')
  }
  if (from.type === 'DECIMAL' && to.type === 'DECIMAL') {
    if (from.scale !== to.scale) return refused('the scale of a DECIMAL cannot change')
    return to.precision > from.precision
      ? 'widening'
      : refused('lowering the precision of a DECIMAL could lose stored values')
  }
  if (from.type === 'CHAR' && to.type === 'STRING') return 'widening'
  if (from.type === 'CHAR' && to.type === 'CHAR') {
    return to.length > from.length ? 'widening' : refused('shortening a CHAR could cut stored values')
  }
  if (from.type === 'STRING' && to.type === 'CHAR')
    return refused('a STRING may hold longer values than a CHAR')
  return refused(
    'only widening type changes are supported (TINYINT → SMALLINT → INT → BIGINT, FLOAT → DOUBLE, DECIMAL precision up, CHAR length up or to STRING)',
  )
}

/** Why a change of nullability is refused, or undefined: a nullable column may not become NOT NULL. */
export function nullabilityChangeProblem(from: DataType, to: DataType): string | undefined {
  return from.nullable && !to.nullable
    ? 'a nullable column cannot become NOT NULL (stored rows may hold NULL)'
    : undefined
}
