import { Configuration } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import { describe, expect, it } from 'vitest'
import { createApp } from './app.js'
import type { BackendContext, ScanRequest } from './backend/gateway-backend.js'
import { gatewayLimits } from './limits.js'
import { MemoryGatewayBackend } from './testing/memory-backend.js'
import { send } from './testing/test-app.js'
import { SILENT_LOGGER } from './types.js'

describe('gatewayLimits', () => {
  it('reads the scan, snapshot and idempotency bounds from their gateway.rest.* keys', () => {
    const defaults = gatewayLimits(Configuration.load({}))
    expect(defaults).toMatchObject({
      scanMaxRecords: 10_000,
      scanMaxWaitMs: 1000,
      snapshotMaxRows: 10_000,
      idempotencyMaxEntries: 10_000,
      idempotencyTtlMs: 3_600_000,
    })
    const set = gatewayLimits(
      Configuration.load({
        'gateway.rest.scan.max-records': '500',
        'gateway.rest.scan.max-wait': '250ms',
        'gateway.rest.snapshot.max-rows': 42,
        'gateway.rest.idempotency.max-entries': '7',
        'gateway.rest.idempotency.ttl': '10min',
      }),
      { snapshotMaxRows: 3 },
    )
    expect(set).toMatchObject({
      scanMaxRecords: 500,
      scanMaxWaitMs: 250,
      snapshotMaxRows: 3,
      idempotencyMaxEntries: 7,
      idempotencyTtlMs: 600_000,
    })
  })

  it('refuses values out of range or of the wrong type with INVALID_CONFIG_EXCEPTION', () => {
    for (const bad of [
      { 'gateway.rest.scan.max-records': '0' },
      { 'gateway.rest.scan.max-wait': 'soon' },
      { 'gateway.rest.snapshot.max-rows': '2000000' },
      { 'gateway.rest.idempotency.max-entries': '-1' },
      { 'gateway.rest.idempotency.ttl': '100ms' },
      { 'gateway.connect.retry-backoff.initial': '0ms' },
    ]) {
      let error: unknown
      try {
        gatewayLimits(Configuration.load(bad))
      } catch (e) {
        error = e
      }
      expect(error, JSON.stringify(bad)).toBeInstanceOf(FlussError)
      expect((error as FlussError).spec.name).toBe('INVALID_CONFIG_EXCEPTION')
    }
  })
})

describe('scans honour gateway.rest.scan.*', () => {
  it('cuts limit and max_wait_ms to the configured bounds', async () => {
    const requests: ScanRequest[] = []
    class Recording extends MemoryGatewayBackend {
      override async scan(ctx: BackendContext, table: TableInfo, request: ScanRequest) {
        requests.push(request)
        return super.scan(ctx, table, request)
      }
    }
    const config = Configuration.load({
      'gateway.rest.scan.max-records': '3',
      'gateway.rest.scan.max-wait': '20ms',
    })
    const app = createApp({ backend: new Recording(), config, logger: SILENT_LOGGER })
    await send(app, 'POST', '/v1/databases', { name: 'db' })
    await send(app, 'POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'id', type: 'INT' }] },
    })
    const path = '/v1/databases/db/tables/t/scan'
    expect((await send(app, 'POST', path, { limit: 100, max_wait_ms: 5000 })).status).toBe(200)
    expect((await send(app, 'POST', path, { limit: 2, max_wait_ms: 10 })).status).toBe(200)
    expect(requests.map(r => [r.maxRecords, r.maxWaitMs])).toEqual([
      [3, 20],
      [2, 10],
    ])
  })
})

describe('idempotency keys honour gateway.rest.idempotency.*', () => {
  async function setup(config: Record<string, string>) {
    let now = 0
    const clock = { nowMs: () => now }
    const backend = new MemoryGatewayBackend()
    const app = createApp({ backend, config: Configuration.load(config), logger: SILENT_LOGGER, clock })
    await send(app, 'POST', '/v1/databases', { name: 'db' })
    await send(app, 'POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'id', type: 'INT' }] },
    })
    const append = (key: string) =>
      send(app, 'POST', '/v1/databases/db/tables/t/append', { rows: [{ id: 1 }] }, { 'idempotency-key': key })
    return { backend, append, advance: (ms: number) => (now += ms) }
  }

  it('replays within the ttl and writes again after it', async () => {
    const { backend, append, advance } = await setup({ 'gateway.rest.idempotency.ttl': '5s' })
    await append('k')
    advance(4_000)
    expect((await append('k')).headers.get('idempotent-replayed')).toBe('true')
    advance(1_000)
    expect((await append('k')).headers.get('idempotent-replayed')).toBeNull()
    expect(backend.writtenRows).toBe(2)
  })

  it('keeps at most max-entries keys, forgetting the oldest', async () => {
    const { backend, append } = await setup({ 'gateway.rest.idempotency.max-entries': '2' })
    for (const key of ['a', 'b', 'c']) await append(key)
    expect((await append('c')).headers.get('idempotent-replayed')).toBe('true')
    expect((await append('a')).headers.get('idempotent-replayed')).toBeNull()
    expect(backend.writtenRows).toBe(4)
  })
})
