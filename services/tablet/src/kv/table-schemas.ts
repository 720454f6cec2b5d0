import { FlussError, isFlussError } from '@sluice/core/errors'
import type { Schema } from '@sluice/core/metadata'
import type { RowType } from '@sluice/core/types'
import { type KvKeys, type KvSchemaSource, SchemaContext } from './kv-schemas.js'

/** Schemas a table may have had before its current one are loaded at most this far back. */
const PRELOADED_SCHEMAS_MAX = 1000

/** Loads one schema of the table; rejects with SCHEMA_NOT_EXIST when the id is unknown. */
export type SchemaLoader = (schemaId: number) => Promise<Schema>

interface Entry {
  readonly schema: Schema
  /** What the KV write path derives from the schema, built on first use. */
  context?: SchemaContext
}

/**
 * The schemas of one table, by id, and the latest of them: what produce validation and projected
 * fetches read (`rowType`, loading an id once) and what a KvTablet reads synchronously (`latest`,
 * `context`). An id is loaded once and kept; an id that does not exist stays unknown (and is asked
 * for again). A newer id, once loaded, becomes the latest (the table was altered). A primary-key
 * table's schemas also carry the write contexts of its KV keys.
 */
export class TableSchemas implements KvSchemaSource {
  readonly #entries = new Map<number, Entry>()
  readonly #loading = new Map<number, Promise<Schema>>()
  #latestId: number

  constructor(
    schemaId: number,
    schema: Schema,
    /** How the table's KV keys are made; null for a log table (no KV contexts). */
    private readonly keys: KvKeys | null,
    private readonly load: SchemaLoader,
  ) {
    this.#latestId = schemaId
    this.#entries.set(schemaId, { schema })
  }

  get latestId(): number {
    return this.#latestId
  }

  /** A known schema by id. */
  schema(schemaId: number): Schema | undefined {
    return this.#entries.get(schemaId)?.schema
  }

  latest(): SchemaContext {
    return this.context(this.#latestId)
  }

  context(schemaId: number): SchemaContext {
    const entry = this.#entries.get(schemaId)
    if (entry === undefined) {
      throw new FlussError('SCHEMA_NOT_EXIST', `Schema with ID ${schemaId} not found`)
    }
    if (entry.context === undefined) {
      if (this.keys === null) {
        throw new FlussError('NON_PRIMARY_KEY_TABLE_EXCEPTION', 'a log table has no KV key columns')
      }
      entry.context = new SchemaContext(schemaId, entry.schema, this.keys)
    }
    return entry.context
  }

  /** The row type of a schema id, loaded once when unknown; SCHEMA_NOT_EXIST when there is none. */
  rowType(schemaId: number): RowType | Promise<RowType> {
    const known = this.#entries.get(schemaId)
    if (known !== undefined) return known.schema.rowType
    return this.#fetch(schemaId).then(schema => schema.rowType)
  }

  /** Makes `schemaId` known (loading it once) before a batch of it is applied; unknown ids stay unknown. */
  async ensure(schemaId: number): Promise<void> {
    if (!Number.isSafeInteger(schemaId) || schemaId < 0 || this.#entries.has(schemaId)) return
    await this.#tryFetch(schemaId)
  }

  /** Loads every schema the table may have had before its latest one (missing ids are skipped). */
  async preload(): Promise<void> {
    const first = Math.max(0, this.#latestId - PRELOADED_SCHEMAS_MAX)
    const older = Array.from({ length: this.#latestId - first }, (_, i) => first + i)
    await Promise.all(older.filter(id => !this.#entries.has(id)).map(id => this.#tryFetch(id)))
  }

  /** A schema the control plane names (e.g. in a new TableInfo); a newer id becomes the latest. */
  add(schemaId: number, schema: Schema): void {
    if (!this.#entries.has(schemaId)) this.#entries.set(schemaId, { schema })
    if (schemaId > this.#latestId) this.#latestId = schemaId
  }

  #fetch(schemaId: number): Promise<Schema> {
    const loading = this.#loading.get(schemaId)
    if (loading !== undefined) return loading
    const fetched = this.load(schemaId).then(
      schema => {
        this.#loading.delete(schemaId)
        this.add(schemaId, schema)
        return schema
      },
      e => {
        this.#loading.delete(schemaId)
        throw e
      },
    )
    this.#loading.set(schemaId, fetched)
    return fetched
  }

  async #tryFetch(schemaId: number): Promise<void> {
    try {
      await this.#fetch(schemaId)
    } catch (e) {
      if (isFlussError(e, 'SCHEMA_NOT_EXIST')) return
      throw e instanceof FlussError ? e : new FlussError('KV_STORAGE_EXCEPTION', String(e))
    }
  }
}

/**
 * The schemas of a table that has exactly one, `schema` (tests, benchmarks, tools); its KV keys are
 * the schema's primary key unless `keys` says otherwise.
 */
export function fixedSchemaSource(schemaId: number, schema: Schema, keys?: Partial<KvKeys>): TableSchemas {
  const kvKeys = { physicalPrimaryKeys: schema.primaryKeyColumnNames, ...keys }
  return new TableSchemas(schemaId, schema, kvKeys, async id => {
    throw new FlussError('SCHEMA_NOT_EXIST', `Schema with ID ${id} not found`)
  })
}
