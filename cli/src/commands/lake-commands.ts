import type { Connection } from '@sluice/client'
import type { LakeSource } from '@sluice/client/union'
import type { BlobStore } from '@sluice/core/blobstore'
import type { TablePath } from '@sluice/core/metadata'
import type { Command } from 'commander'
import {
  CliError,
  clientConfig,
  EXIT,
  type GlobalOptions,
  type Io,
  parseTablePath,
  withConnection,
} from './context.js'
import { jsonReplacer, printRecord, printRows } from './output.js'
import { rowJson } from './read-commands.js'

type Opts = GlobalOptions & Record<string, unknown>
const opts = (cmd: Command) => cmd.optsWithGlobals() as Opts

/** No lake configured: every lake file is missing, so union reads read the log alone. */
const NO_LAKE: LakeSource = { rootUri: 'none:', read: async () => undefined }

/**
 * Where the lake is: `sluice.blobstore.uri` (with `sluice.blobstore.endpoint`,
 * `sluice.blobstore.path-style-access`, `sluice.aws.region`) from `--property` or `--config`.
 */
async function lakeSource(o: Opts, io: Io): Promise<{ source: LakeSource; store: BlobStore | undefined }> {
  const conf = clientConfig(o, io.env)
  const uri = conf['sluice.blobstore.uri']
  if (uri === undefined) return { source: NO_LAKE, store: undefined }
  const { createBlobStore } = await import('@sluice/core/blobstore')
  const { blobStoreLakeSource } = await import('@sluice/client/union')
  const store = await createBlobStore(uri, {
    ...(conf['sluice.blobstore.endpoint'] ? { endpoint: conf['sluice.blobstore.endpoint'] } : {}),
    ...(conf['sluice.aws.region'] ? { region: conf['sluice.aws.region'] } : {}),
    forcePathStyle: conf['sluice.blobstore.path-style-access'] !== 'false',
  })
  return { source: blobStoreLakeSource(store, uri), store }
}

async function lakeStatus(c: Connection, path: TablePath, source: LakeSource) {
  const { loadLakeSnapshot } = await import('@sluice/client/union')
  const { hintedMetadataLocation, lakeTableLocation } = await import('@sluice/lake/io')
  const { snapshotFiles } = await import('@sluice/lake/scan')
  const admin = c.getAdmin()
  const info = await admin.getTableInfo(path)
  const location = lakeTableLocation(source, path)
  const metadataLocation = await hintedMetadataLocation(source, location)
  const buckets = Array.from({ length: info.numBuckets }, (_, b) => b)
  const partitions = info.isPartitioned ? await admin.listPartitionInfos(path) : [undefined]
  const lake = metadataLocation === undefined ? undefined : await loadLakeSnapshot(source, metadataLocation)
  const tiered = new Map(
    (lake?.flussOffsets ?? []).map(o => [`${o.partitionId ?? ''}/${o.bucket}`, o.offset]),
  )
  const lag: {
    partition: string | null
    bucket: number
    tieredOffset: number
    latestOffset: number
    lag: number
  }[] = []
  for (const p of partitions) {
    const latest = await admin.listOffsets(path, buckets, 'latest', p?.partitionName)
    for (const b of buckets) {
      const tieredOffset = tiered.get(`${p?.partitionId ?? ''}/${b}`) ?? 0
      const latestOffset = latest.get(b) ?? 0
      lag.push({
        partition: p?.partitionName ?? null,
        bucket: b,
        tieredOffset,
        latestOffset,
        lag: Math.max(0, latestOffset - tieredOffset),
      })
    }
  }
  const files = await snapshotFiles(source, lake?.snapshot)
  const snapshots = lake?.metadata.snapshots ?? []
  return {
    table: `${path.databaseName}.${path.tableName}`,
    lakeEnabled: info.properties['table.datalake.enabled'] === 'true',
    location,
    snapshotId: lake?.snapshot === undefined ? null : String(lake.snapshot['snapshot-id']),
    snapshotTime: lake?.snapshot === undefined ? null : new Date(lake.snapshot['timestamp-ms']).toISOString(),
    snapshots: snapshots.length,
    dataFiles: files.data.length,
    deleteFiles: files.deletes.length,
    dataBytes: files.data.reduce((n, f) => n + f.file.fileSizeInBytes, 0),
    dataRecords: files.data.reduce((n, f) => n + f.file.recordCount, 0),
    lagRecords: lag.reduce((n, l) => n + l.lag, 0),
    buckets: lag,
  }
}

/** `scan` (union read) and `lake status`. */
export function registerLakeCommands(program: Command, io: Io): void {
  program
    .command('scan <table>')
    .description(
      'union read: the lake snapshot, then the log after it (primary-key tables merged by key), as JSON lines',
    )
    .option('--limit <n>', 'stop after n rows')
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      const { source, store } = await lakeSource(o, io)
      try {
        await withConnection(o, io, async c => {
          const path = parseTablePath(name)
          const info = await c.getAdmin().getTableInfo(path)
          const columns = info.rowType.fields.map(f => ({ name: f.name, type: f.type }))
          const limit = o.limit === undefined ? Number.POSITIVE_INFINITY : Number(o.limit)
          let n = 0
          if (limit <= 0) return
          const { unionScan } = await import('@sluice/client/union')
          for await (const r of unionScan(c, path, { lake: source })) {
            const row = rowJson(columns, r.row)
            io.out(
              o.output === 'table'
                ? `${Object.values(row).join('\t')}\n`
                : `${JSON.stringify(row, jsonReplacer)}\n`,
            )
            if (++n >= limit) break
          }
        })
      } finally {
        await store?.close()
      }
    })
  const lake = program.command('lake').description('the lakehouse copy of tables')
  lake
    .command('status <table>')
    .description(
      'lake snapshot, tiering lag per bucket, data files (needs the lake: --property sluice.blobstore.uri=...)',
    )
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      const { source, store } = await lakeSource(o, io)
      if (store === undefined)
        throw new CliError(
          'lake status needs the lake location: --property sluice.blobstore.uri=<uri>',
          EXIT.USAGE,
        )
      try {
        const status = await withConnection(o, io, c => lakeStatus(c, parseTablePath(name), source))
        if (o.output === 'json') return printRecord(io, 'json', status)
        const { buckets, ...rest } = status
        printRecord(io, 'table', rest)
        printRows(
          io,
          'table',
          ['partition', 'bucket', 'tiered offset', 'latest offset', 'lag'],
          buckets.map(b => [b.partition, b.bucket, b.tieredOffset, b.latestOffset, b.lag]),
        )
      } finally {
        await store.close()
      }
    })
}
