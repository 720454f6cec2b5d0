import type { TableInfo } from '@sluice/core/metadata'
import type { ControlPlane } from '../control-plane/control-plane.js'
import { kvKeyEncoding, TableSchemas } from '../kv/index.js'

/**
 * The schemas of the tables hosted on this tablet server, one `TableSchemas` per table shared by
 * all its replicas: produce validation, projected fetches and the KV tablets read them. A table's
 * current schema is known from its TableInfo when a replica is created; other ids are loaded from
 * the control plane once, when first needed (a KV leadership loads the older ones up front). A
 * table is forgotten when the last of its replicas leaves this server.
 */
export class SchemaCache {
  readonly #tables = new Map<number, TableSchemas>()

  constructor(private readonly controlPlane: Pick<ControlPlane, 'getSchema'>) {}

  /** The schemas of a table hosted here; its TableInfo's schema is known from now on. */
  forTable(info: TableInfo): TableSchemas {
    const known = this.#tables.get(info.tableId)
    if (known !== undefined) {
      known.add(info.schemaId, info.schema)
      return known
    }
    const keys = info.hasPrimaryKey
      ? { physicalPrimaryKeys: info.physicalPrimaryKeys, ...kvKeyEncoding(info) }
      : null
    const schemas = new TableSchemas(info.schemaId, info.schema, keys, schemaId =>
      this.controlPlane.getSchema(info.tableId, schemaId),
    )
    this.#tables.set(info.tableId, schemas)
    return schemas
  }

  /**
   * A table's info as the coordinator announces it after a change (UPDATE_METADATA): its schema
   * becomes known, and the latest when newer. Tables not hosted here are ignored.
   */
  tableChanged(info: TableInfo): void {
    this.#tables.get(info.tableId)?.add(info.schemaId, info.schema)
  }

  /** Forgets a table no replica on this server belongs to any more. */
  removeTable(tableId: number): void {
    this.#tables.delete(tableId)
  }
}
