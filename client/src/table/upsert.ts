import { TABLE_MERGE_ENGINE } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import { ClusterWriterNetwork } from '../write/cluster-writer-network.js'
import { resolveTargetColumns } from '../write/target-columns.js'
import { UpsertWriter, type UpsertWriterOptions } from '../write/upsert-writer.js'
import { tableName } from './key-encoding.js'
import type { TableContext } from './table.js'

/**
 * How the server merges upserts (`PutKvRequest.agg_mode`): DEFAULT goes through the table's merge
 * engine; OVERWRITE replaces values as they are (tables with a merge engine only, for undo).
 */
export type MergeMode = 'DEFAULT' | 'OVERWRITE'

const AGG_MODE: Readonly<Record<MergeMode, number>> = { DEFAULT: 0, OVERWRITE: 1 }

/**
 * Builds upsert writers for a primary-key table (Fluss's `Upsert`):
 * `table.newUpsert().partialUpdate(['id', 'score']).createWriter()`. Immutable: each setter returns
 * a new builder.
 */
export class Upsert {
  readonly #ctx: TableContext
  readonly #info: TableInfo
  readonly #targetColumns: readonly number[] | undefined
  readonly #mergeMode: MergeMode

  constructor(
    ctx: TableContext,
    info: TableInfo,
    targetColumns?: readonly number[],
    mergeMode: MergeMode = 'DEFAULT',
  ) {
    this.#ctx = ctx
    this.#info = info
    this.#targetColumns = targetColumns
    this.#mergeMode = mergeMode
  }

  /**
   * Writes only these columns (indexes or names; rows then give them in this order). They must
   * include every primary key column, and every other column of the table must be nullable; an
   * unknown column is INVALID_TARGET_COLUMN at once, the other rules when the writer is created.
   * `undefined` goes back to full rows.
   */
  partialUpdate(columns: readonly (number | string)[] | undefined): Upsert {
    const targets = columns === undefined ? undefined : resolveTargetColumns(this.#info, columns)
    return new Upsert(this.#ctx, this.#info, targets, this.#mergeMode)
  }

  mergeMode(mode: MergeMode): Upsert {
    if (AGG_MODE[mode] === undefined) {
      throw new FlussError(
        'INVALID_REQUEST',
        `Unknown merge mode ${String(mode)}: expected DEFAULT or OVERWRITE`,
      )
    }
    return new Upsert(this.#ctx, this.#info, this.#targetColumns, mode)
  }

  createWriter(options: UpsertWriterOptions = {}): UpsertWriter {
    const info = this.#info
    if (this.#mergeMode === 'OVERWRITE' && info.tableConfig.getOptional(TABLE_MERGE_ENGINE) === undefined) {
      throw new FlussError(
        'INVALID_REQUEST',
        `MergeMode OVERWRITE is only supported for tables with a merge engine, but table ${tableName(info)} does not have a merge engine configured.`,
      )
    }
    const { metadata, admin, writerMemory, options: clientOptions } = this.#ctx
    const targetColumns = this.#targetColumns
    const api = { kind: 'PUT_KV' as const, targetColumns, aggMode: AGG_MODE[this.#mergeMode] }
    const network = new ClusterWriterNetwork(
      metadata,
      admin,
      info,
      clientOptions.writer.dynamicCreatePartition,
      api,
    )
    const context = {
      info,
      options: clientOptions.writer,
      targetColumns,
      memory: writerMemory,
      network,
      onClosed: this.#ctx.untrackWriter,
    }
    const writer = new UpsertWriter(context, options)
    this.#ctx.trackWriter(writer)
    return writer
  }
}
