import { FlussError, toFlussError } from '@sluice/core/errors'
import { ColumnMapping, type Schema, type TableInfo } from '@sluice/core/metadata'
import { CompactedRowDecoder, decodeValue, type Row, SCHEMA_ID_LENGTH } from '@sluice/core/row'
import type { Admin } from '../admin/admin.js'

/** Most schema versions of one table kept by a SchemaCache. */
const MAX_CACHED_SCHEMAS = 64

/**
 * The schema versions of one table, fetched with GET_TABLE_SCHEMA on first use and kept (Fluss's
 * `SchemaGetter`). The table's current schema is known from the start. A failed fetch is not kept,
 * so the next use asks again.
 */
export class SchemaCache {
  readonly #info: TableInfo
  readonly #admin: Pick<Admin, 'getTableSchema'>
  readonly #schemas = new Map<number, Promise<Schema>>()
  readonly #loaded = new Map<number, Schema>()

  constructor(info: TableInfo, admin: Pick<Admin, 'getTableSchema'>) {
    this.#info = info
    this.#admin = admin
    this.#schemas.set(info.schemaId, Promise.resolve(info.schema))
    this.#loaded.set(info.schemaId, info.schema)
  }

  get info(): TableInfo {
    return this.#info
  }

  get(schemaId: number): Promise<Schema> {
    let schema = this.#schemas.get(schemaId)
    if (schema === undefined) {
      if (this.#schemas.size >= MAX_CACHED_SCHEMAS) this.#evictOne()
      schema = this.#admin.getTableSchema(this.#info.tablePath, schemaId).then(s => {
        this.#loaded.set(schemaId, s.schema)
        return s.schema
      })
      schema.catch(() => this.#schemas.delete(schemaId))
      this.#schemas.set(schemaId, schema)
    }
    return schema
  }

  /** A schema fetched before (synchronously), or undefined. */
  known(schemaId: number): Schema | undefined {
    return this.#loaded.get(schemaId)
  }

  #evictOne(): void {
    for (const id of this.#schemas.keys()) {
      if (id !== this.#info.schemaId) {
        this.#schemas.delete(id)
        this.#loaded.delete(id)
        return
      }
    }
  }
}

/** Decodes `length` bytes of a CompactedRow at `offset` into a row of the table's current schema. */
type Decode = (bytes: Uint8Array, offset?: number, length?: number) => Row

/**
 * Decodes stored KV values (`[schemaId][CompactedRow]`, as LOOKUP, PREFIX_LOOKUP and LIMIT_SCAN
 * return them) into rows of the table's current schema: a row stored under another schema is mapped
 * column by column through the column ids, so columns added since are NULL (Fluss's
 * `FixedSchemaDecoder`). Unknown schema ids are fetched once through the SchemaCache. A malformed
 * value is CORRUPT_RECORD_EXCEPTION.
 */
export class ValueDecoder {
  readonly #info: TableInfo
  readonly #schemas: SchemaCache
  readonly #decoders = new Map<number, Decode>()

  constructor(info: TableInfo, schemas: SchemaCache) {
    this.#info = info
    this.#schemas = schemas
    const decoder = new CompactedRowDecoder(info.rowType)
    this.#decoders.set(info.schemaId, (bytes, offset, length) => decoder.decode(bytes, offset, length))
  }

  /** Decodes every value, fetching the schemas it does not know yet. */
  decodeAll(values: readonly Uint8Array[]): Promise<Row[]> {
    return this.decodeRecords(values.map(v => decodeValue(v)))
  }

  /**
   * Decodes one value at once when its schema is loaded already (the current schema or one fetched
   * before); undefined when it is not (then `decodeAll` fetches it).
   */
  decodeLoaded(value: Buffer): Row | undefined {
    if (value.length < SCHEMA_ID_LENGTH) decodeValue(value) // throws CORRUPT_RECORD_EXCEPTION
    return this.#decoders.get(value.readInt16LE(0))?.(
      value,
      SCHEMA_ID_LENGTH,
      value.length - SCHEMA_ID_LENGTH,
    )
  }

  /** Decodes rows given with their schema ids (value record batches carry them apart). */
  async decodeRecords(
    records: readonly { readonly schemaId: number; readonly row: Buffer }[],
  ): Promise<Row[]> {
    const missing = [...new Set(records.map(v => v.schemaId))].filter(id => !this.#decoders.has(id))
    if (missing.length > 0) await Promise.all(missing.map(id => this.#load(id)))
    return records.map(v => this.#decoder(v.schemaId)(v.row))
  }

  #decoder(schemaId: number): Decode {
    const decode = this.#decoders.get(schemaId)
    if (decode === undefined) throw new FlussError('SCHEMA_NOT_EXIST', `Schema ${schemaId} is not loaded`)
    return decode
  }

  async #load(schemaId: number): Promise<void> {
    let source: Schema
    try {
      source = await this.#schemas.get(schemaId)
    } catch (e) {
      const error = toFlussError(e)
      throw new FlussError(
        error.spec,
        `Cannot decode a row of schema ${schemaId} of ${this.#info.tablePath.databaseName}.${this.#info.tablePath.tableName}: ${error.message}`,
        { cause: error },
      )
    }
    if (this.#decoders.has(schemaId)) return
    const decoder = new CompactedRowDecoder(source.rowType)
    const mapping = ColumnMapping.between(source, this.#info.schema)
    this.#decoders.set(schemaId, (bytes, offset, length) =>
      mapping.map(decoder.decode(bytes, offset, length)),
    )
  }
}
