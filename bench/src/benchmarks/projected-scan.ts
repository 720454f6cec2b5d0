import type { Table } from '@sluice/client'
import { initArrowCodecs, rowLayouts } from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { MemoryLogRecords } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { ClientConnection } from '@sluice/core/rpc'
import { type DataType, DataTypes, type RowType } from '@sluice/core/types'
import { MessageReader } from 'apache-arrow'
import type { Benchmark, Sample } from '../harness.js'
import { type BenchCluster, createBenchTable, startBenchCluster } from './bench-cluster.js'

const BUCKETS = 4
const GROUP = 13

/** What a projected-scan benchmark scans: the table's columns, its rows and the projection. */
export interface ScanShape {
  readonly rows: number
  readonly columns: () => [string, DataType][]
  readonly row: (n: number) => Row
  readonly projected: readonly string[]
}

export interface ScanContext {
  readonly shape: ScanShape
  readonly bench: BenchCluster
  readonly table: Table
  /** Bytes of every stored batch (what a full scan receives). */
  readonly fullBytes: number
  /**
   * The projected columns' share of the column data in the stored batches: their Arrow buffer
   * bytes over all columns' buffer bytes, read from the IPC headers with apache-arrow.
   */
  readonly projectedShare: number
  readonly counter: { bytes: number }
  readonly restore: () => void
}

function flatColumns(): [string, DataType][] {
  const cols: [string, DataType][] = [['id', DataTypes.BIGINT()]]
  for (let i = 0; i < GROUP; i++) cols.push([`s_${String(i).padStart(2, '0')}`, DataTypes.STRING()])
  for (let i = 0; i < GROUP; i++) cols.push([`d_${String(i).padStart(2, '0')}`, DataTypes.DOUBLE()])
  for (let i = 0; i < GROUP; i++) cols.push([`i_${String(i).padStart(2, '0')}`, DataTypes.INT()])
  return cols
}

function flatRow(n: number): Row {
  const r: Row = [BigInt(n)]
  for (let i = 0; i < GROUP; i++) r.push(`v${i}-${(n * 2654435761 + i * 40503) >>> 0}-${n % 97}`)
  for (let i = 0; i < GROUP; i++) r.push(n * 0.001 + i * 1.5)
  for (let i = 0; i < GROUP; i++) r.push((n * 31 + i) | 0)
  return r
}

/** 3 of the 40 columns: the id, one DOUBLE and one STRING. */
const FLAT: ScanShape = {
  rows: 50_000,
  columns: flatColumns,
  row: flatRow,
  projected: ['id', 'd_00', 's_00'],
}

async function writeRows(table: Table, shape: ScanShape): Promise<void> {
  const writer = table.newAppend().createWriter()
  for (let n = 0; n < shape.rows; n++) {
    const wait = writer.append(shape.row(n))
    if (wait) await wait
  }
  await writer.close()
}

/**
 * Buffer bytes per column of one Arrow RecordBatch message: each column's own buffers and those of
 * its nested children (a List, Map or Struct column lists its children's buffers after its own).
 */
function columnBytes(payload: Uint8Array, rowType: RowType): number[] {
  const message = new MessageReader(payload).readMessage()
  if (message === null || !message.isRecordBatch())
    throw new Error('a stored batch is not an Arrow RecordBatch message')
  const header = message.header()
  const sizes: number[] = []
  let at = 0
  for (const layout of rowLayouts(rowType)) {
    let bytes = 0
    for (let k = 0; k < layout.totalBufferCount; k++) bytes += header.buffers[at + k].length
    sizes.push(bytes)
    at += layout.totalBufferCount
  }
  if (at !== header.buffers.length)
    throw new Error(`a stored batch has ${header.buffers.length} buffers, its row type ${at}`)
  return sizes
}

/** Reads every stored batch once (raw FETCH_LOG, no projection): their bytes and the projected share. */
async function measureStoredBytes(
  bench: BenchCluster,
  table: Table,
  projected: readonly string[],
): Promise<{ full: number; share: number }> {
  const info = table.getTableInfo()
  const names = info.rowType.fields.map(f => f.name)
  const fields = new Set(projected.map(c => names.indexOf(c)))
  const c = await ClientConnection.connect({ ...bench.tablet, requestTimeoutMs: 60_000 })
  let full = 0
  let projectedColumns = 0
  let allColumns = 0
  try {
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      for (let offset = 0; ; ) {
        const response = await c.request('FETCH_LOG', {
          followerServerId: -1,
          maxBytes: 16 * 1024 * 1024,
          tablesReq: [
            {
              tableId: info.tableId,
              projectionPushdownEnabled: false,
              bucketsReq: [{ bucketId: bucket, fetchOffset: offset, maxFetchBytes: 16 * 1024 * 1024 }],
            },
          ],
        })
        const r = response.tablesResp[0].bucketsResp[0]
        if (r.errorCode) throw new Error(`FETCH_LOG failed with error ${r.errorCode}: ${r.errorMessage}`)
        if (r.records === null || r.records.length === 0) break
        for (const batch of new MemoryLogRecords(r.records).batches()) {
          full += batch.sizeInBytes
          columnBytes(batch.arrowPayload(), info.rowType).forEach((bytes, j) => {
            allColumns += bytes
            if (fields.has(j)) projectedColumns += bytes
          })
          offset = batch.nextOffset
        }
        if (offset >= (r.highWatermark ?? 0)) break
      }
    }
  } finally {
    c.close()
  }
  return { full, share: projectedColumns / allColumns }
}

