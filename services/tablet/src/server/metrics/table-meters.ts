import { KV_RECORD_COUNT_OFFSET } from '@sluice/core/kvbatch'
import type { MeteredCount, MeterFamily, MetricRegistry } from '@sluice/core/metrics'
import type { ApiRequest } from '@sluice/core/rpc'
import type { ProduceEntry } from '../../replica/append-to-log.js'
import type { WriteResultForBucket } from '../../replica/delay/delayed-write.js'
import type { FetchLogResultForBucket } from '../../replica/fetch-types.js'
import type { Replica } from '../../replica/replica.js'

/** The meters of one table on this server (Fluss's `tabletserver_table` group). */
interface TableMeters {
  readonly messagesIn: MeteredCount
  readonly bytesIn: MeteredCount
  readonly bytesOut: MeteredCount
  readonly produce: MeteredCount
  readonly produceFailed: MeteredCount
  readonly fetch: MeteredCount
  readonly fetchFailed: MeteredCount
  readonly putKv: MeteredCount
  readonly putKvFailed: MeteredCount
  readonly lookup: MeteredCount
  readonly lookupFailed: MeteredCount
  readonly prefixLookup: MeteredCount
  readonly prefixLookupFailed: MeteredCount
}

type KvApi = 'lookup' | 'prefixLookup'

const TABLE_LABELS = ['database', 'table']

/**
 * Fluss's server and table meters of a tablet server: messages and bytes in, bytes out (clients)
 * and replication bytes (followers), requests and failed requests per table and API. Each method
 * is called once per request with what the request already holds; records are never visited.
 */
export class TableMeterSet {
  readonly #byTable = new Map<number, TableMeters>()
  readonly #families: Record<keyof TableMeters, MeterFamily>
  readonly #messagesIn: MeteredCount
  readonly #bytesIn: MeteredCount
  readonly #bytesOut: MeteredCount
  readonly #replicationOut: MeteredCount

