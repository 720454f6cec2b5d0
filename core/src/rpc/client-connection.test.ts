import { createServer, type Server } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { FlussError } from '../errors/index.js'
import { ClientConnection, type ClientConnectionOptions } from './client-connection.js'
import type { ProduceLogRequestInit } from './generated/fluss-api.js'
import { RpcServer, type RpcServerOptions } from './server.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startServer(options: Partial<RpcServerOptions> = {}, setup?: (s: RpcServer) => void) {
  const server = new RpcServer({ role: 'tablet', ...options })
  setup?.(server)
  const { port } = await server.start()
  cleanups.push(() => server.close(100))
  return { server, port }
}

async function connect(port: number, options: Partial<ClientConnectionOptions> = {}) {
  const connection = await ClientConnection.connect({ host: '127.0.0.1', port, ...options })
  cleanups.push(() => connection.close())
  return connection
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection')
    },
    e => e as FlussError,
  )

const produce = (bucketId: number): ProduceLogRequestInit => ({
  acks: 1,
  tableId: 1,
  timeoutMs: 1000,
  bucketsReq: [{ bucketId, records: Buffer.from([1]) }],
})

const gate = () => {
  let open!: () => void
  const opened = new Promise<void>(r => {
    open = r
  })
  return { opened, open }
}

describe('ClientConnection version negotiation', () => {
  it('uses the highest version both sides support and refuses APIs the server does not advertise', async () => {
    const versions: Record<string, number> = {}
    const { port } = await startServer({}, s =>
      s
        .register(
          'PUT_KV',
          (_r, ctx) => {
            versions.PUT_KV = ctx.apiVersion
            return {}
          },
          { maxVersion: 0 },
        )
        .register('LOOKUP', (_r, ctx) => {
          versions.LOOKUP = ctx.apiVersion
          return {}
        }),
    )
    const c = await connect(port, { expectedRole: 'tablet' })
    await c.request('PUT_KV', { acks: 1, tableId: 1, timeoutMs: 1 })
    await c.request('LOOKUP', { tableId: 1 })
    await c.request('LOOKUP', { tableId: 1 }, { apiVersion: 0 })
    expect(versions).toEqual({ PUT_KV: 0, LOOKUP: 0 })
    await c.request('LOOKUP', { tableId: 1 })
    expect(versions.LOOKUP).toBe(1)
    const missing = await failure(c.request('PRODUCE_LOG', produce(0)))
    expect(missing.errorName).toBe('UNSUPPORTED_VERSION')
    expect(missing.message).toMatch(/PRODUCE_LOG is not supported/)
    const tooNew = await failure(
      c.request('PUT_KV', { acks: 1, tableId: 1, timeoutMs: 1 }, { apiVersion: 1 }),
    )
    expect(tooNew.errorName).toBe('UNSUPPORTED_VERSION')
  })

  it('rejects a server of the wrong type, and accepts one that does not say', async () => {
    const tablet = await startServer()
    const mismatch = await failure(
      ClientConnection.connect({ host: '127.0.0.1', port: tablet.port, expectedRole: 'coordinator' }),
    )
    expect(mismatch.errorName).toBe('NETWORK_EXCEPTION')
    expect(mismatch.message).toMatch(/expected coordinator, got tablet server/)
    const combined = await startServer({ role: 'combined' })
    expect((await connect(combined.port, { expectedRole: 'coordinator' })).isOpen).toBe(true)
  })
})

describe('ClientConnection requests', () => {
  it('turns error responses into the server FlussError', async () => {
    const { port } = await startServer({}, s =>
      s.register('LIST_TABLES', () => {
        throw new Error('disk on fire')
      }),
    )
    const error = await failure((await connect(port)).request('LIST_TABLES', { databaseName: 'db' }))
    expect(error.code).toBe(-1)
    expect(error.message).toContain('disk on fire')
  })

  it('times out a request with REQUEST_TIME_OUT and ignores its late response', async () => {
    const slow = gate()
    const { port } = await startServer({}, s =>
      s.register('PRODUCE_LOG', async req => {
        if (req.bucketsReq[0].bucketId === 0) await slow.opened
        return { bucketsResp: [{ bucketId: req.bucketsReq[0].bucketId }] }
      }),
    )
    const c = await connect(port)
    const error = await failure(c.request('PRODUCE_LOG', produce(0), { timeoutMs: 20 }))
    expect(error.errorName).toBe('REQUEST_TIME_OUT')
    expect(error.retriable).toBe(true)
    slow.open()
    expect((await c.request('PRODUCE_LOG', produce(1))).bucketsResp[0].bucketId).toBe(1)
    expect(c.inFlight).toBe(0)
  })

  it('fails every outstanding request with a retriable NETWORK_EXCEPTION on disconnect', async () => {
    const started = gate()
    const { port, server } = await startServer({}, s =>
      s.register('PRODUCE_LOG', () => {
        started.open()
        return new Promise(() => {})
      }),
    )
    const c = await connect(port)
    const pending = [0, 1].map(b => failure(c.request('PRODUCE_LOG', produce(b))))
    await started.opened
    await server.close(0)
    for (const error of await Promise.all(pending)) {
      expect(error.errorName).toBe('NETWORK_EXCEPTION')
      expect(error.retriable).toBe(true)
    }
    expect(c.isOpen).toBe(false)
    expect((await c.closed).errorName).toBe('NETWORK_EXCEPTION')
    expect((await failure(c.request('PRODUCE_LOG', produce(2)))).errorName).toBe('NETWORK_EXCEPTION')
  })

  it('keeps at most maxInFlight requests on the wire and queues up to maxQueued more', async () => {
    let active = 0
    let peak = 0
    const release = gate()
    const { port } = await startServer({}, s =>
      s.register('PRODUCE_LOG', async req => {
        active++
        peak = Math.max(peak, active)
        await release.opened
        active--
        return { bucketsResp: [{ bucketId: req.bucketsReq[0].bucketId }] }
      }),
    )
    const c = await connect(port, { maxInFlight: 2, maxQueued: 3 })
    const accepted = [0, 1, 2, 3, 4].map(b => c.request('PRODUCE_LOG', produce(b)))
    const overflow = await failure(c.request('PRODUCE_LOG', produce(5)))
    expect(overflow.errorName).toBe('RESOURCE_EXHAUSTED')
    expect([c.inFlight, c.queued]).toEqual([2, 3])
    release.open()
    expect((await Promise.all(accepted)).map(r => r.bucketsResp[0].bucketId)).toEqual([0, 1, 2, 3, 4])
    expect(peak).toBe(2)
  })
})

describe('ClientConnection.connect', () => {
  it('fails with NETWORK_EXCEPTION when nothing listens', async () => {
    const { port, server } = await startServer()
    await server.close(0)
    const error = await failure(ClientConnection.connect({ host: '127.0.0.1', port }))
    expect(error.errorName).toBe('NETWORK_EXCEPTION')
  })

  it('fails with NETWORK_EXCEPTION when the handshake does not complete in time', async () => {
    const silent: Server = createServer(socket => socket.resume())
    await new Promise<void>(r => silent.listen(0, '127.0.0.1', r))
    cleanups.push(() => new Promise(r => silent.close(r)))
    const port = (silent.address() as { port: number }).port
    const error = await failure(ClientConnection.connect({ host: '127.0.0.1', port, connectTimeoutMs: 50 }))
    expect(error.errorName).toBe('NETWORK_EXCEPTION')
    expect(error.message).toMatch(/timed out after 50 ms/)
  })
})
