import { FlussError, toFlussError } from '@sluice/core/errors'
import { ValueRecordBatch } from '@sluice/core/kvbatch'
import type { TableBucket, TableInfo } from '@sluice/core/metadata'
import { MemoryLogRecords } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { exponentialBackoffMs, sleep } from '@sluice/core/util'
import type { ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import type { ValueDecoder } from '../table/value-decoder.js'
import { RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS } from '../util/async.js'
import type { LogBatchDecoding } from './batch-decoding.js'
import { decodeBatch } from './completed-fetch.js'

/** What a limit scan needs from its table and connection. */
export interface LimitScanContext {
  readonly metadata: MetadataUpdater
  readonly info: TableInfo
  readonly requestTimeoutMs: number
  readonly checkCrc: boolean
  readonly decoder: ValueDecoder
  /** Reads log batches of any schema version of a log table. */
  readonly decoding: LogBatchDecoding
  /** Column indexes to return, in order; undefined for every column (projection is client-side). */
  readonly fields: readonly number[] | undefined
}

/**
 * Reads a bounded number of rows of one bucket with LIMIT_SCAN (Fluss's `LimitBatchScanner`): for a
 * primary-key table the first `limit` rows in key order (a value record batch, decoded in the
 * table's current schema), for a log table the last `limit` records of the log. The request starts
 * when the scanner is created; `pollBatch` returns the rows once (an empty array while they have not
 * arrived within the timeout), then null. Leader changes are retried with a metadata refresh until
 * `client.request-timeout`.
 */
export class LimitBatchScanner {
  readonly #ctx: LimitScanContext
  readonly #result: Promise<Row[]>
  #settled: { rows: Row[] } | { error: FlussError } | undefined
  #delivered = false
  #closed = false

  constructor(ctx: LimitScanContext, bucket: TableBucket, limit: number) {
    this.#ctx = ctx
    this.#result = this.#scan(bucket, limit)
    this.#result.then(
      rows => {
        this.#settled = { rows }
      },
      e => {
        this.#settled = { error: toFlussError(e) }
      },
    )
  }

  /** The rows (once), an empty array when they did not arrive within `timeoutMs`, then null. */
  async pollBatch(timeoutMs: number): Promise<Row[] | null> {
    if (this.#closed) throw new FlussError('INVALID_REQUEST', 'The batch scanner is closed')
    if (this.#delivered) return null
    if (this.#settled === undefined) {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<void>(resolve => {
        timer = setTimeout(resolve, timeoutMs)
      })
      await Promise.race([this.#result.catch(() => undefined), timeout])
      clearTimeout(timer)
    }
    const settled = this.#settled
    if (settled === undefined) return []
    this.#delivered = true
    if ('error' in settled) throw settled.error
    return settled.rows
  }

  close(): void {
    this.#closed = true
  }

  async #scan(bucket: TableBucket, limit: number): Promise<Row[]> {
    const { metadata, info, requestTimeoutMs } = this.#ctx
    const deadlineMs = Date.now() + requestTimeoutMs
    const request = {
      tableId: info.tableId,
      partitionId: bucket.partitionId ?? null,
      bucketId: bucket.bucket,
      limit,
    }
    for (let attempt = 1; ; attempt++) {
      let error: FlussError
      try {
        const leader = await this.#leader(bucket)
        const response = await metadata.request(leader, 'LIMIT_SCAN', request)
        if (response.errorCode === null || response.errorCode === 0) {
          const isLogTable = response.isLogTable ?? !info.hasPrimaryKey
          return this.#rows(response.records, isLogTable, limit)
        }
        error = FlussError.fromCode(response.errorCode, response.errorMessage)
      } catch (e) {
        error = toFlussError(e)
      }
      const delayMs = exponentialBackoffMs(attempt, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS)
      if (!error.retriable || this.#closed || Date.now() + delayMs > deadlineMs) throw error
      if (error.staleMetadata) metadata.invalidate(info.tableId, bucket.partitionId)
      await sleep(delayMs)
    }
  }

  async #leader(bucket: TableBucket): Promise<ServerNode> {
    const { metadata, info } = this.#ctx
    const known = metadata.cluster.leaderFor(bucket)
    if (known !== undefined) return known
    const partitionIds = bucket.partitionId === undefined ? [] : [bucket.partitionId]
    const cluster = await metadata.update({ tables: [info.tablePath], partitionIds })
    const leader = cluster.leaderFor(bucket)
    if (leader === undefined) {
      throw new FlussError('LEADER_NOT_AVAILABLE_EXCEPTION', `No leader is known for bucket ${bucket.bucket}`)
    }
    return leader
  }

  async #rows(records: Buffer | null, isLogTable: boolean, limit: number): Promise<Row[]> {
    if (records === null || records.length === 0) return []
    const { decoder, decoding, fields, checkCrc } = this.#ctx
    let rows: Row[]
    if (isLogTable) {
      await decoding.load(decoding.missing(records))
      const options = { decoding, projected: false, reorder: undefined, checkCrc }
      rows = []
      for (const batch of new MemoryLogRecords(records).batches()) {
        for (const r of decodeBatch(batch, batch.baseOffset, options)) rows.push(r.row)
      }
      // Whole batches come back: keep the last `limit` records.
      if (rows.length > limit) rows = rows.slice(rows.length - limit)
    } else {
      rows = await decoder.decodeRecords([...ValueRecordBatch.from(records)])
    }
    return fields === undefined ? rows : rows.map(r => fields.map(i => r[i]))
  }
}
