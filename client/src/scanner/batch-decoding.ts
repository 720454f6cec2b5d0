import { FlussError } from '@sluice/core/errors'
import { type Column, ColumnMapping, type Schema } from '@sluice/core/metadata'
import { MemoryLogRecords } from '@sluice/core/record'
import type { RowType } from '@sluice/core/types'
import type { SchemaCache } from '../table/value-decoder.js'

/** How the batches of one schema id are read: the Arrow row type, then the mapping to the reader's. */
export interface BatchPlan {
  readonly readRowType: RowType
  readonly mapping: ColumnMapping
}

function rowTypeOf(columns: readonly Column[]): RowType {
  return {
    type: 'ROW',
    nullable: true,
    fields: columns.map(c => ({ name: c.name, type: c.type, fieldId: c.columnId })),
  }
}

/**
 * The schema side of reading log batches (Fluss's `LogRecordReadContext` with its `SchemaGetter`):
 * every batch names the schema id it was written with, and its rows are read as rows of the
 * reader's schema by column id (`ColumnMapping`). A projected fetch names the reader's schema id,
 * and the server returns, for a batch of any version, exactly the columns asked for: each in the
 * type that batch's schema has, or as all-NULL columns where it has none. Schemas a response names
 * are loaded before it is decoded (`missing` / `load`), so decoding stays synchronous.
 */
export class LogBatchDecoding {
  readonly #target: readonly Column[]
  readonly #plans = new Map<number, BatchPlan>()

  constructor(
    readonly schemaId: number,
    readonly schema: Schema,
    /** Pushed-down column positions of `schema` (ascending), or undefined for every column. */
    readonly pushdown: readonly number[] | undefined,
    private readonly schemas: Pick<SchemaCache, 'known' | 'get'>,
  ) {
    this.#target = pushdown === undefined ? schema.columns : pushdown.map(i => schema.columns[i])
    this.#plans.set(schemaId, {
      readRowType: rowTypeOf(this.#target),
      mapping: ColumnMapping.ofColumns(this.#target, this.#target),
    })
  }

  /** The plan for batches of `schemaId`; SCHEMA_NOT_EXIST when that schema was not loaded. */
  plan(schemaId: number): BatchPlan {
    let plan = this.#plans.get(schemaId)
    if (plan === undefined) {
      const source = this.schemas.known(schemaId)
      if (source === undefined) {
        throw new FlussError('SCHEMA_NOT_EXIST', `Schema ${schemaId} of the table is not loaded`)
      }
      const byId = new Map(source.columns.map(c => [c.columnId, c]))
      const read =
        this.pushdown === undefined ? source.columns : this.#target.map(t => byId.get(t.columnId) ?? t)
      plan = { readRowType: rowTypeOf(read), mapping: ColumnMapping.ofColumns(read, this.#target) }
      this.#plans.set(schemaId, plan)
    }
    return plan
  }

  /** Schema ids named by the batches of `records` that are not loaded yet. */
  missing(records: Uint8Array | null): number[] {
    if (records === null || records.length === 0) return []
    const out = new Set<number>()
    try {
      for (const batch of new MemoryLogRecords(
        Buffer.from(records.buffer, records.byteOffset, records.length),
      ).batches()) {
        if (
          batch.recordCount > 0 &&
          !this.#plans.has(batch.schemaId) &&
          this.schemas.known(batch.schemaId) === undefined
        )
          out.add(batch.schemaId)
      }
    } catch {
      // A truncated last batch: decoding reports it (or fetches it again).
    }
    return [...out]
  }

  /** Loads schemas (GET_TABLE_SCHEMA, once each). */
  async load(schemaIds: readonly number[]): Promise<void> {
    await Promise.all(schemaIds.map(id => this.schemas.get(id)))
  }
}
