import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Connection } from '@sluice/client'
import { type Cleanups, type FakeCluster, runCleanups, startClient } from '@sluice/client/testing'
import { blobStoreLakeSource, type UnionRecord, unionScan } from '@sluice/client/union'
import { ArrowBatchWriter, DEFAULT_COMPRESSION, initArrowCodecs } from '@sluice/core/arrow'
import { FsBlobStore } from '@sluice/core/blobstore'
import {
  databaseDescriptor,
  Schema,
  TableDescriptor,
  type TableInfo,
  tableBucket,
  tablePath,
} from '@sluice/core/metadata'
import { MemoryMetaStore } from '@sluice/core/metastore'
import { buildLogBatch, ChangeType } from '@sluice/core/record'
import { type Row, Timestamp, type Value } from '@sluice/core/row'
import { type DataType, DataTypes, notNull } from '@sluice/core/types'
import { keyString } from '@sluice/lake/iceberg'
import { LakeFileIO } from '@sluice/lake/io'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LocalCatalog } from '../catalog/local-catalog.js'
import { uploadSegment } from '../testing/tiering-env.js'
import { staticTieringMetadata } from './tiering-metadata.js'
import { runTieringRound, type TieringRoundDeps } from './tiering-round.js'

/**
 * Union read against an in-process Fluss cluster (the SDK's fake cluster) whose bucket logs are
 * uploaded as tiered segments and tiered into the lake, as the servers and the tiering function
 * would. At every checkpoint, while writes continue, the union read equals a full log scan.
 */

const cleanups: Cleanups = []
let cluster: FakeCluster
let connection: Connection
let dir: string
let deps: TieringRoundDeps
let lakeRoot: string
let blobStore: FsBlobStore
const uploaded = new Map<string, number>()

beforeEach(async () => {
  await initArrowCodecs()
  ;({ cluster, connection } = await startClient(cleanups))
  await connection.getAdmin().createDatabase('fluss', databaseDescriptor(), true)
  dir = await mkdtemp(join(tmpdir(), 'sluice-union-'))
  blobStore = new FsBlobStore(dir)
  lakeRoot = pathToFileURL(dir).href
  const metaStore = new MemoryMetaStore()
  const io = new LakeFileIO(blobStore, lakeRoot)
  deps = {
    metaStore,
    blobStore,
    lakeIo: io,
    lakeCatalog: new LocalCatalog(metaStore, io),
    metadata: staticTieringMetadata([]),
    ownerId: 'union-test',
  }
  uploaded.clear()
})
afterEach(async () => {
  await runCleanups(cleanups)
  await blobStore.close()
  await rm(dir, { recursive: true, force: true })
})

async function createTable(
  name: string,
  columns: readonly (readonly [string, DataType])[],
  primaryKey?: string[],
  partitionKeys: string[] = [],
): Promise<TableInfo> {
  let schema = Schema.newBuilder()
  for (const [c, t] of columns) schema = schema.column(c, t)
  if (primaryKey !== undefined) schema = schema.primaryKey(primaryKey)
  const descriptor = TableDescriptor.builder()
    .schema(schema.build())
    .distributedBy(2)
    .partitionedBy(partitionKeys)
    .property('table.datalake.enabled', 'true')
    .build()
  const path = tablePath('fluss', name)
  await connection.getAdmin().createTable(path, descriptor)
  const info = await connection.getAdmin().getTableInfo(path)
  deps = { ...deps, metadata: staticTieringMetadata([info]) }
  return info
}

/** Writes one batch to a bucket's log in the cluster, as a produce request would. */
function write(
  info: TableInfo,
  bucket: number,
  rows: Row[],
  types?: ChangeType[],
  partitionId?: number,
): void {
  const w = new ArrowBatchWriter(info.rowType, { compression: DEFAULT_COMPRESSION })
  for (const r of rows) w.addRow(r)
  const batch = buildLogBatch({
    schemaId: info.schemaId,
    appendOnly: !info.hasPrimaryKey,
    ...(info.hasPrimaryKey ? { changeTypes: types ?? rows.map(() => ChangeType.INSERT) } : {}),
    recordCount: rows.length,
    records: w.finish(),
  })
  cluster.state.log(info.tableId, bucket, partitionId).append(batch, Date.now())
}

/** Uploads each bucket's batches not uploaded yet as one segment (sealing the active segment). */
async function seal(info: TableInfo, partitionId?: number): Promise<void> {
  for (let bucket = 0; bucket < info.numBuckets; bucket++) {
    const key = `${info.tableId}:${partitionId}:${bucket}`
    const from = uploaded.get(key) ?? 0
    const log = cluster.state.log(info.tableId, bucket, partitionId)
    const batches = log.batches.filter(b => b.baseOffset >= from).map(b => b.bytes)
    await uploadSegment({ ...deps, clock: Date.now }, tableBucket(info.tableId, bucket, partitionId), batches)
    uploaded.set(key, log.endOffset)
  }
}

