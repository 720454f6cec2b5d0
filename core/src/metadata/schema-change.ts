import type { DataType } from '../types/data-type.js'

/**
 * Column changes of `ALTER TABLE` (Fluss's `TableChange.SchemaChange`): add, drop, rename and
 * modify. Fluss 0.9.1 applies only adding a nullable column at the end; the others are Sluice's
 * (see `schema-evolution.ts` for what each may do).
 *
 * One ALTER_TABLE request carries the changes grouped by kind (`PbAddColumn`, `PbDropColumn`,
 * `PbRenameColumn`, `PbModifyColumn`), so the server applies them in that order: every add, then
 * every drop, every rename, every modify; a list is ordered the same way by `orderAsSent`.
 */

/** Where a column goes (Fluss's `ColumnPositionType`: LAST = 0, FIRST = 1, AFTER = 3). */
export type ColumnPosition = 'LAST' | 'FIRST' | 'AFTER'

export interface AddColumn {
  readonly kind: 'add'
  readonly name: string
  readonly dataType: DataType
  readonly comment?: string
  /** Write default (text, see `default-value.ts`). */
  readonly defaultValue?: string
  /** Only LAST is supported (Fluss's rule). */
  readonly position?: ColumnPosition
}

export interface DropColumn {
  readonly kind: 'drop'
  readonly name: string
}

export interface RenameColumn {
  readonly kind: 'rename'
  readonly name: string
  readonly newName: string
}

/**
 * Changes the type (a widening), comment or default of a column. Left out: unchanged. A null
 * comment or default removes it.
 */
export interface ModifyColumn {
  readonly kind: 'modify'
  readonly name: string
  readonly dataType?: DataType
  readonly comment?: string | null
  readonly defaultValue?: string | null
  /** Columns keep their position: any position is refused. */
  readonly position?: ColumnPosition
}

export type SchemaChange = AddColumn | DropColumn | RenameColumn | ModifyColumn

const ORDER: Record<SchemaChange['kind'], number> = { add: 0, drop: 1, rename: 2, modify: 3 }

/** The changes in the order one ALTER_TABLE request applies them (by kind, stable within a kind). */
export function orderAsSent(changes: readonly SchemaChange[]): SchemaChange[] {
  return changes
    .map((c, i) => ({ c, i }))
    .sort((a, b) => ORDER[a.c.kind] - ORDER[b.c.kind] || a.i - b.i)
    .map(x => x.c)
}

/** `PbAddColumn.column_position_type` and `PbModifyColumn.column_position_type` values. */
export const COLUMN_POSITION_CODES: Readonly<Record<ColumnPosition, number>> = {
  LAST: 0,
  FIRST: 1,
  AFTER: 3,
}

/** The position of a wire code; undefined for a code Fluss does not define. */
export function columnPositionOf(code: number): ColumnPosition | undefined {
  return (Object.keys(COLUMN_POSITION_CODES) as ColumnPosition[]).find(p => COLUMN_POSITION_CODES[p] === code)
}
