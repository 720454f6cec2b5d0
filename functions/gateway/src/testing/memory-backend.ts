import type { TableChanges } from '@sluice/client'
import type { Row } from '@sluice/core'
import { FlussError } from '@sluice/core/errors'
import { partitionGetter, type TableInfo, type TablePath } from '@sluice/core/metadata'
import { CompactedKeyEncoder } from '@sluice/core/row'
import { type Clock, SYSTEM_CLOCK } from '@sluice/core/util'
import type * as B from '../backend/gateway-backend.js'
import { TableChangedError } from '../backend/gateway-backend.js'
import { MemoryCatalog, type MemoryLogRecord, type MemoryTable } from './memory-catalog.js'
import { kvKey, lookupRows, prefixRows, scanTable, snapshotRows, unionRows } from './memory-reads.js'

type Op = keyof B.GatewayBackend

/** Decides whether one row of a write fails (the error) or is acknowledged (undefined). */
export type RowFailureInjector = (row: Row, op: 'append' | 'upsert' | 'delete') => unknown

/**
 * An in-memory GatewayBackend with Fluss's behaviour where routes can observe it: log offsets per
 * bucket, changelogs of upserts and deletes, partial updates, lookups by encoded key, per-row
 * failures for rows of missing partitions. Tests inject failures and read what was written.
 */
export class MemoryGatewayBackend implements B.GatewayBackend {
  readonly catalog: MemoryCatalog
  /** Calls made, by operation. */
  readonly calls = new Map<Op, number>()
  /** Rows acknowledged by append, upsert and delete. */
  writtenRows = 0
  rowFailure: RowFailureInjector | undefined
  readonly #failNext = new Map<Op, unknown>()
  readonly #hang = new Set<Op>()
  readonly #blocked = new Map<Op, Promise<void>>()

  constructor(private readonly clock: Clock = SYSTEM_CLOCK) {
    this.catalog = new MemoryCatalog(clock)
  }

  /** The next call of `op` throws `error`. */
  failNext(op: Op, error: unknown): void {
    this.#failNext.set(op, error)
  }

  /** Calls of `op` wait until the request's deadline aborts them. */
  hang(op: Op): void {
    this.#hang.add(op)
  }

  /** Calls of `op` wait until the returned function is called. */
  block(op: Op): () => void {
    let release = () => {}
    this.#blocked.set(op, new Promise<void>(resolve => (release = resolve)))
    return () => {
      this.#blocked.delete(op)
      release()
    }
  }

