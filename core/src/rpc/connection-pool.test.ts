import { afterEach, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { ConnectionPool } from './connection-pool.js'
import { RpcServer, type RpcServerOptions } from './server.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startServer(options: Partial<RpcServerOptions> = {}) {
  const server = new RpcServer({ role: 'coordinator', ...options })
  server.register('DATABASE_EXISTS', req => ({ exists: req.databaseName === 'fluss' }))
  const { port } = await server.start()
  cleanups.push(() => server.close(100))
  return { server, endpoint: { host: '127.0.0.1', port, role: 'coordinator' as const } }
}

function newPool() {
  const pool = new ConnectionPool({ connectTimeoutMs: 5000 })
  cleanups.push(() => pool.close())
  return pool
}

describe('ConnectionPool', () => {
  it('connects lazily, once per endpoint, and shares concurrent first uses', async () => {
    const { server, endpoint } = await startServer()
    const pool = newPool()
    expect(pool.size).toBe(0)
    expect(server.connectionCount).toBe(0)
    const [a, b, c] = await Promise.all([pool.get(endpoint), pool.get(endpoint), pool.get(endpoint)])
    expect(a).toBe(b)
    expect(b).toBe(c)
    expect(await pool.get(endpoint)).toBe(a)
    expect(pool.size).toBe(1)
    expect(server.connectionCount).toBe(1)
    expect((await pool.request(endpoint, 'DATABASE_EXISTS', { databaseName: 'fluss' })).exists).toBe(true)
  })

  it('opens a new connection on the next use after the previous one closed', async () => {
    const { endpoint } = await startServer()
    const pool = newPool()
    const first = await pool.get(endpoint)
    first.close()
    const second = await pool.get(endpoint)
    expect(second).not.toBe(first)
    expect(second.isOpen).toBe(true)
    expect((await second.request('DATABASE_EXISTS', { databaseName: 'x' })).exists).toBe(false)
  })

  it('retries the connection on the next use after a failed attempt', async () => {
    let handshakes = 0
    const { endpoint } = await startServer({
      beforeRequest: ctx => {
        if (ctx.api.name === 'API_VERSIONS' && handshakes++ === 0)
          throw new FlussError('RETRIABLE_AUTHENTICATE_EXCEPTION')
      },
    })
    const pool = newPool()
    const error = await pool.get(endpoint).catch(e => e as FlussError)
    expect((error as FlussError).errorName).toBe('RETRIABLE_AUTHENTICATE_EXCEPTION')
    await new Promise(r => setTimeout(r, 0))
    expect(pool.size).toBe(0)
    expect((await pool.get(endpoint)).isOpen).toBe(true)
    expect(handshakes).toBe(2)
  })

  it('closes every connection and refuses use afterwards', async () => {
    const one = await startServer()
    const two = await startServer()
    const pool = newPool()
    const connections = await Promise.all([pool.get(one.endpoint), pool.get(two.endpoint)])
    await pool.close()
    expect(connections.map(c => c.isOpen)).toEqual([false, false])
    const error = await pool.get(one.endpoint).catch(e => e as FlussError)
    expect((error as FlussError).errorName).toBe('NETWORK_EXCEPTION')
  })
})