async function union(info: TableInfo): Promise<UnionRecord[]> {
  const out: UnionRecord[] = []
  for await (const r of unionScan(connection, info.tablePath, {
    lake: blobStoreLakeSource(blobStore, lakeRoot),
  })) {
    out.push(r)
  }
  return out
}

/** Every record of the log, read from the beginning with the SDK's scanner. */
async function fullLog(info: TableInfo, partitionIds: readonly (number | undefined)[] = [undefined]) {
  const out: { bucket: number; offset: number; timestamp: number; changeType: ChangeType; row: Row }[] = []
  for (const partitionId of partitionIds) {
    for (let bucket = 0; bucket < info.numBuckets; bucket++) {
      const end = cluster.state.log(info.tableId, bucket, partitionId).endOffset
      if (end === 0) continue
      const scanner = (await connection.getTable(info.tablePath)).newScan().createLogScanner()
      if (partitionId === undefined) scanner.subscribeFromBeginning(bucket)
      else scanner.subscribeFromBeginning(partitionId, bucket)
      while ((scanner.position(bucket, partitionId) ?? -1) < end) {
        for (const r of await scanner.poll(500)) out.push({ bucket, ...r })
      }
      scanner.close()
    }
  }
  return out
}

const canon = (rs: readonly { bucket: number; offset: number; timestamp: number; row: Row }[]) =>
  rs
    .map(r =>
      JSON.stringify([r.bucket, r.offset, r.timestamp, r.row], (_, v) =>
        typeof v === 'bigint' ? `${v}` : v,
      ),
    )
    .sort()

