import { FlussError, isFlussError } from '@sluice/core/errors'
import type { Schema, TableInfo } from '@sluice/core/metadata'
import type { ControlPlane } from '../control-plane/control-plane.js'
import type { KvSchemaSource } from '../kv/index.js'

/** Schemas a table may have had before its current one are loaded at most this far back. */
const PRELOADED_SCHEMAS_MAX = 1000

/**
 * The schemas of one primary-key table as its KvTablet reads them: synchronously (`latest`,
 * `byId`). Every schema up to the table's current one is loaded before the KvTablet opens;
 * a batch of a newer schema (the table was altered since) is made known with `ensure` before it
 * is applied, which is the only control-plane read on the put path and happens once per new schema.
 */
export class ReplicaSchemas implements KvSchemaSource {
  readonly #byId = new Map<number, Schema>()
  #latestId: number

  private constructor(
    private readonly controlPlane: ControlPlane,
    private readonly tableId: number,
    latestId: number,
  ) {
    this.#latestId = latestId
  }

  /** Loads every schema of the table up to its current one (missing older ids are skipped). */
  static async load(controlPlane: ControlPlane, info: TableInfo): Promise<ReplicaSchemas> {
    const schemas = new ReplicaSchemas(controlPlane, info.tableId, info.schemaId)
    schemas.#byId.set(info.schemaId, info.schema)
    const first = Math.max(0, info.schemaId - PRELOADED_SCHEMAS_MAX)
    const older = Array.from({ length: info.schemaId - first }, (_, i) => first + i)
    await Promise.all(older.map(id => schemas.#tryLoad(id)))
    return schemas
  }

  latest(): { readonly schemaId: number; readonly schema: Schema } {
    return { schemaId: this.#latestId, schema: this.#byId.get(this.#latestId) as Schema }
  }

  byId(schemaId: number): Schema | undefined {
    return this.#byId.get(schemaId)
  }

  /** Makes `schemaId` known (loading it once); a newer id becomes the latest. Unknown ids stay unknown. */
  async ensure(schemaId: number): Promise<void> {
    if (!Number.isSafeInteger(schemaId) || schemaId < 0 || this.#byId.has(schemaId)) return
    if ((await this.#tryLoad(schemaId)) && schemaId > this.#latestId) this.#latestId = schemaId
  }

  async #tryLoad(schemaId: number): Promise<boolean> {
    try {
      this.#byId.set(schemaId, await this.controlPlane.getSchema(this.tableId, schemaId))
      return true
    } catch (e) {
      if (isFlussError(e, 'SCHEMA_NOT_EXIST')) return false
      throw e instanceof FlussError ? e : new FlussError('KV_STORAGE_EXCEPTION', String(e))
    }
  }
}
