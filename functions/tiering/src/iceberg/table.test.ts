import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Decimal, Timestamp } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import {
  FileContent,
  fromBoundBytes,
  parseTableMetadata,
  readManifest,
  readManifestList,
} from '@sluice/lake/iceberg'
import { LOG_TABLE, type TableSpec, tableInfoOf } from '@sluice/lake/testing'
import avro from 'avsc'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { commitStateUnknown, isCommitStateUnknown } from '../catalog/catalog.js'
import { type TempLake, tempLake } from '../testing/temp-lake.js'
import { IcebergTable } from './table.js'

const info = tableInfoOf(LOG_TABLE)
const logRow = (id: number) => [
  BigInt(id),
  `n${id}`,
  new Decimal(BigInt(id * 10), 2),
  new Timestamp(1_700_000_000_000 + id),
]

async function appendLog(table: IcebergTable, bucket: number, from: number, to: number) {
  const w = table.newDataFileWriter(bucket)
  await w.write(
    Array.from({ length: to - from }, (_, k) => ({
      row: logRow(from + k),
      offset: from + k,
      timestampMs: 1_000 + from + k,
    })),
  )
  return w.finish()
}

/** Every file under the lake directory, as file:// locations. */
async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.push(`file://${join(e.parentPath, e.name)}`)
  }
  return out.sort()
}

/** Records of an Avro file decoded by avsc's own reader (independent of ours). */
async function decodeAvro(path: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = []
  await new Promise((resolve, reject) =>
    avro
      .createFileDecoder(path)
      .on('data', r => out.push(r))
      .on('end', resolve)
      .on('error', reject),
  )
  return out
}