describe('union read', () => {
  it('log table: lake snapshot + log after its offsets equals the full log at every checkpoint', async () => {
    const info = await createTable('events', [
      ['id', notNull(DataTypes.BIGINT())],
      ['name', DataTypes.STRING()],
    ])
    let next = 0
    const writeSome = (count: number) => {
      for (let i = 0; i < count; i++, next++) write(info, next % 2, [[BigInt(next), `e${next}`]])
    }
    expect(await union(info)).toEqual([])
    writeSome(5)
    expect(canon(await union(info))).toEqual(canon(await fullLog(info)))
    let lakeRows = 0
    for (const step of ['tier', 'write', 'seal', 'tier', 'write', 'tier'] as const) {
      if (step === 'write') writeSome(4)
      if (step === 'seal' || step === 'tier') await seal(info)
      if (step === 'tier') expect((await runTieringRound(deps, info)).status).toBe('committed')
      writeSome(1)
      const got = await union(info)
      expect(canon(got)).toEqual(canon(await fullLog(info)))
      const fromLake = got.filter(r => r.source === 'lake').length
      expect(fromLake).toBeGreaterThanOrEqual(lakeRows)
      lakeRows = fromLake
    }
    expect(lakeRows).toBe(next - 1)
  })

  it('primary-key table: merged by key, the log winning over the lake and -D removing keys', async () => {
    const info = await createTable(
      'orders',
      [
        ['id', notNull(DataTypes.BIGINT())],
        ['qty', DataTypes.INT()],
      ],
      ['id'],
    )
    const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = ChangeType
    const expected = async () => {
      const live = new Map<string, { bucket: number; offset: number; timestamp: number; row: Row }>()
      for (const r of await fullLog(info)) {
        const k = keyString([r.row[0]])
        if (r.changeType === D) live.delete(k)
        else if (r.changeType !== UB) live.set(k, r)
      }
      return canon([...live.values()])
    }
    const steps: [number, Row, ChangeType][][] = [
      [
        [0, [1n, 1], I],
        [1, [2n, 2], I],
        [0, [3n, 3], I],
      ],
      [
        [0, [1n, 1], UB],
        [0, [1n, 10], UA],
        [1, [2n, 2], D],
      ],
      [
        [1, [2n, 20], I],
        [0, [3n, 3], D],
        [1, [4n, 4], I],
      ],
      [
        [1, [4n, 4], UB],
        [1, [4n, 40], UA],
      ],
    ]
    for (const [i, changes] of steps.entries()) {
      for (const [bucket, row, type] of changes) write(info, bucket, [row], [type])
      if (i % 2 === 0) {
        await seal(info)
        expect((await runTieringRound(deps, info)).status).toBe('committed')
      }
      const got = await union(info)
      expect(canon(got)).toEqual(await expected())
      expect(got.some(r => r.source === 'lake')).toBe(true)
    }
  })

  it('partitioned table: every partition of the lake and of the log', async () => {
    const info = await createTable(
      'daily',
      [
        ['dt', notNull(DataTypes.STRING())],
        ['id', notNull(DataTypes.BIGINT())],
      ],
      undefined,
      ['dt'],
    )
    const admin = connection.getAdmin()
    for (const dt of ['2024-01-01', '2024-01-02']) await admin.createPartition(info.tablePath, { dt })
    const partitions = await admin.listPartitionInfos(info.tablePath)
    deps = { ...deps, metadata: staticTieringMetadata([info], () => partitions) }
    const ids = partitions.map(p => p.partitionId)
    let next = 0
    const writeAll = () => {
      for (const p of partitions)
        for (const bucket of [0, 1])
          write(info, bucket, [[p.partitionName, BigInt(next++)]], undefined, p.partitionId)
    }
    writeAll()
    for (const p of partitions) await seal(info, p.partitionId)
    expect((await runTieringRound(deps, info)).status).toBe('committed')
    writeAll()
    const got = await union(info)
    expect(got.filter(r => r.source === 'lake')).toHaveLength(4)
    expect(canon(got)).toEqual(canon(await fullLog(info, ids)))
  })

  it('nested columns: lake and log rows merge by key with their ARRAY, MAP and ROW values whole', async () => {
    const sample = DataTypes.ROW([
      { name: 'values', type: DataTypes.ARRAY(DataTypes.FLOAT()), fieldId: 0 },
      { name: 'ts', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 0 },
    ])
    const info = await createTable(
      'nested',
      [
        ['id', notNull(DataTypes.BIGINT())],
        ['samples', DataTypes.ARRAY(DataTypes.MAP(DataTypes.STRING(), sample))],
        [
          'by_n',
          DataTypes.MAP(
            DataTypes.INT(),
            DataTypes.ARRAY(DataTypes.ROW([{ name: 'tag', type: DataTypes.TINYINT(), fieldId: 0 }])),
          ),
        ],
      ],
      ['id'],
    )
    const row = (id: number, v: number): Row => [
      BigInt(id),
      [
        new Map<Value, Value>([
          [`m${v}`, [[v + 0.5, null], new Timestamp(1_700_000_000_000 + v)]],
          ['none', null],
        ]),
        null,
      ],
      v % 2 === 0
        ? null
        : new Map<Value, Value>([
            [v, [[v % 100], null]],
            [-v, []],
          ]),
    ]
    // Maps, Decimals and Timestamps do not stringify: spell them out to compare whole values.
    const spelled = (rs: readonly { bucket: number; offset: number; timestamp: number; row: Row }[]) =>
      rs
        .map(r =>
          JSON.stringify([r.bucket, r.offset, r.timestamp, r.row], (_, v) =>
            typeof v === 'bigint' ? `${v}` : v instanceof Map ? { map: [...v] } : v,
          ),
        )
        .sort()
    const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = ChangeType
    const live = new Map<string, { bucket: number; offset: number; timestamp: number; row: Row }>()
    const expected = async () => {
      live.clear()
      for (const r of await fullLog(info)) {
        const k = keyString([r.row[0]])
        if (r.changeType === D) live.delete(k)
        else if (r.changeType !== UB) live.set(k, r)
      }
      return spelled([...live.values()])
    }
    write(info, 0, [row(1, 1), row(2, 2), row(3, 3)], [I, I, I])
    write(info, 1, [row(4, 4)], [I])
    await seal(info)
    expect((await runTieringRound(deps, info)).status).toBe('committed')
    write(info, 0, [row(1, 1), row(1, 11), row(2, 2)], [UB, UA, D])
    write(info, 1, [row(5, 5)], [I])
    const got = await union(info)
    expect(spelled(got)).toEqual(await expected())
    expect(got.filter(r => r.source === 'lake').map(r => r.row[0])).toEqual(expect.arrayContaining([3n, 4n]))
    expect(live.get(keyString([1n]))?.row).toEqual(row(1, 11))
  })

  it('refuses bad bounds with INVALID_REQUEST', async () => {
    const info = await createTable('bounds', [['id', DataTypes.BIGINT()]])
    const scan = unionScan(connection, info.tablePath, {
      lake: blobStoreLakeSource(blobStore, lakeRoot),
      maxPendingKeys: 0,
    })
    await expect(scan.next()).rejects.toMatchObject({ errorName: 'INVALID_REQUEST' })
    expect(() => blobStoreLakeSource(blobStore, 'not a uri')).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION' }),
    )
  })
})
