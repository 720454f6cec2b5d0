import { Connection, type Table, type UpsertWriter } from '@sluice/client'
import { Schema, TableDescriptor, tablePath } from '@sluice/core/metadata'
import { changeTypeShortString } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { type Canonical, fromCanonical, parseType, type TableSpec, toCanonical } from '../canonical.js'
import { datasetRow } from '../dataset.js'
import type {
  DatasetRange,
  Driver,
  KvOp,
  LogRecordOut,
  PartitionOut,
  ScanFromResult,
  VerifyResult,
} from './driver.js'
import { SdkVerify } from './sdk-verify.js'

const SETTLE_POLL_MS = 1000
const CHANGELOG_TIMEOUT_MS = 30_000

/** Our TypeScript SDK (@sluice/client) as a Driver, in-process. */
export class SdkDriver implements Driver {
  readonly name = 'ts-sdk'

  private constructor(readonly connection: Connection) {}

  /** `clientConf` adds client options (SASL credentials). */
  static async connect(
    bootstrap: string,
    clientConf: Readonly<Record<string, string>> = {},
  ): Promise<SdkDriver> {
    const connection = await Connection.create({
      'bootstrap.servers': bootstrap,
      'client.writer.dynamic-create-partition.enabled': true,
      ...clientConf,
    })
    return new SdkDriver(connection)
  }

  close(): Promise<void> {
    return this.connection.close()
  }

  async createDatabase(db: string): Promise<void> {
    await this.connection.getAdmin().createDatabase(db)
  }

  async createTable(db: string, table: string, spec: TableSpec): Promise<void> {
    const schema = Schema.newBuilder()
    for (const c of spec.columns) {
      if (c.agg !== undefined)
        throw new Error(`the SDK driver does not declare aggregate functions (column ${c.name})`)
      schema.column(c.name, parseType(c.type, c.nullable ?? true))
    }
    if (spec.primaryKey) schema.primaryKey(spec.primaryKey)
    const descriptor = TableDescriptor.builder()
      .schema(schema.build())
      .partitionedBy(spec.partitionKeys ?? [])
      .distributedBy(spec.buckets, spec.bucketKeys ?? [])
      .properties(spec.properties ?? {})
      .build()
    await this.connection.getAdmin().createTable(tablePath(db, table), descriptor)
  }

