import { existsSync, readdirSync } from 'node:fs'
import type { Connection, LogScanner, Table } from '@sluice/client'
import { FlussError, isFlussError } from '@sluice/core/errors'
import {
  Schema,
  TableDescriptor,
  type TablePath,
  tableDescriptorToJsonValue,
  tablePath,
} from '@sluice/core/metadata'
import { ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { ConnectionPool } from '@sluice/core/rpc'
import { DataTypes } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LocalCluster, uniqueName, waitUntil } from '../harness/index.js'
import { connect, createDatabase, startReadyCluster, type TestCluster } from './support/cluster.js'
import { tableDir } from './support/storage-files.js'

/** `max.partition.num` of the cluster: small, so that the limit is reached with a few partitions. */
const MAX_PARTITIONS = 4
const CLIENT = {
  'client.scanner.partition.discovery-interval': '200ms',
  'client.writer.bucket.no-key-assigner': 'ROUND_ROBIN',
}

const logSchema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('dt', DataTypes.STRING())
  .column('name', DataTypes.STRING())
  .build()
const logDescriptor = TableDescriptor.builder().schema(logSchema).partitionedBy('dt').distributedBy(2).build()

/** Physical primary key (user, seq); the bucket key `user` is its prefix, so (user, dt) is a prefix lookup. */
const pkSchema = Schema.newBuilder()
  .column('user', DataTypes.INT())
  .column('dt', DataTypes.STRING())
  .column('seq', DataTypes.INT())
  .column('amount', DataTypes.BIGINT())
  .primaryKey('user', 'dt', 'seq')
  .build()
const pkDescriptor = TableDescriptor.builder()
  .schema(pkSchema)
  .partitionedBy('dt')
  .distributedBy(2, 'user')
  .build()

interface Read {
  readonly partitionId: number | undefined
  readonly changeType: ChangeType
  readonly row: Row
}

/** Polls until `count` records arrived (bounded); any poll error fails the test. */
async function pollRecords(scanner: LogScanner, count: number, timeoutMs = 60_000): Promise<Read[]> {
  const got: Read[] = []
  const deadline = Date.now() + timeoutMs
  while (got.length < count && Date.now() < deadline) {
    const records = await scanner.poll(500)
    for (const bucket of records.buckets()) {
      for (const r of records.records(bucket))
        got.push({ partitionId: bucket.partitionId, changeType: r.changeType, row: r.row })
    }
  }
  return got
}

async function expectFlussError(p: Promise<unknown>, name: string, code: number): Promise<FlussError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isFlussError(error), `expected FlussError ${name}, got ${String(error)}`).toBe(true)
  expect((error as FlussError).errorName).toBe(name)
  expect((error as FlussError).code).toBe(code)
  return error as FlussError
}

