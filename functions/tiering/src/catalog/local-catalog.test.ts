import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import { tablePath } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type TempLake, tempLake } from '../testing/temp-lake.js'
import { isCommitStateUnknown } from './catalog.js'
import { LocalCatalog, lakeCatalogKey } from './local-catalog.js'

const path = tablePath('db', 't')

describe('LocalCatalog', () => {
  let lake: TempLake
  beforeEach(async () => {
    lake = await tempLake()
  })
  afterEach(() => lake.close())

  const location = () => lake.io.tableLocation(path)
  const input = (metadataLocation: string, json = '{"v":1}') => ({
    path,
    location: location(),
    metadataLocation,
    metadataJson: json,
    columns: [],
  })

  it('creates once, swaps with compare-and-swap and publishes version hints', async () => {
    const created = await lake.catalog.createTable(input(`${location()}/metadata/00000-a.metadata.json`))
    expect(created.version).toBe('1')
    await expect(lake.catalog.createTable(input('x'))).rejects.toMatchObject({
      name: 'FlussError(LAKE_TABLE_ALREADY_EXIST)',
    })
    const next = await lake.catalog.commitTable({
      ...input(`${location()}/metadata/00001-b.metadata.json`, '{"v":2}'),
      base: created,
    })
    expect(next).toEqual({ metadataLocation: `${location()}/metadata/00001-b.metadata.json`, version: '2' })
    await expect(lake.catalog.commitTable({ ...input('y'), base: created })).rejects.toMatchObject({
      name: 'FlussError(LAKE_COMMIT_CONFLICT)',
    })
    const dir = join(lake.dir, 'lake/db/t/metadata')
    expect(await readFile(join(dir, 'version-hint.text'), 'utf8')).toBe('2')
    expect(await readFile(join(dir, 'v2.metadata.json'), 'utf8')).toBe('{"v":2}')
    expect(await readFile(join(dir, 'v1.metadata.json'), 'utf8')).toBe('{"v":1}')
    const key = lakeCatalogKey(path)
    const item = await lake.metaStore.get(key.pk, key.sk)
    expect(item?.value).toMatchObject({
      table_type: 'ICEBERG',
      metadata_location: next.metadataLocation,
      previous_metadata_location: created.metadataLocation,
    })
    expect(await lake.catalog.loadTable(tablePath('db', 'missing'))).toBeUndefined()
  })

  it('resolves an unclear write by re-reading the item, and reports unknown outcomes', async () => {
    const created = await lake.catalog.createTable(input('m0'))
    let failWrites = 0
    let failReads = false
    const flaky: MetaStore = {
      get: (pk, sk, o) => (failReads ? Promise.reject(new Error('timeout')) : lake.metaStore.get(pk, sk, o)),
      query: (pk, o) => lake.metaStore.query(pk, o),
      delete: (pk, sk, c) => lake.metaStore.delete(pk, sk, c),
      close: () => lake.metaStore.close(),
      put: async (pk, sk, v, c) => {
        if (failWrites-- === 2) {
          await lake.metaStore.put(pk, sk, v, c)
          throw new FlussError('STORAGE_EXCEPTION', 'response lost')
        }
        if (failWrites >= 0) throw new FlussError('STORAGE_EXCEPTION', 'request failed')
        return lake.metaStore.put(pk, sk, v, c)
      },
    }
    const catalog = new LocalCatalog(flaky, lake.io)
    failWrites = 2
    const applied = await catalog.commitTable({ ...input('m1'), base: created })
    expect(applied).toEqual({ metadataLocation: 'm1', version: '2' })
    failWrites = 1
    await expect(catalog.commitTable({ ...input('m2'), base: applied })).rejects.toMatchObject({
      message: 'request failed',
    })
    failWrites = 1
    failReads = true
    const unknown = await catalog.commitTable({ ...input('m3'), base: applied }).catch(e => e)
    expect(isCommitStateUnknown(unknown)).toBe(true)
  })
})