  constructor(
    registry: MetricRegistry,
    private readonly replicas: () => Iterable<Replica>,
  ) {
    const server = (base: string, help: string) => registry.meter(base, help).child()
    this.#messagesIn = server('messagesIn', 'Messages (records) written to this server')
    this.#bytesIn = server('bytesIn', 'Bytes of record batches written to this server')
    this.#bytesOut = server('bytesOut', 'Bytes of record batches read by clients from this server')
    this.#replicationOut = server('replicationBytesOut', 'Bytes read by followers from leaders here')
    const table = (base: string, help: string) => registry.meter(`table_${base}`, help, TABLE_LABELS)
    this.#families = {
      messagesIn: table('messagesIn', 'Messages written to this table'),
      bytesIn: table('bytesIn', 'Bytes written to this table'),
      bytesOut: table('bytesOut', 'Bytes read by clients from this table'),
      produce: table('totalProduceLogRequests', 'Produce log requests to this table'),
      produceFailed: table('failedProduceLogRequests', 'Failed produce log requests to this table'),
      fetch: table('totalFetchLogRequests', 'Fetch log requests (clients) of this table'),
      fetchFailed: table('failedFetchLogRequests', 'Failed fetch log requests of this table'),
      putKv: table('totalPutKvRequests', 'Put kv requests to this table'),
      putKvFailed: table('failedPutKvRequests', 'Failed put kv requests to this table'),
      lookup: table('totalLookupRequests', 'Lookup requests to this table'),
      lookupFailed: table('failedLookupRequests', 'Failed lookup requests to this table'),
      prefixLookup: table('totalPrefixLookupRequests', 'Prefix lookup requests to this table'),
      prefixLookupFailed: table('failedPrefixLookupRequests', 'Failed prefix lookup requests to this table'),
    }
  }

  /** A PRODUCE_LOG request answered: bytes and records of the buckets appended. */
  produced(
    tableId: number,
    entries: readonly ProduceEntry[],
    results: readonly WriteResultForBucket[],
  ): void {
    let bytes = 0
    let messages = 0
    let failed = false
    for (let i = 0; i < results.length; i++) {
      const r = results[i] as WriteResultForBucket
      if (r.error !== undefined || r.baseOffset === undefined || r.writeEndOffset === undefined) failed = true
      else {
        bytes += (entries[i] as ProduceEntry).records.byteLength
        messages += r.writeEndOffset - r.baseOffset
      }
    }
    this.#written(tableId, bytes, messages, 'produce', failed)
  }

  /** A PUT_KV request answered (`errorCodes`: each bucket's, 0 or absent when it succeeded). */
  putKv(request: ApiRequest<'PUT_KV'>, errorCodes: readonly (number | null | undefined)[]): void {
    let bytes = 0
    let messages = 0
    request.bucketsReq.forEach((b, i) => {
      if (errorCodes[i]) return
      bytes += b.records.byteLength
      if (b.records.byteLength >= KV_RECORD_COUNT_OFFSET + 4)
        messages += Buffer.from(b.records.buffer, b.records.byteOffset, b.records.byteLength).readInt32LE(
          KV_RECORD_COUNT_OFFSET,
        )
    })
    this.#written(
      request.tableId,
      bytes,
      messages,
      'putKv',
      errorCodes.some(c => !!c),
    )
  }

  /** A LOOKUP or PREFIX_LOOKUP request answered. */
  looked(api: KvApi, tableId: number, failed: boolean): void {
    const t = this.#table(tableId)
    if (t === undefined) return
    t[api].count++
    if (failed) t[api === 'lookup' ? 'lookupFailed' : 'prefixLookupFailed'].count++
  }

  /** A FETCH_LOG answered: client reads count as bytes out, follower reads as replication. */
  fetched(follower: boolean, results: readonly FetchLogResultForBucket[]): void {
    let tableId = -1
    let bytes = 0
    let failed = false
    for (const r of results) {
      bytes += r.records?.length ?? 0
      if (r.error !== undefined) failed = true
      tableId = r.tableBucket.tableId
    }
    if (follower) {
      this.#replicationOut.count += bytes
      return
    }
    this.#bytesOut.count += bytes
    const t = tableId < 0 ? undefined : this.#table(tableId)
    if (t === undefined) return
    t.bytesOut.count += bytes
    t.fetch.count++
    if (failed) t.fetchFailed.count++
  }

  /** Forgets the tables this server holds no replica of any more (dropped or moved away). */
  prune(heldTableIds: ReadonlySet<number>): void {
    for (const [tableId, meters] of this.#byTable) {
      if (heldTableIds.has(tableId)) continue
      this.#byTable.delete(tableId)
      const labels = [meters.messagesIn.labels.database ?? '', meters.messagesIn.labels.table ?? '']
      for (const f of Object.values(this.#families)) f.remove(...labels)
    }
  }

  #written(
    tableId: number,
    bytes: number,
    messages: number,
    api: 'produce' | 'putKv',
    failed: boolean,
  ): void {
    this.#bytesIn.count += bytes
    this.#messagesIn.count += messages
    const t = this.#table(tableId)
    if (t === undefined) return
    t.bytesIn.count += bytes
    t.messagesIn.count += messages
    t[api].count++
    if (failed) t[api === 'produce' ? 'produceFailed' : 'putKvFailed'].count++
  }

  /** The table's meters, named after a replica held here; undefined when none is (unknown table). */
  #table(tableId: number): TableMeters | undefined {
    const known = this.#byTable.get(tableId)
    if (known !== undefined) return known
    let path: { databaseName: string; tableName: string } | undefined
    for (const r of this.replicas()) {
      if (r.tableBucket.tableId === tableId) {
        path = r.physicalTablePath.tablePath
        break
      }
    }
    if (path === undefined) return undefined
    const { databaseName, tableName } = path
    const meters = Object.fromEntries(
      Object.entries(this.#families).map(([k, f]) => [k, f.child(databaseName, tableName)]),
    ) as unknown as TableMeters
    this.#byTable.set(tableId, meters)
    return meters
  }
}