  async #enter(op: Op, ctx: B.BackendContext): Promise<void> {
    this.calls.set(op, (this.calls.get(op) ?? 0) + 1)
    await this.#blocked.get(op)
    const error = this.#failNext.get(op)
    if (error !== undefined) {
      this.#failNext.delete(op)
      throw error
    }
    if (this.#hang.has(op)) {
      await new Promise((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(new FlussError('REQUEST_TIME_OUT')), {
          once: true,
        }),
      )
    }
  }

  async listDatabases(ctx: B.BackendContext) {
    await this.#enter('listDatabases', ctx)
    return [...this.catalog.databases.keys()]
  }
  async getDatabase(ctx: B.BackendContext, name: string) {
    await this.#enter('getDatabase', ctx)
    return this.catalog.database(name)
  }
  async createDatabase(
    ctx: B.BackendContext,
    name: string,
    d: Parameters<MemoryCatalog['createDatabase']>[1],
    ignore: boolean,
  ) {
    await this.#enter('createDatabase', ctx)
    this.catalog.createDatabase(name, d, ignore)
  }
  async dropDatabase(ctx: B.BackendContext, name: string, ignore: boolean, cascade: boolean) {
    await this.#enter('dropDatabase', ctx)
    this.catalog.dropDatabase(name, ignore, cascade)
  }
  async listTables(ctx: B.BackendContext, database: string) {
    await this.#enter('listTables', ctx)
    return this.catalog.tableNames(database)
  }
  async getTableInfo(ctx: B.BackendContext, path: TablePath) {
    await this.#enter('getTableInfo', ctx)
    return this.catalog.table(path).info
  }
  async createTable(
    ctx: B.BackendContext,
    path: TablePath,
    d: Parameters<MemoryCatalog['createTable']>[1],
    ignore: boolean,
  ) {
    await this.#enter('createTable', ctx)
    this.catalog.createTable(path, d, ignore)
  }
  async dropTable(ctx: B.BackendContext, path: TablePath, ignore: boolean) {
    await this.#enter('dropTable', ctx)
    this.catalog.dropTable(path, ignore)
  }
  async alterTable(ctx: B.BackendContext, path: TablePath, changes: TableChanges, ignore: boolean) {
    await this.#enter('alterTable', ctx)
    this.catalog.alterTable(path, changes, ignore)
  }
  async getTableSchemas(ctx: B.BackendContext, path: TablePath) {
    await this.#enter('getTableSchemas', ctx)
    return [...this.catalog.table(path).schemas]
  }
  async listPartitions(ctx: B.BackendContext, path: TablePath) {
    await this.#enter('listPartitions', ctx)
    return [...this.catalog.table(path).partitions.values()]
  }
  async createPartition(
    ctx: B.BackendContext,
    path: TablePath,
    spec: B.PartitionSpecValues,
    ignore: boolean,
  ) {
    await this.#enter('createPartition', ctx)
    this.catalog.createPartition(path, spec, ignore)
  }
  async dropPartition(ctx: B.BackendContext, path: TablePath, spec: B.PartitionSpecValues, ignore: boolean) {
    await this.#enter('dropPartition', ctx)
    this.catalog.dropPartition(path, spec, ignore)
  }

  async append(ctx: B.BackendContext, table: TableInfo, rows: readonly Row[]) {
    await this.#enter('append', ctx)
    return this.#write(table, rows, 'append', (t, pid, row) =>
      this.#append(this.#log(t, pid, row), row, 'append_only'),
    )
  }

  async upsert(
    ctx: B.BackendContext,
    table: TableInfo,
    rows: readonly Row[],
    targetColumns?: readonly string[],
  ) {
    await this.#enter('upsert', ctx)
    const targets = targetColumns === undefined ? undefined : new Set(targetColumns)
    return this.#write(table, rows, 'upsert', (t, pid, row) => {
      const key = kvKey(t, pid, row)
      const old = t.kv.get(key)
      const merged =
        targets === undefined || old === undefined
          ? row
          : old.map((v, i) => (targets.has(t.info.rowType.fields[i].name) ? row[i] : v))
      const log = this.#log(t, pid, row)
      if (old !== undefined) this.#append(log, old, 'update_before')
      this.#append(log, merged, old === undefined ? 'insert' : 'update_after')
      t.kv.set(key, merged)
    })
  }

  async delete(ctx: B.BackendContext, table: TableInfo, rows: readonly Row[]) {
    await this.#enter('delete', ctx)
    return this.#write(table, rows, 'delete', (t, pid, row) => {
      const key = kvKey(t, pid, row)
      const old = t.kv.get(key)
      if (old === undefined) return
      this.#append(this.#log(t, pid, row), old, 'delete')
      t.kv.delete(key)
    })
  }

  #write(
    info: TableInfo,
    rows: readonly Row[],
    op: 'append' | 'upsert' | 'delete',
    apply: (t: MemoryTable, pid: number | undefined, row: Row) => void,
  ): B.WriteResult {
    const t = this.#current(info)
    const partitionOf = t.info.isPartitioned
      ? partitionGetter(t.info.rowType, t.info.partitionKeys)
      : undefined
    const failures: B.RowFailure[] = []
    rows.forEach((row, index) => {
      const error = this.rowFailure?.(row, op) ?? this.#missingPartition(t, partitionOf, row)
      if (error !== undefined) {
        failures.push({ index, error })
        return
      }
      const pid = partitionOf === undefined ? undefined : t.partitions.get(partitionOf(row))?.partitionId
      apply(t, pid, row)
      this.writtenRows++
    })
    return { failures }
  }

  /** The table `info` describes: TableChangedError when the table at its path is another one now. */
  #current(info: TableInfo): MemoryTable {
    const t = this.catalog.table(info.tablePath)
    if (t.info.tableId !== info.tableId || t.info.schemaId !== info.schemaId) {
      throw new TableChangedError(info.tablePath)
    }
    return t
  }

  #missingPartition(t: MemoryTable, partitionOf: ((row: Row) => string) | undefined, row: Row): unknown {
    if (partitionOf === undefined) return undefined
    const name = partitionOf(row)
    return t.partitions.has(name)
      ? undefined
      : new FlussError('PARTITION_NOT_EXISTS', `Partition ${name} does not exist.`)
  }

  /** Bucket of a row: a hash of its bucket key, or round-robin for tables without one. */
  #bucketOf(t: MemoryTable, row: Row): number {
    if (t.info.bucketKeys.length === 0) return this.writtenRows % t.info.numBuckets
    const hex = CompactedKeyEncoder.of(t.info.rowType, t.info.bucketKeys).encodeKey(row).toString('hex')
    let h = 0
    for (let i = 0; i < hex.length; i++) h = (h * 31 + hex.charCodeAt(i)) >>> 0
    return h % t.info.numBuckets
  }

  #log(t: MemoryTable, pid: number | undefined, row: Row): MemoryLogRecord[] {
    const key = `${pid ?? '-'}:${this.#bucketOf(t, row)}`
    const log = t.logs.get(key) ?? []
    t.logs.set(key, log)
    return log
  }

  #append(log: MemoryLogRecord[], row: Row, changeType: MemoryLogRecord['changeType']): void {
    log.push({ offset: log.length, timestampMs: this.clock.nowMs(), changeType, row })
  }

  async lookup(ctx: B.BackendContext, table: TableInfo, keys: readonly Row[]) {
    await this.#enter('lookup', ctx)
    return lookupRows(this.#current(table), keys)
  }

  async prefixLookup(
    ctx: B.BackendContext,
    table: TableInfo,
    columns: readonly string[],
    prefixes: readonly Row[],
    maxRows: number,
  ) {
    await this.#enter('prefixLookup', ctx)
    return prefixRows(this.#current(table), columns, prefixes, maxRows)
  }

  async scan(ctx: B.BackendContext, table: TableInfo, request: B.ScanRequest) {
    await this.#enter('scan', ctx)
    return scanTable(this.catalog.table(table.tablePath), request)
  }

  async snapshot(ctx: B.BackendContext, table: TableInfo, request: B.SnapshotRequest) {
    await this.#enter('snapshot', ctx)
    return snapshotRows(this.catalog.table(table.tablePath), request)
  }

  /** No lake in memory: a union read is the current rows (primary-key tables) or the whole log. */
  async unionRead(ctx: B.BackendContext, table: TableInfo, request: B.UnionReadRequest) {
    await this.#enter('unionRead', ctx)
    return unionRows(this.catalog.table(table.tablePath), request.maxRows)
  }

  async tieringStatus(ctx: B.BackendContext, _table: TableInfo): Promise<B.TieringStatus> {
    await this.#enter('tieringStatus', ctx)
    return { lakeEnabled: false }
  }
}
