import {
  CreateDatabaseCommand,
  CreateTableCommand,
  GetTableCommand,
  type Table,
  UpdateTableCommand,
} from '@aws-sdk/client-glue'
import { tablePath } from '@sluice/core/metadata'
import { describe, expect, it } from 'vitest'
import { isCommitStateUnknown } from './catalog.js'
import { type GlueApi, GlueCatalog, glueType } from './glue-catalog.js'

type Command = GetTableCommand | CreateTableCommand | UpdateTableCommand | CreateDatabaseCommand

const named = (name: string, message = name) => Object.assign(new Error(message), { name })

/** An in-memory Glue with optimistic locking on VersionId, recording every call. */
class FakeGlue implements GlueApi {
  databases = new Set<string>()
  tables = new Map<string, Table>()
  calls: Command[] = []
  failNextUpdate: Error | undefined
  applyFailedUpdate = false

  async send(command: Command): Promise<unknown> {
    this.calls.push(command)
    const input = command.input as {
      DatabaseName?: string
      Name?: string
      VersionId?: string
      TableInput?: Table
      DatabaseInput?: { Name: string }
    }
    if (command instanceof CreateDatabaseCommand) {
      const name = input.DatabaseInput?.Name ?? ''
      if (this.databases.has(name)) throw named('AlreadyExistsException')
      this.databases.add(name)
      return {}
    }
    const key = `${input.DatabaseName}.${input.Name ?? input.TableInput?.Name}`
    if (command instanceof GetTableCommand) {
      const t = this.tables.get(key)
      if (t === undefined) throw named('EntityNotFoundException')
      return { Table: t }
    }
    if (command instanceof CreateTableCommand) {
      if (!this.databases.has(input.DatabaseName ?? '')) throw named('EntityNotFoundException')
      if (this.tables.has(key)) throw named('AlreadyExistsException')
      this.tables.set(key, { ...input.TableInput, DatabaseName: input.DatabaseName, VersionId: '1' } as Table)
      return {}
    }
    const current = this.tables.get(key) as Table
    if (input.VersionId !== current.VersionId) throw named('ConcurrentModificationException')
    const fail = this.failNextUpdate
    this.failNextUpdate = undefined
    if (fail === undefined || this.applyFailedUpdate) {
      this.tables.set(key, {
        ...input.TableInput,
        DatabaseName: input.DatabaseName,
        VersionId: String(Number(current.VersionId) + 1),
      } as Table)
    }
    if (fail !== undefined) throw fail
    return {}
  }
}

const path = tablePath('Sales', 'Orders')
const input = (metadataLocation: string) => ({
  path,
  location: 's3://bucket/lake/Sales/Orders',
  metadataLocation,
  metadataJson: '{}',
  columns: [
    { name: 'ID', icebergType: 'long', fieldId: 1, required: true, doc: 'key' },
    { name: 'ts', icebergType: 'timestamptz', fieldId: 3, required: false },
  ],
})