  async #table(db: string, table: string): Promise<Table> {
    return this.connection.getTable(tablePath(db, table))
  }

  async #appendAll(table: Table, rows: Iterable<readonly Canonical[]>): Promise<void> {
    const types = table.getTableInfo().rowType.fields.map(f => f.type)
    const writer = table.newAppend().createWriter()
    try {
      for (const values of rows) {
        if (values.length !== types.length)
          throw new Error(`${values.length} values for ${types.length} columns`)
        const row: Row = values.map((v, k) => fromCanonical(v, types[k]))
        const wait = writer.append(row)
        if (wait) await wait
      }
      await writer.flush()
    } finally {
      await writer.close()
    }
  }

  async write(db: string, table: string, n: number, range: DatasetRange = {}): Promise<void> {
    const t = await this.#table(db, table)
    const names = t.getTableInfo().rowType.fields.map(f => f.name)
    const start = range.start ?? 0
    function* rows() {
      for (let i = start; i < start + n; i++) yield datasetRow(i, range.salt ?? 0, names)
    }
    await this.#appendAll(t, rows())
  }

  async verify(
    db: string,
    table: string,
    n: number,
    range: DatasetRange & { project?: readonly string[] } = {},
  ): Promise<VerifyResult> {
    const t = await this.#table(db, table)
    const verify = new SdkVerify(t, range.start ?? 0, n, range.salt ?? 0)
    return verify.run(this.connection.getAdmin(), tablePath(db, table), range.project)
  }

  async append(db: string, table: string, rows: readonly (readonly Canonical[])[]): Promise<void> {
    await this.#appendAll(await this.#table(db, table), rows)
  }

  /** Upserts and deletes in order (a partial update through a writer of its columns), then flushes. */
  async upsert(db: string, table: string, ops: readonly KvOp[]): Promise<void> {
    const t = await this.#table(db, table)
    const fields = t.getTableInfo().rowType.fields
    const types = fields.map(f => f.type)
    const names = fields.map(f => f.name)
    const writers = new Map<string, UpsertWriter>()
    const writerOf = (columns: readonly string[] | undefined) => {
      const key = columns?.join(',') ?? ''
      let w = writers.get(key)
      if (w === undefined) {
        w = t.newUpsert().partialUpdate(columns).createWriter()
        writers.set(key, w)
      }
      return w
    }
    try {
      for (const op of ops) {
        if (op.op === 'flush') {
          for (const w of writers.values()) await w.flush()
          continue
        }
        const full: Row = op.row.map((v, k) => fromCanonical(v, types[k]))
        // A partial update's writer takes the values of its target columns only.
        const row = op.columns ? op.columns.map(name => full[names.indexOf(name)]) : full
        const w = writerOf(op.columns)
        const wait = op.op === 'upsert' ? w.upsert(row) : w.delete(row)
        if (wait) await wait
      }
      for (const w of writers.values()) await w.flush()
    } finally {
      for (const w of writers.values()) await w.close()
    }
  }

  /** One row (or null) per primary key; prefix lookups (`by`) are not driven through the SDK here. */
  async lookup(db: string, table: string, keys: readonly (readonly Canonical[])[], by?: readonly string[]) {
    if (by !== undefined) throw new Error('the SDK driver looks up primary keys only')
    const t = await this.#table(db, table)
    const info = t.getTableInfo()
    const fields = info.rowType.fields
    const keyTypes = info.primaryKeys.map(k => fields.find(f => f.name === k)!.type)
    const lookuper = t.newLookup().createLookuper()
    const found = await Promise.all(
      keys.map(key =>
        lookuper.lookup(
          Object.fromEntries(info.primaryKeys.map((k, i) => [k, fromCanonical(key[i], keyTypes[i])])),
        ),
      ),
    )
    return found.map(r => {
      const row = r.singletonRow()
      return row === null ? null : row.map((v, k) => toCanonical(v, fields[k].type))
    })
  }

  async scanFrom(db: string, table: string, bucket: number, offset: number): Promise<ScanFromResult> {
    const t = await this.#table(db, table)
    const latest = (
      await this.connection.getAdmin().listOffsets(tablePath(db, table), [bucket], 'latest')
    ).get(bucket)!
    const scanner = t.newScan().createLogScanner()
    let first = -1
    let next = offset
    let records = 0
    const deadline = Date.now() + CHANGELOG_TIMEOUT_MS
    try {
      scanner.subscribe(bucket, offset)
      // Polls at least once, so that a start beyond the end meets the server's answer.
      do {
        for (const r of await scanner.poll(1000)) {
          if (first < 0) first = r.offset
          next = r.offset + 1
          records++
        }
      } while (next < latest && Date.now() < deadline)
    } finally {
      scanner.close()
    }
    return { records, firstOffset: first, nextOffset: next, latest }
  }

  async changelog(
    db: string,
    table: string,
    expected: number,
    project?: readonly string[],
  ): Promise<LogRecordOut[]> {
    const t = await this.#table(db, table)
    const info = t.getTableInfo()
    const fields = info.rowType.fields
    const types = (project ?? fields.map(f => f.name)).map(name => fields.find(f => f.name === name)!.type)
    const scan = project ? t.newScan().project(project) : t.newScan()
    const scanner = scan.createLogScanner()
    const names = new Map<number, string>()
    try {
      if (info.isPartitioned) {
        for (const p of await this.connection.getAdmin().listPartitionInfos(tablePath(db, table))) {
          names.set(p.partitionId, p.partitionName)
          for (let b = 0; b < info.numBuckets; b++) scanner.subscribeFromBeginning(p.partitionId, b)
        }
      } else {
        for (let b = 0; b < info.numBuckets; b++) scanner.subscribeFromBeginning(b)
      }
      const out: LogRecordOut[] = []
      const deadline = Date.now() + CHANGELOG_TIMEOUT_MS
      while (Date.now() < deadline) {
        const complete = out.length >= expected
        const records = await scanner.poll(complete ? SETTLE_POLL_MS : 200)
        if (records.isEmpty() && complete) break
        for (const tb of records.buckets()) {
          for (const r of records.records(tb)) {
            out.push({
              bucket: tb.bucket,
              partition: tb.partitionId === undefined ? null : (names.get(tb.partitionId) ?? null),
              offset: r.offset,
              change: changeTypeShortString(r.changeType),
              row: r.row.map((v, k) => toCanonical(v, types[k])),
            })
          }
        }
      }
      return out
    } finally {
      scanner.close()
    }
  }

  async offsets(
    db: string,
    table: string,
    spec: 'earliest' | 'latest' | number,
  ): Promise<Record<string, number>> {
    const path = tablePath(db, table)
    const info = await this.connection.getAdmin().getTableInfo(path)
    const buckets = Array.from({ length: info.numBuckets }, (_, b) => b)
    const offsetSpec = typeof spec === 'number' ? { timestamp: spec } : spec
    const found = await this.connection.getAdmin().listOffsets(path, buckets, offsetSpec)
    return Object.fromEntries([...found].map(([b, o]) => [String(b), o]))
  }

  async createPartition(db: string, table: string, spec: Readonly<Record<string, string>>): Promise<void> {
    await this.connection.getAdmin().createPartition(tablePath(db, table), spec)
  }

  async partitions(db: string, table: string): Promise<PartitionOut[]> {
    const infos = await this.connection.getAdmin().listPartitionInfos(tablePath(db, table))
    return infos
      .map(p => ({ id: p.partitionId, name: p.partitionName }))
      .sort((a, b) => a.name.localeCompare(b.name))
  }
}