/** Counts the record bytes of every FETCH_LOG answer this process receives (the SDK's included). */
function countFetchedBytes(): { counter: { bytes: number }; restore: () => void } {
  const counter = { bytes: 0 }
  const proto = ClientConnection.prototype
  const original = proto.request
  proto.request = function (this: ClientConnection, ...args: Parameters<typeof original>) {
    const result = original.apply(this, args)
    if (args[0] === 'FETCH_LOG') {
      void result.then(
        response => {
          for (const t of (response as { tablesResp: { bucketsResp: { records: Buffer | null }[] }[] })
            .tablesResp)
            for (const b of t.bucketsResp) counter.bytes += b.records?.length ?? 0
        },
        () => undefined,
      )
    }
    return result
  } as typeof original
  const restore = () => {
    proto.request = original
  }
  return { counter, restore }
}

async function scan(ctx: ScanContext, projection: readonly string[] | undefined): Promise<Sample> {
  const s = projection === undefined ? ctx.table.newScan() : ctx.table.newScan().project(projection)
  const scanner = s.createLogScanner()
  ctx.counter.bytes = 0
  const t0 = performance.now()
  let rows = 0
  try {
    for (let b = 0; b < BUCKETS; b++) scanner.subscribeFromBeginning(b)
    const deadline = Date.now() + 60_000
    while (rows < ctx.shape.rows) {
      if (Date.now() > deadline) throw new Error(`scan read ${rows} of ${ctx.shape.rows} rows in 60 s`)
      rows += (await scanner.poll(1000)).count
    }
  } finally {
    scanner.close()
  }
  const seconds = (performance.now() - t0) / 1000
  const bytes = ctx.counter.bytes
  return { value: rows / seconds, extra: { 'MB received': bytes / 1e6, 'bytes/row': bytes / rows } }
}

/**
 * A projected scan against the full scan of the same table (written once in setup, ZSTD, 4 buckets,
 * 1 tablet server), both through the SDK's LogScanner. Bytes are the FETCH_LOG record bytes the
 * client received; the projected columns' share is their part of the column buffers in the stored
 * batches (from the IPC headers, read with apache-arrow). Bytes target: ≤ 1.15 × share × full bytes.
 */
export function projectedScanBenchmark(
  shape: ScanShape,
  about: Pick<Benchmark<ScanContext>, 'name' | 'description' | 'target'> & { readonly fullName: string },
): Benchmark<ScanContext> {
  return {
    name: about.name,
    description: about.description,
    unit: 'rows/s',
    better: 'higher',
    ...(about.target ? { target: about.target } : {}),
    runs: 5,
    async setup() {
      await initArrowCodecs()
      const bench = await startBenchCluster(about.name, {
        'client.scanner.log.max-poll-records': '5000',
        // Equal buckets: every bucket reaches its end at about the same time in a scan.
        'client.writer.bucket.no-key-assigner': 'ROUND_ROBIN',
      })
      try {
        const schema = Schema.newBuilder()
        for (const [name, type] of shape.columns()) schema.column(name, type)
        const descriptor = TableDescriptor.builder().schema(schema.build()).distributedBy(BUCKETS).build()
        const table = await bench.connection.getTable(await createBenchTable(bench.connection, descriptor))
        await writeRows(table, shape)
        const { full, share } = await measureStoredBytes(bench, table, shape.projected)
        const { counter, restore } = countFetchedBytes()
        return { shape, bench, table, fullBytes: full, projectedShare: share, counter, restore }
      } catch (e) {
        await bench.stop()
        throw e
      }
    },
    async teardown(ctx) {
      ctx.restore()
      await ctx.bench.stop()
    },
    subject: {
      name: `projected scan (${shape.projected.join(', ')})`,
      async run(ctx) {
        const s = await scan(ctx, shape.projected)
        const bytes = (s.extra?.['MB received'] ?? 0) * 1e6
        return {
          value: s.value,
          extra: {
            ...s.extra,
            'projected columns share %': ctx.projectedShare * 100,
            'received / full bytes %': (bytes / ctx.fullBytes) * 100,
            'received / (share × full) (target ≤ 1.15)': bytes / (ctx.projectedShare * ctx.fullBytes),
          },
        }
      },
    },
    baseline: {
      name: about.fullName,
      async run(ctx) {
        const s = await scan(ctx, undefined)
        return {
          value: s.value,
          extra: {
            ...s.extra,
            'received / stored bytes': ((s.extra?.['MB received'] ?? 0) * 1e6) / ctx.fullBytes,
          },
        }
      },
    },
  }
}

/**
 * Issue #3 benchmark (c): a projected scan of 3 of 40 columns (50,000 rows). Targets: rows/s ≥ 5×
 * the full scan; bytes ≤ 1.15 × share × full bytes.
 */
export const projectedScan: Benchmark<ScanContext> = projectedScanBenchmark(FLAT, {
  name: 'projected-scan',
  fullName: 'full scan (40 columns)',
  description:
    'LogScanner rows/s reading 50,000 rows of a 40-column table (13 STRING, 13 DOUBLE, 13 INT + id; ZSTD; 4 equal buckets; 1 tablet server in a LocalCluster; default fetch.wait-max-time) with a 3-column projection pushed down (subject) vs the full scan (baseline); extras: bytes received, the share of the projected columns in the column bytes, and received / (share × full).',
  target: {
    ratio: 5,
    note: 'issue #3 (c): rows/s ≥ 5× the full scan; bytes ≤ 1.15× the projected share (see extras)',
  },
})