describe('partitioned tables through the SDK against a local cluster', () => {
  let tc: TestCluster | undefined
  let connection: Connection
  let database: string

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 2,
      prefix: 'sluice-it-partitions',
      serverConfig: { 'max.partition.num': String(MAX_PARTITIONS) },
    })
    connection = await connect(tc.cluster, CLIENT)
    database = await createDatabase(connection, 'it_parts')
  })

  afterAll(async () => {
    await connection?.close().catch(() => undefined)
    await tc?.stop()
  })

  async function newTable(
    prefix: string,
    descriptor: TableDescriptor,
  ): Promise<{ path: TablePath; table: Table }> {
    const path = tablePath(database, uniqueName(prefix))
    await connection.getAdmin().createTable(path, descriptor)
    return { path, table: await connection.getTable(path) }
  }

  const partitionNames = async (path: TablePath) =>
    (await connection.getAdmin().listPartitionInfos(path)).map(p => p.partitionName).sort()

  it('a log scanner started before any partition exists reads every row writers create partitions for', async () => {
    const { path, table } = await newTable('plog', logDescriptor)
    const days = ['20250101', '20250102', '20250103']
    const scanner = table.newScan().createLogScanner()
    try {
      await scanner.subscribeAllPartitions()
      expect((await scanner.poll(300)).isEmpty()).toBe(true)
      const writer = table.newAppend().createWriter()
      for (let i = 0; i < 300; i++) writer.append([i, days[i % 3], `n${i}`])
      await writer.close()
      expect(await partitionNames(path)).toEqual(days)

      const read = await pollRecords(scanner, 300)
      expect(read).toHaveLength(300)
      expect(new Set(read.map(r => r.row[0]))).toEqual(new Set(Array.from({ length: 300 }, (_, i) => i)))
      const nameOf = new Map(scanner.discoveredPartitions().map(p => [p.partitionId, p.partitionName]))
      for (const r of read) {
        expect(nameOf.get(r.partitionId as number)).toBe(r.row[1])
        expect(r.row).toEqual([r.row[0], days[Number(r.row[0]) % 3], `n${r.row[0]}`])
        expect(r.changeType).toBe(ChangeType.APPEND_ONLY)
      }
      expect(scanner.subscriptions()).toHaveLength(6)

      // A dropped partition ends its subscriptions quietly; the others keep delivering.
      const dropped = scanner.discoveredPartitions().find(p => p.partitionName === days[2])?.partitionId
      await connection.getAdmin().dropPartition(path, { dt: days[2] })
      const deadline = Date.now() + 30_000
      while (scanner.subscriptions().some(b => b.partitionId === dropped) && Date.now() < deadline)
        expect((await scanner.poll(200)).isEmpty()).toBe(true)
      expect(scanner.subscriptions().map(b => b.partitionId)).not.toContain(dropped)
      // Every tablet server forgets the dropped partition: its buckets are unknown, not led elsewhere.
      const { tableId } = await connection.getAdmin().getTableInfo(path)
      await waitUntil(
        async () => (await droppedBucketErrors(tc!.cluster, tableId, dropped as number)).every(unknownBucket),
        {
          timeoutMs: 30_000,
          what: 'UNKNOWN_TABLE_OR_BUCKET_EXCEPTION for the dropped partition on every tablet server',
        },
      )
      const more = table.newAppend().createWriter()
      for (let i = 300; i < 310; i++) more.append([i, days[0], `n${i}`])
      await more.close()
      const tail = await pollRecords(scanner, 10)
      expect(tail.map(r => r.row[0]).sort()).toEqual(Array.from({ length: 10 }, (_, i) => 300 + i).sort())
    } finally {
      scanner.close()
    }
  })

  it('a primary-key table: changelog of new partitions, lookups and prefix lookups with the partition column', async () => {
    const { path, table } = await newTable('ppk', pkDescriptor)
    const scanner = table.newScan().createLogScanner()
    try {
      await scanner.subscribeAllPartitions()
      const writer = table.newUpsert().createWriter()
      for (let user = 0; user < 10; user++)
        for (const dt of ['d1', 'd2'])
          for (let seq = 0; seq < 3; seq++) writer.upsert([user, dt, seq, BigInt(seq)])
      await writer.flush()
      for (let user = 0; user < 10; user++) writer.upsert([user, 'd1', 0, 100n + BigInt(user)])
      for (let user = 0; user < 5; user++) writer.delete({ user, dt: 'd2', seq: 2 })
      await writer.close()
      expect(await partitionNames(path)).toEqual(['d1', 'd2'])

      const read = await pollRecords(scanner, 60 + 20 + 5)
      const count = (type: ChangeType) => read.filter(r => r.changeType === type).length
      expect(read).toHaveLength(85)
      expect(count(ChangeType.INSERT)).toBe(60)
      expect(count(ChangeType.UPDATE_BEFORE)).toBe(10)
      expect(count(ChangeType.UPDATE_AFTER)).toBe(10)
      expect(count(ChangeType.DELETE)).toBe(5)

      const lookuper = table.newLookup().createLookuper()
      expect((await lookuper.lookup({ user: 3, dt: 'd1', seq: 0 })).singletonRow()).toEqual([
        3,
        'd1',
        0,
        103n,
      ])
      expect((await lookuper.lookup([4, 'd2', 1])).singletonRow()).toEqual([4, 'd2', 1, 1n])
      expect((await lookuper.lookup([4, 'd2', 2])).singletonRow()).toBeNull()
      // A partition that does not exist holds nothing, and looking into it creates nothing.
      expect((await lookuper.lookup([4, 'd9', 1])).singletonRow()).toBeNull()

      const prefix = table.newLookup().lookupBy(['user', 'dt']).createLookuper()
      expect((await prefix.lookup([7, 'd2'])).rows()).toEqual([
        [7, 'd2', 0, 0n],
        [7, 'd2', 1, 1n],
        [7, 'd2', 2, 2n],
      ])
      expect((await prefix.lookup([2, 'd2'])).rows()).toEqual([
        [2, 'd2', 0, 0n],
        [2, 'd2', 1, 1n],
      ])
      expect((await prefix.lookup([7, 'd9'])).rows()).toEqual([])
      expect(await partitionNames(path)).toEqual(['d1', 'd2'])
    } finally {
      scanner.close()
    }
  })

  it('a dropped partition found by fetching: quiet for a discovering scanner, one PARTITION_NOT_EXISTS by hand', async () => {
    const { path, table } = await newTable('pdrop', logDescriptor)
    const writer = table.newAppend().createWriter()
    for (let i = 0; i < 20; i++) writer.append([i, i % 2 === 0 ? 'keep' : 'gone', `n${i}`])
    await writer.flush()
    const infos = await connection.getAdmin().listPartitionInfos(path)
    const idOf = (name: string) => infos.find(p => p.partitionName === name)?.partitionId as number
    // No listing after the first: only the fetcher can notice the drop.
    const discovering = table.newScan().createLogScanner()
    const byHand = table.newScan().createLogScanner()
    try {
      await discovering.subscribeAllPartitions('earliest', { discoveryIntervalMs: 0 })
      for (const name of ['keep', 'gone'])
        for (let b = 0; b < 2; b++) byHand.subscribeFromBeginning(idOf(name), b)
      expect(await pollRecords(discovering, 20)).toHaveLength(20)
      expect(await pollRecords(byHand, 20)).toHaveLength(20)

      await connection.getAdmin().dropPartition(path, { dt: 'gone' })
      for (let i = 20; i < 30; i++) writer.append([i, 'keep', `n${i}`])
      await writer.close()

      const gone = idOf('gone')
      const quiet = await pollRecords(discovering, 10)
      const deadline = Date.now() + 30_000
      while (discovering.subscriptions().some(b => b.partitionId === gone) && Date.now() < deadline)
        quiet.push(...(await pollRecords(discovering, 1, 200)))
      expect(discovering.subscriptions().map(b => b.partitionId)).toEqual([idOf('keep'), idOf('keep')])
      expect(discovering.discoveredPartitions().map(p => p.partitionName)).toEqual(['keep'])
      expect(quiet.map(r => r.row[0]).sort()).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i).sort())

      const errors: unknown[] = []
      const rows: Row[] = []
      const until = Date.now() + 30_000
      while ((errors.length === 0 || rows.length < 10) && Date.now() < until) {
        try {
          for (const r of await byHand.poll(200)) rows.push(r.row)
        } catch (e) {
          errors.push(e)
        }
      }
      for (let k = 0; k < 3; k++) for (const r of await byHand.poll(100)) rows.push(r.row)
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatchObject({ errorName: 'PARTITION_NOT_EXISTS', code: 36 })
      expect(rows.map(r => r[0]).sort()).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i).sort())
      expect(byHand.subscriptions().map(b => b.partitionId)).toEqual([idOf('keep'), idOf('keep')])

      // The dropped partition's local data is gone from every tablet server.
      const { tableId } = await connection.getAdmin().getTableInfo(path)
      const partitionDirs = () =>
        [...tc!.cluster.tablets.keys()].flatMap(id => {
          const dir = tableDir(tc!.cluster, id, path, tableId)
          return existsSync(dir) ? readdirSync(dir) : []
        })
      await waitUntil(() => !partitionDirs().includes(`gone-${gone}`), {
        timeoutMs: 30_000,
        what: 'the dropped partition directories to be deleted',
      })
      expect(partitionDirs()).toContain(`keep-${idOf('keep')}`)
      // Writing to it without dynamic partition creation fails clearly and writes nothing.
      const strict = await connect(tc!.cluster, { 'client.writer.dynamic-create-partition.enabled': 'false' })
      try {
        const late = (await strict.getTable(path)).newAppend().createWriter()
        await expectFlussError(late.appendWithResult([99, 'gone', 'late']), 'PARTITION_NOT_EXISTS', 36)
        await late.close().catch(() => undefined)
      } finally {
        await strict.close()
      }
      expect(await partitionNames(path)).toEqual(['keep'])
    } finally {
      discovering.close()
      byHand.close()
    }
  })

  it('invalid partition values: PARTITION_SPEC_INVALID_EXCEPTION, and no partition is created', async () => {
    const { path, table } = await newTable('pbad', logDescriptor)
    const admin = connection.getAdmin()
    for (const value of ['a/b', 'has space', '__reserved', 'x'.repeat(201), ''])
      await expectFlussError(
        admin.createPartition(path, { dt: value }),
        'PARTITION_SPEC_INVALID_EXCEPTION',
        43,
      )
    await expectFlussError(admin.createPartition(path, { nope: 'x' }), 'PARTITION_SPEC_INVALID_EXCEPTION', 43)
    const writer = table.newAppend().createWriter()
    await expectFlussError(
      writer.appendWithResult([1, 'bad/value', 'n']),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      43,
    )
    await writer.close().catch(() => undefined)
    expect(await partitionNames(path)).toEqual([])
  })

  it(`more than max.partition.num (${MAX_PARTITIONS}) partitions: PARTITION_MAX_NUM_EXCEPTION, nothing created`, async () => {
    const { path, table } = await newTable('pmax', logDescriptor)
    const admin = connection.getAdmin()
    const allowed = Array.from({ length: MAX_PARTITIONS }, (_, i) => `p${i}`)
    for (const dt of allowed) await admin.createPartition(path, { dt })
    await expectFlussError(
      admin.createPartition(path, { dt: 'one_too_many' }),
      'PARTITION_MAX_NUM_EXCEPTION',
      45,
    )
    const writer = table.newAppend().createWriter()
    await expectFlussError(writer.appendWithResult([1, 'by_writer', 'n']), 'PARTITION_MAX_NUM_EXCEPTION', 45)
    await writer.close().catch(() => undefined)
    expect(await partitionNames(path)).toEqual(allowed)
    // Room is made by dropping one.
    await admin.dropPartition(path, { dt: 'p0' })
    await admin.createPartition(path, { dt: 'one_too_many' })
    expect(await partitionNames(path)).toEqual([...allowed.slice(1), 'one_too_many'].sort())
  })

  it('a primary key without the partition key: INVALID_TABLE_EXCEPTION from the client and the server, no table', async () => {
    const path = tablePath(database, uniqueName('pnokey'))
    const admin = connection.getAdmin()
    const schema = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('dt', DataTypes.STRING())
      .primaryKey('id')
      .build()
    let local: unknown
    try {
      TableDescriptor.builder().schema(schema).partitionedBy('dt').distributedBy(1).build()
    } catch (e) {
      local = e
    }
    expect(local).toMatchObject({ errorName: 'INVALID_TABLE_EXCEPTION', code: 15 })
    // The same descriptor sent as Fluss clients send it, past the SDK's own check.
    const valid = TableDescriptor.builder().schema(pkSchema).partitionedBy('dt').distributedBy(1).build()
    const json = tableDescriptorToJsonValue(valid) as { schema: { primary_key: string[] } }
    json.schema.primary_key = ['user', 'seq']
    const coordinator = tc!.cluster.coordinators[0]
    const pool = new ConnectionPool({ clientSoftwareName: 'sluice-it-partitions' })
    try {
      const request = pool.request({ host: coordinator.host, port: coordinator.port }, 'CREATE_TABLE', {
        tablePath: { databaseName: path.databaseName, tableName: path.tableName },
        tableJson: Buffer.from(JSON.stringify(json)),
        ignoreIfExists: false,
      })
      const error = await expectFlussError(request, 'INVALID_TABLE_EXCEPTION', 15)
      expect(error.message).toMatch(/partition key/i)
    } finally {
      await pool.close()
    }
    expect(await admin.tableExists(path)).toBe(false)
    expect(await admin.listTables(database)).not.toContain(path.tableName)
  })
})

function unknownBucket(code: number): boolean {
  return code !== 0 && FlussError.fromCode(code).errorName === 'UNKNOWN_TABLE_OR_BUCKET_EXCEPTION'
}

/** The error code each tablet server answers LIST_OFFSETS for bucket 0 of a partition with. */
async function droppedBucketErrors(
  cluster: LocalCluster,
  tableId: number,
  partitionId: number,
): Promise<number[]> {
  const pool = new ConnectionPool({ clientSoftwareName: 'sluice-it-partitions' })
  try {
    return await Promise.all(
      [...cluster.tablets.values()].map(async server => {
        const response = await pool.request({ host: server.host, port: server.port }, 'LIST_OFFSETS', {
          followerServerId: -1,
          offsetType: 1,
          tableId,
          partitionId,
          bucketId: [0],
          startTimestamp: null,
        })
        return response.bucketsResp[0]?.errorCode ?? 0
      }),
    )
  } finally {
    await pool.close()
  }
}
