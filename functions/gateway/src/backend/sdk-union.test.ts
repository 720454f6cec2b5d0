import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { startSdkGateway } from '../testing/sdk-gateway.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function lakeDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-gateway-lake-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  return pathToFileURL(dir).href
}

const KV = {
  name: 'kv',
  schema: {
    columns: [
      { name: 'k', type: 'INT NOT NULL' },
      { name: 'v', type: 'STRING' },
    ],
    primary_key: ['k'],
  },
  bucket_count: 2,
}

describe('union reads over the SDK', () => {
  it('reads the log alone while nothing is tiered, merging primary-key changes by key', async () => {
    const gw = await startSdkGateway(cleanups, { 'sluice.blobstore.uri': await lakeDir() })
    await gw.call('POST', '/v1/databases', { name: 'db' })
    expect((await gw.call('POST', '/v1/databases/db/tables', KV)).status).toBe(201)
    const rows = [1, 2, 3].map(k => ({ k, v: `a${k}` }))
    await gw.call('POST', '/v1/databases/db/tables/kv/upsert', { rows })
    await gw.call('POST', '/v1/databases/db/tables/kv/upsert', { rows: [{ k: 2, v: 'b2' }] })
    await gw.call('POST', '/v1/databases/db/tables/kv/delete', { keys: [{ k: 3 }] })
    const res = await gw.call('GET', '/v1/databases/db/tables/kv/union-read')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.lake_snapshot_id).toBeNull()
    expect(res.body.truncated).toBe(false)
    expect([...res.body.rows].sort((a, b) => a.k - b.k)).toEqual([
      { k: 1, v: 'a1' },
      { k: 2, v: 'b2' },
    ])
    const one = await gw.call('GET', '/v1/databases/db/tables/kv/union-read?limit=1&columns=v')
    expect([one.body.rows.length, one.body.truncated]).toEqual([1, true])
  })

  it('answers 501 naming the missing setting when the gateway is not told where the lake is', async () => {
    const gw = await startSdkGateway(cleanups)
    await gw.call('POST', '/v1/databases', { name: 'db' })
    await gw.call('POST', '/v1/databases/db/tables', KV)
    const res = await gw.call('GET', '/v1/databases/db/tables/kv/union-read')
    expect([res.status, res.body.error.code]).toEqual([501, 'unsupported'])
    expect(res.body.error.message).toMatch(/sluice\.blobstore\.uri/)
  })
})