describe('GlueCatalog', () => {
  it('registers an Iceberg EXTERNAL_TABLE, creating the database on demand', async () => {
    const glue = new FakeGlue()
    const catalog = new GlueCatalog(glue)
    const created = await catalog.createTable(input('s3://bucket/m0.metadata.json'))
    expect(created).toEqual({ metadataLocation: 's3://bucket/m0.metadata.json', version: '1' })
    const table = glue.tables.get('sales.orders') as Table
    expect(table.TableType).toBe('EXTERNAL_TABLE')
    expect(table.Parameters).toEqual({
      table_type: 'ICEBERG',
      metadata_location: 's3://bucket/m0.metadata.json',
    })
    expect(table.StorageDescriptor?.Location).toBe('s3://bucket/lake/Sales/Orders')
    expect(table.StorageDescriptor?.Columns?.[0]).toEqual({
      Name: 'id',
      Type: 'bigint',
      Comment: 'key',
      Parameters: {
        'iceberg.field.id': '1',
        'iceberg.field.optional': 'false',
        'iceberg.field.current': 'true',
      },
    })
    expect(glue.databases.has('sales')).toBe(true)
    await expect(catalog.createTable(input('x'))).rejects.toMatchObject({
      name: 'FlussError(LAKE_TABLE_ALREADY_EXIST)',
    })
  })

  it('puts every table into one configured Glue database as <database>__<table>', async () => {
    const glue = new FakeGlue()
    glue.databases.add('sluice_prod')
    const catalog = new GlueCatalog(glue, undefined, 'sluice_prod')
    await catalog.createTable(input('s3://bucket/m0.metadata.json'))
    expect([...glue.tables.keys()]).toEqual(['sluice_prod.sales__orders'])
    expect([...glue.databases]).toEqual(['sluice_prod'])
    const loaded = await catalog.loadTable(path)
    expect(loaded?.metadataLocation).toBe('s3://bucket/m0.metadata.json')
  })

  it('commits with UpdateTable, VersionId compare-and-swap and SkipArchive, keeping other parameters', async () => {
    const glue = new FakeGlue()
    const catalog = new GlueCatalog(glue)
    const base = await catalog.createTable(input('m0'))
    ;(glue.tables.get('sales.orders') as Table).Parameters = {
      table_type: 'ICEBERG',
      metadata_location: 'm0',
      owner_team: 'x',
    }
    const next = await catalog.commitTable({ ...input('m1'), base })
    expect(next).toEqual({ metadataLocation: 'm1', version: '2' })
    const update = glue.calls.find(c => c instanceof UpdateTableCommand) as UpdateTableCommand
    expect(update.input).toMatchObject({
      DatabaseName: 'sales',
      Name: 'orders',
      VersionId: '1',
      SkipArchive: true,
    })
    expect(update.input.TableInput?.Parameters).toEqual({
      table_type: 'ICEBERG',
      metadata_location: 'm1',
      previous_metadata_location: 'm0',
      owner_team: 'x',
    })
    await expect(catalog.commitTable({ ...input('m2'), base })).rejects.toMatchObject({
      name: 'FlussError(LAKE_COMMIT_CONFLICT)',
    })
  })

  it('maps a lost VersionId race to LAKE_COMMIT_CONFLICT and checks unclear failures', async () => {
    const glue = new FakeGlue()
    const catalog = new GlueCatalog(glue)
    const base = await catalog.createTable(input('m0'))
    glue.failNextUpdate = named('ConcurrentModificationException')
    await expect(catalog.commitTable({ ...input('m1'), base })).rejects.toMatchObject({
      name: 'FlussError(LAKE_COMMIT_CONFLICT)',
    })
    glue.failNextUpdate = named('InternalServiceException', 'timeout')
    glue.applyFailedUpdate = true
    expect(await catalog.commitTable({ ...input('m1'), base })).toEqual({
      metadataLocation: 'm1',
      version: '2',
    })
    glue.applyFailedUpdate = false
    const now = await catalog.loadTable(path)
    glue.failNextUpdate = named('InternalServiceException', 'boom')
    await expect(catalog.commitTable({ ...input('m2'), base: now! })).rejects.toMatchObject({
      name: 'FlussError(STORAGE_EXCEPTION)',
    })
    let gets = 0
    const flaky: GlueApi = {
      send: async c => {
        if (c instanceof GetTableCommand && ++gets > 1) throw named('ThrottlingException')
        if (c instanceof UpdateTableCommand) throw named('InternalServiceException')
        return glue.send(c)
      },
    }
    const unknown = await new GlueCatalog(flaky).commitTable({ ...input('m3'), base: now! }).catch(e => e)
    expect(isCommitStateUnknown(unknown)).toBe(true)
  })

  it('maps Iceberg types to Glue types', () => {
    expect(
      [
        'boolean',
        'int',
        'long',
        'float',
        'double',
        'date',
        'time',
        'timestamp',
        'timestamptz',
        'string',
        'binary',
        'fixed[4]',
        'decimal(10, 2)',
      ].map(glueType),
    ).toEqual([
      'boolean',
      'int',
      'bigint',
      'float',
      'double',
      'date',
      'string',
      'timestamp',
      'timestamp',
      'string',
      'binary',
      'binary',
      'decimal(10,2)',
    ])
    expect(
      glueType({
        type: 'map',
        'key-id': 10,
        key: 'long',
        'value-id': 11,
        'value-required': false,
        value: {
          type: 'list',
          'element-id': 12,
          'element-required': true,
          element: {
            type: 'struct',
            fields: [
              { id: 3, name: 'at', required: false, type: 'timestamptz' },
              { id: 4, name: 'amount', required: false, type: 'decimal(5, 2)' },
            ],
          },
        },
      }),
    ).toBe('map<bigint,array<struct<at:timestamp,amount:decimal(5,2)>>>')
    expect(() =>
      glueType({ type: 'list', 'element-id': 1, 'element-required': false, element: 'variant' }),
    ).toThrow(/no Glue type for Iceberg type variant/)
    expect(isCommitStateUnknown(new Error('x'))).toBe(false)
  })
})

describe('IcebergTable over Glue', () => {
  it('creates and commits through Glue on s3:// locations, rebuilding over a Glue-side change', async () => {
    const { MemoryBlobStore } = await import('@sluice/core/blobstore')
    const { LakeFileIO } = await import('@sluice/lake/io')
    const { IcebergTable } = await import('../iceberg/table.js')
    const { tierLogRound } = await import('../testing/temp-lake.js')
    const { LOG_TABLE, tableInfoOf } = await import('@sluice/lake/testing')
    const glue = new FakeGlue()
    const io = new LakeFileIO(new MemoryBlobStore(), 's3://bucket/warehouse')
    const info = tableInfoOf(LOG_TABLE)
    const table = new IcebergTable(info.tablePath, { io, catalog: new GlueCatalog(glue, io) })
    const s0 = await table.createIfAbsent(info)
    expect(s0.pointer.metadataLocation).toMatch(
      /^s3:\/\/bucket\/warehouse\/lake\/fluss\/events\/metadata\/00000-/,
    )
    const rowOf = (id: number) => [BigInt(id), `n${id}`, null, null]
    const c1 = await tierLogRound(table, s0, 0, 0, 2, rowOf)
    const t = glue.tables.get('fluss.events') as Table
    glue.tables.set('fluss.events', {
      ...t,
      Description: 'touched by someone',
      VersionId: String(Number(t.VersionId) + 1),
    })
    const c2 = await tierLogRound(table, c1.state, 0, 2, 3, rowOf)
    const params = (glue.tables.get('fluss.events') as Table).Parameters
    expect(params?.metadata_location).toBe(c2.state.pointer.metadataLocation)
    expect(params?.previous_metadata_location).toBe(c1.state.pointer.metadataLocation)
    expect((glue.tables.get('fluss.events') as Table).Description).toBe('touched by someone')
    expect(c2.state.currentSnapshot?.['parent-snapshot-id']).toBe(c1.snapshotId)
    const dir = 's3://bucket/warehouse/lake/fluss/events/metadata'
    expect(Buffer.from(await io.read(`${dir}/version-hint.text`)).toString()).toBe('3')
    expect(Buffer.from(await io.read(`${dir}/v3.metadata.json`)).toString()).toBe(
      Buffer.from(await io.read(c2.state.pointer.metadataLocation)).toString(),
    )
  })
})