describe('IcebergTable commits (log table)', () => {
  let lake: TempLake
  let now = 1_800_000_000_000
  beforeEach(async () => {
    lake = await tempLake(() => now++)
  })
  afterEach(() => lake.close())

  it('creates a v2 table with every required member, once', async () => {
    const table = lake.table(info)
    const state = await table.createIfAbsent(info)
    const md = state.metadata
    expect(state.pointer.metadataLocation).toMatch(
      /\/lake\/fluss\/events\/metadata\/00000-[0-9a-f-]{36}\.metadata\.json$/,
    )
    const raw = JSON.parse(await readFile(fileURLToPath(state.pointer.metadataLocation), 'utf8'))
    for (const k of [
      'format-version',
      'table-uuid',
      'location',
      'last-sequence-number',
      'last-updated-ms',
      'last-column-id',
      'schemas',
      'current-schema-id',
      'partition-specs',
      'default-spec-id',
      'last-partition-id',
      'sort-orders',
      'default-sort-order-id',
    ]) {
      expect(raw).toHaveProperty([k])
    }
    expect(raw['format-version']).toBe(2)
    expect(raw).not.toHaveProperty(['current-snapshot-id'])
    expect(raw).not.toHaveProperty(['schema'])
    expect(raw.location).toBe(lake.io.tableLocation(info.tablePath))
    expect(raw.location.endsWith('/')).toBe(false)
    expect(Object.values(raw.properties).every(v => typeof v === 'string')).toBe(true)
    expect(raw['last-partition-id']).toBe(1000)
    expect(raw['sort-orders'][1]).toEqual({
      'order-id': 1,
      fields: [
        { transform: 'identity', 'source-id': 1_000_001, direction: 'asc', 'null-order': 'nulls-first' },
      ],
    })
    expect(raw['last-column-id']).toBeGreaterThanOrEqual(
      Math.max(...raw.schemas[0].fields.map((f: { id: number }) => f.id)),
    )
    const metadataDir = join(lake.dir, 'lake/fluss/events/metadata')
    expect(await readFile(join(metadataDir, 'version-hint.text'), 'utf8')).toBe('1')
    expect(await readFile(join(metadataDir, 'v1.metadata.json'), 'utf8')).toBe(
      await readFile(fileURLToPath(state.pointer.metadataLocation), 'utf8'),
    )
    const again = await lake.table(info).createIfAbsent(info)
    expect(again.metadata['table-uuid']).toBe(md['table-uuid'])
    expect((await allFiles(metadataDir)).length).toBe(3)
  })

  it('concurrent creators end with one table and no stray metadata', async () => {
    const [a, b] = await Promise.all([
      lake.table(info).createIfAbsent(info),
      lake.table(info).createIfAbsent(info),
    ])
    expect(a.metadata['table-uuid']).toBe(b.metadata['table-uuid'])
    expect((await allFiles(join(lake.dir, 'lake'))).filter(f => f.includes('00000-')).length).toBe(1)
  })

  it('refuses to bind a lake table whose schema Iceberg cannot evolve to the Fluss table', async () => {
    const s0 = await lake.table(info).createIfAbsent(info)
    const [id, name, amount, time] = LOG_TABLE.columns
    const incompatible: TableSpec['columns'][] = [
      [id, [name[0], DataTypes.INT()], amount, time], // string → int is no promotion
      [id, name, [amount[0], DataTypes.DECIMAL(12, 3)], time], // decimal scale changed
      [[id[0], DataTypes.INT()], name, amount, time], // long → int narrows
    ]
    for (const columns of incompatible) {
      const changed = tableInfoOf({ ...LOG_TABLE, columns })
      await expect(lake.table(changed).createIfAbsent(changed)).rejects.toMatchObject({
        name: 'FlussError(INVALID_TABLE_EXCEPTION)',
      })
    }
    // Nothing was committed by the refusals.
    expect((await lake.table(info).load()).pointer).toEqual(s0.pointer)
    // A column dropped (ids of the rest kept) is an evolution Iceberg can make: a new schema.
    const dropped = tableInfoOf({ ...LOG_TABLE, columns: [...LOG_TABLE.columns.slice(0, 2)] })
    const s1 = await lake.table(dropped).createIfAbsent(dropped)
    expect(s1.metadata['current-schema-id']).toBe(1)
    expect(s1.metadata.schemas.map(s => s.fields.filter(f => !f.name.startsWith('__')).length)).toEqual([
      4, 2,
    ])
  })

  it('commits snapshots with inherited sequence numbers, string summaries and consistent logs', async () => {
    const table = lake.table(info)
    const s0 = await table.createIfAbsent(info)
    const files1 = [...(await appendLog(table, 0, 0, 3)), ...(await appendLog(table, 1, 0, 2))]
    const c1 = await table.commitAppend({
      dataFiles: files1,
      summary: {
        flussOffsets: [
          { bucket: 0, offset: 3 },
          { bucket: 1, offset: 2 },
        ],
      },
      base: s0,
    })
    const files2 = await appendLog(table, 0, 3, 5)
    const c2 = await table.commitAppend({
      dataFiles: files2,
      summary: { flussOffsets: [{ bucket: 0, offset: 5 }] },
    })

    const md = parseTableMetadata(await readFile(fileURLToPath(c2.state.pointer.metadataLocation), 'utf8'))
    const [snap1, snap2] = md.snapshots
    expect(md['current-snapshot-id']).toBe(c2.snapshotId)
    expect(md.refs.main).toEqual({ 'snapshot-id': c2.snapshotId, type: 'branch' })
    expect(snap1['parent-snapshot-id']).toBeUndefined()
    expect(snap2['parent-snapshot-id']).toBe(c1.snapshotId)
    expect([snap1['sequence-number'], snap2['sequence-number'], md['last-sequence-number']]).toEqual([
      1, 2, 2,
    ])
    expect(snap2['timestamp-ms']).toBeGreaterThanOrEqual(snap1['timestamp-ms'])
    expect(c1.snapshotId < 2n ** 53n && c2.snapshotId > 0n).toBe(true)
    expect(md['snapshot-log'].map(e => e['snapshot-id'])).toEqual([c1.snapshotId, c2.snapshotId])
    expect(md['metadata-log'].map(e => e['metadata-file'])).toEqual([
      s0.pointer.metadataLocation,
      c1.state.pointer.metadataLocation,
    ])
    expect(md['last-updated-ms']).toBeGreaterThanOrEqual(md['snapshot-log'][1]['timestamp-ms'])
    expect(c2.state.pointer.metadataLocation).toMatch(/\/00002-[^/]+\.metadata\.json$/)
    expect(md['table-uuid']).toBe(s0.metadata['table-uuid'])

    const size = (files: { fileSizeInBytes: number }[]) => files.reduce((n, f) => n + f.fileSizeInBytes, 0)
    expect(snap1.summary).toEqual({
      operation: 'append',
      'added-data-files': '2',
      'added-records': '5',
      'added-files-size': String(size(files1)),
      'changed-partition-count': '2',
      'total-records': '5',
      'total-files-size': String(size(files1)),
      'total-data-files': '2',
      'total-delete-files': '0',
      'total-position-deletes': '0',
      'total-equality-deletes': '0',
      'commit-user': '__fluss_lake_tiering',
      'fluss-offsets': '[{"bucket":0,"offset":3},{"bucket":1,"offset":2}]',
    })
    expect(snap2.summary['total-records']).toBe('7')
    expect(snap2.summary['total-data-files']).toBe('3')
    expect(snap2.summary['fluss-offsets']).toBe('[{"bucket":0,"offset":5},{"bucket":1,"offset":2}]')
    expect((await table.load()).flussOffsets).toEqual([
      { bucket: 0, offset: 5 },
      { bucket: 1, offset: 2 },
    ])
  })

  it('writes manifest lists and manifests with the spec headers, schemas and counts', async () => {
    const table = lake.table(info)
    await table.createIfAbsent(info)
    const c1 = await table.commitAppend({
      dataFiles: await appendLog(table, 0, 0, 3),
      summary: { flussOffsets: [{ bucket: 0, offset: 3 }] },
    })
    const c2 = await table.commitAppend({
      dataFiles: await appendLog(table, 1, 0, 4),
      summary: { flussOffsets: [{ bucket: 1, offset: 4 }] },
    })
    const snap = c2.state.currentSnapshot
    if (snap === undefined) throw new Error('no snapshot')
    const listPath = fileURLToPath(snap['manifest-list'])
    expect(snap['manifest-list']).toMatch(
      new RegExp(`/metadata/snap-${c2.snapshotId}-1-[0-9a-f-]{36}\\.avro$`),
    )

    const listHeader = avro.extractFileHeader(listPath) as { meta: Record<string, Buffer> }
    const meta = (h: { meta: Record<string, Buffer> }, k: string) => h.meta[k]?.toString()
    expect(meta(listHeader, 'snapshot-id')).toBe(String(c2.snapshotId))
    expect(meta(listHeader, 'parent-snapshot-id')).toBe(String(c1.snapshotId))
    expect(meta(listHeader, 'sequence-number')).toBe('2')
    expect(meta(listHeader, 'format-version')).toBe('2')
    expect(['deflate', 'null']).toContain(meta(listHeader, 'avro.codec'))
    const listSchema = (listHeader.meta as unknown as Record<string, { fields: { 'field-id': number }[] }>)[
      'avro.schema'
    ]
    expect(listSchema.fields.map((f: { 'field-id': number }) => f['field-id'])).toEqual([
      500, 501, 502, 517, 515, 516, 503, 504, 505, 506, 512, 513, 514, 507, 519,
    ])

    const decoded = await decodeAvro(listPath)
    expect(decoded.map(m => m.sequence_number)).toEqual([2, 1])
    expect(decoded.map(m => m.added_snapshot_id)).toEqual([Number(c2.snapshotId), Number(c1.snapshotId)])
    const parentList = await decodeAvro(fileURLToPath(c1.state.currentSnapshot?.['manifest-list'] as string))
    expect(decoded[1]).toEqual(parentList[0])
    for (const m of readManifestList(await readFile(listPath))) {
      expect((await stat(fileURLToPath(m.manifestPath))).size).toBe(m.manifestLength)
      const header = avro.extractFileHeader(fileURLToPath(m.manifestPath)) as { meta: Record<string, Buffer> }
      expect(meta(header, 'format-version')).toBe('2')
      expect(meta(header, 'content')).toBe('data')
      expect(meta(header, 'partition-spec-id')).toBe('0')
      expect(meta(header, 'schema-id')).toBe('0')
      expect(JSON.parse(meta(header, 'partition-spec') as string)).toEqual([
        { name: '__bucket', transform: 'identity', 'source-id': 1_000_000, 'field-id': 1000 },
      ])
      expect(JSON.parse(meta(header, 'schema') as string).fields.length).toBe(7)
      const schema = (
        header.meta as unknown as Record<string, { fields: { name: string; type: unknown }[] }>
      )['avro.schema']
      const dataFile = schema.fields.find(f => f.name === 'data_file')?.type as {
        fields: Record<string, unknown>[]
      }
      expect(dataFile.fields.some(f => f['field-id'] === 105)).toBe(false)
      const partition = dataFile.fields.find(f => f['field-id'] === 102)?.type as { fields: unknown[] }
      expect(partition.fields).toEqual([
        { name: '__bucket', type: ['null', 'int'], default: null, 'field-id': 1000 },
      ])
      const { entries } = readManifest(await readFile(fileURLToPath(m.manifestPath)), 0)
      expect(
        entries.every(e => e.status === 1 && e.snapshotId === m.addedSnapshotId && e.sequenceNumber === null),
      ).toBe(true)
      expect(m.addedFilesCount).toBe(entries.length)
      expect(m.addedRowsCount).toBe(entries.reduce((n, e) => n + e.dataFile.recordCount, 0))
      expect(m.minSequenceNumber).toBe(m.sequenceNumber)
      expect(m.partitions?.[0].containsNull).toBe(false)
      const buckets = entries.map(e => e.dataFile.partition[0] as number)
      expect(fromBoundBytes('int', m.partitions?.[0].lowerBound as Uint8Array)).toBe(Math.min(...buckets))
      expect(fromBoundBytes('int', m.partitions?.[0].upperBound as Uint8Array)).toBe(Math.max(...buckets))
      for (const e of entries)
        expect((await stat(fileURLToPath(e.dataFile.filePath))).size).toBe(e.dataFile.fileSizeInBytes)
    }
  })

  it('lets exactly one of two racing writers win; the loser leaves no files behind', async () => {
    const a = lake.table(info)
    const b = lake.table(info)
    const base = await a.createIfAbsent(info)
    await b.createIfAbsent(info)
    const filesA = await appendLog(a, 0, 0, 3)
    const filesB = await appendLog(b, 0, 0, 3)
    const results = await Promise.allSettled([
      a.commitAppend({ dataFiles: filesA, summary: { flussOffsets: [{ bucket: 0, offset: 3 }] }, base }),
      b.commitAppend({ dataFiles: filesB, summary: { flussOffsets: [{ bucket: 0, offset: 3 }] }, base }),
    ])
    const won = results.filter(r => r.status === 'fulfilled')
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(won.length).toBe(1)
    expect(lost.length).toBe(1)
    expect(lost[0].reason).toMatchObject({ name: 'FlussError(LAKE_COMMIT_CONFLICT)' })
    const state = await a.load()
    const snap = state.currentSnapshot
    if (snap === undefined) throw new Error('no snapshot')
    const referenced = new Set<string>([
      state.pointer.metadataLocation,
      ...state.metadata['metadata-log'].map(e => e['metadata-file']),
      snap['manifest-list'],
    ])
    for (const m of readManifestList(await lake.io.read(snap['manifest-list']))) {
      referenced.add(m.manifestPath)
      for (const e of readManifest(await lake.io.read(m.manifestPath), 0).entries)
        referenced.add(e.dataFile.filePath)
    }
    const stray = (await allFiles(join(lake.dir, 'lake'))).filter(
      f => !referenced.has(f) && !/\/(v\d+\.metadata\.json|version-hint\.text)$/.test(f),
    )
    expect(stray).toEqual([])
  })

  it('rebuilds a commit on top of a commit by another writer', async () => {
    const table = lake.table(info)
    await table.createIfAbsent(info)
    const c1 = await table.commitAppend({
      dataFiles: await appendLog(table, 0, 0, 2),
      summary: { flussOffsets: [{ bucket: 0, offset: 2 }] },
    })
    const files = await appendLog(table, 0, 2, 4)
    const foreign = await table.commitMetadata(c1.state, {
      ...c1.state.metadata,
      properties: { ...c1.state.metadata.properties, owner: 'athena' },
    })
    const c2 = await table.commitAppend({
      dataFiles: files,
      summary: { flussOffsets: [{ bucket: 0, offset: 4 }] },
      base: c1.state,
    })
    expect(c2.state.metadata.properties.owner).toBe('athena')
    expect(c2.state.metadata['metadata-log'].at(-1)?.['metadata-file']).toBe(foreign.pointer.metadataLocation)
    expect(c2.state.currentSnapshot?.['parent-snapshot-id']).toBe(c1.snapshotId)
    expect(c2.state.currentSnapshot?.['manifest-list']).toMatch(/snap-\d+-2-/)
    expect(c2.state.currentSnapshot?.summary['total-records']).toBe('4')
  })

  it('refuses invalid commits with INVALID_REQUEST and commits nothing', async () => {
    const table = lake.table(info)
    await table.createIfAbsent(info)
    const files = await appendLog(table, 0, 0, 2)
    const c1 = await table.commitAppend({
      dataFiles: files,
      summary: { flussOffsets: [{ bucket: 0, offset: 2 }] },
    })
    const more = await appendLog(table, 0, 2, 3)
    const invalid = { name: 'FlussError(INVALID_REQUEST)' }
    await expect(
      table.commitAppend({ dataFiles: more, summary: { flussOffsets: [{ bucket: 0, offset: 1 }] } }),
    ).rejects.toMatchObject(invalid)
    await expect(
      table.commitAppend({ dataFiles: [], deleteFiles: files, summary: { flussOffsets: [] } }),
    ).rejects.toMatchObject(invalid)
    await expect(
      table.commitAppend({
        dataFiles: [{ ...files[0], filePath: 'file:///elsewhere/x.parquet' }],
        summary: { flussOffsets: [] },
      }),
    ).rejects.toMatchObject(invalid)
    await expect(
      table.commitAppend({ dataFiles: [files[0], files[0]], summary: { flussOffsets: [] } }),
    ).rejects.toMatchObject(invalid)
    const after = await table.load()
    expect(after.metadata.snapshots.length).toBe(1)
    expect(after.currentSnapshot?.['snapshot-id']).toBe(c1.snapshotId)
  })

  it('commits deletes alone as a delete snapshot in a separate delete manifest', async () => {
    const pkInfo = tableInfoOf({
      name: 'kv',
      columns: LOG_TABLE.columns,
      primaryKey: ['id'],
      bucketKeys: ['id'],
    })
    const table = lake.table(pkInfo)
    const base = await table.createIfAbsent(pkInfo)
    const w = table.newDataFileWriter(0)
    await w.write([{ row: logRow(1), offset: 0, timestampMs: 1 }])
    const c1 = await table.commitAppend({
      dataFiles: await w.finish(),
      summary: { flussOffsets: [{ bucket: 0, offset: 1 }] },
      base,
    })
    const del = await table.writeEqualityDeleteFile(0, [[1n]])
    const c2 = await table.commitAppend({
      dataFiles: [],
      deleteFiles: [del],
      summary: { flussOffsets: [{ bucket: 0, offset: 2 }] },
      base: c1.state,
    })
    expect(c2.state.currentSnapshot?.summary).toMatchObject({
      operation: 'delete',
      'added-delete-files': '1',
      'added-equality-delete-files': '1',
      'added-equality-deletes': '1',
      'total-delete-files': '1',
      'total-equality-deletes': '1',
      'total-data-files': '1',
    })
    const list = readManifestList(await lake.io.read(c2.state.currentSnapshot?.['manifest-list'] as string))
    expect(list.map(m => [m.content, m.sequenceNumber])).toEqual([
      [0, 1],
      [1, 2],
    ])
    const header = avro.extractFileHeader(fileURLToPath(list[1].manifestPath)) as {
      meta: Record<string, Buffer>
    }
    expect(header.meta.content.toString()).toBe('deletes')
    const [entry] = readManifest(await lake.io.read(list[1].manifestPath), 0).entries
    expect(entry.dataFile).toMatchObject({ content: FileContent.EQUALITY_DELETES, equalityIds: [1] })
  })

  it('keeps every file when the catalog cannot say whether the swap happened', async () => {
    const table = lake.table(info)
    const base = await table.createIfAbsent(info)
    const files = await appendLog(table, 0, 0, 2)
    const before = new Set(await allFiles(join(lake.dir, 'lake')))
    const unsure = new IcebergTable(info.tablePath, {
      io: lake.io,
      catalog: {
        loadTable: p => lake.catalog.loadTable(p),
        createTable: () => Promise.reject(new Error('unused')),
        commitTable: () => Promise.reject(commitStateUnknown(new Error('timeout'), 'unknown outcome')),
      },
    })
    await unsure.createIfAbsent(info)
    const err = await unsure
      .commitAppend({ dataFiles: files, summary: { flussOffsets: [{ bucket: 0, offset: 2 }] }, base })
      .catch(e => e)
    expect(isCommitStateUnknown(err)).toBe(true)
    const after = await allFiles(join(lake.dir, 'lake'))
    for (const f of before) expect(after).toContain(f)
    expect(after.some(f => /snap-.*\.avro$/.test(f))).toBe(true)
    expect(after.some(f => /00001-.*\.metadata\.json$/.test(f))).toBe(true)
  })
})
