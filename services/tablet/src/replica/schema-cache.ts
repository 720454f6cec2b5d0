import type { TableInfo } from '@sluice/core/metadata'
import type { RowType } from '@sluice/core/types'
import type { ControlPlane } from '../control-plane/control-plane.js'

/**
 * Row types by (table id, schema id) for projecting fetched batches. A table's current schema is
 * known from its TableInfo when a replica is created; an older (or newer) schema id is loaded from
 * the control plane once and kept. At most `maxEntries` are kept (then the cache starts over).
 */
export class SchemaCache {
  readonly #rowTypes = new Map<string, RowType | Promise<RowType>>()

  constructor(
    private readonly controlPlane: ControlPlane,
    private readonly maxEntries = 10_000,
  ) {}

  addTable(info: TableInfo): void {
    this.#put(`${info.tableId}/${info.schemaId}`, info.rowType)
  }

  rowType(tableId: number, schemaId: number): RowType | Promise<RowType> {
    const key = `${tableId}/${schemaId}`
    const known = this.#rowTypes.get(key)
    if (known !== undefined) return known
    const loading = this.controlPlane.getSchema(tableId, schemaId).then(
      schema => {
        this.#put(key, schema.rowType)
        return schema.rowType
      },
      e => {
        this.#rowTypes.delete(key)
        throw e
      },
    )
    this.#put(key, loading)
    return loading
  }

  #put(key: string, value: RowType | Promise<RowType>): void {
    if (this.#rowTypes.size >= this.maxEntries && !this.#rowTypes.has(key)) this.#rowTypes.clear()
    this.#rowTypes.set(key, value)
  }
}
