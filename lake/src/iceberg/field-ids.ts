/**
 * The Iceberg field id of a Fluss column (`lakeSchemaOf`): its column id + 1. Fluss never gives a
 * column id again, so a column keeps its lake field id through renames and type promotions, a
 * dropped column's id is never reused, and readers match lake columns to Fluss columns by id.
 */
export function lakeFieldIdOf(columnId: number): number {
  return columnId + 1
}

/** The Fluss column id of a lake field id of a table column (`lakeFieldIdOf` backwards). */
export function flussColumnIdOf(fieldId: number): number {
  return fieldId - 1
}
