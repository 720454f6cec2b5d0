import { Configuration } from '@sluice/core/config'
import { afterEach, describe, expect, it } from 'vitest'
import { type GatewayServer, parseListen, startGatewayServer } from './server.js'
import { MemoryGatewayBackend } from './testing/memory-backend.js'
import { SILENT_LOGGER } from './types.js'

const servers: GatewayServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

async function start(config: Record<string, unknown> = {}) {
  const backend = new MemoryGatewayBackend()
  const server = await startGatewayServer({
    config: Configuration.load(config),
    backend,
    port: 0,
    logger: SILENT_LOGGER,
  })
  servers.push(server)
  return { server, backend }
}

describe('startGatewayServer', () => {
  it('serves the app over HTTP on 127.0.0.1 by default', async () => {
    const { server } = await start()
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const health = await fetch(`${server.url}/health`)
    expect(health.status).toBe(200)
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const created = await fetch(`${server.url}/v1/databases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'db' }),
    })
    expect(created.status).toBe(201)
    const dropped = await fetch(`${server.url}/v1/databases/db`, { method: 'DELETE' })
    expect(dropped.status).toBe(204)
  })

  it('refuses a body over the limit by Content-Length with 413 over the wire', async () => {
    const { server, backend } = await start({ 'gateway.rest.write.max-request-bytes': 100 })
    const res = await fetch(`${server.url}/v1/databases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', comment: 'c'.repeat(500) }),
    })
    expect(res.status).toBe(413)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('limit_exceeded')
    expect(backend.calls.size).toBe(0)
  })

  it('drains on close: /ready turns 503 and requests in flight finish', async () => {
    const { server, backend } = await start()
    const release = backend.block('listDatabases')
    const inFlight = fetch(`${server.url}/v1/databases`)
    for (let i = 0; i < 500 && backend.calls.get('listDatabases') !== 1; i++)
      await new Promise(r => setTimeout(r, 10))
    expect(backend.calls.get('listDatabases')).toBe(1)
    const closing = server.close()
    const ready = await server.app.request('/ready')
    expect(ready.status).toBe(503)
    release()
    expect((await inFlight).status).toBe(200)
    await closing
    await expect(fetch(`${server.url}/health`)).rejects.toThrow()
  })

  it('parses gateway.rest.listen addresses', () => {
    expect(parseListen('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 })
    expect(parseListen('[::1]:9000')).toEqual({ host: '::1', port: 9000 })
  })
})
