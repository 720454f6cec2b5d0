import { afterEach, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { createLogger } from '../log/index.js'
import { TestingRawClient } from '../testing/raw-client.js'
import { ClientConnection } from './client-connection.js'
import { decodeErrorBody, encodeRequest, type ResponseFrame } from './frame.js'
import {
  ApiVersionsRequest,
  ApiVersionsResponse,
  ProduceLogRequest,
  type ProduceLogRequestInit,
} from './generated/fluss-api.js'
import type { RequestContext } from './handler.js'
import { RpcServer, type RpcServerOptions } from './server.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startServer(options: Partial<RpcServerOptions> = {}, setup?: (s: RpcServer) => void) {
  const server = new RpcServer({ role: 'tablet', ...options })
  setup?.(server)
  const address = await server.start()
  cleanups.push(() => server.close(100))
  return { server, port: address.port, address }
}

async function client(port: number, options: { maxInFlight?: number } = {}) {
  const connection = await ClientConnection.connect({ host: '127.0.0.1', port, ...options })
  cleanups.push(() => connection.close())
  return connection
}

async function raw(port: number) {
  const c = await TestingRawClient.connect(port)
  cleanups.push(() => c.destroy())
  return c
}

const produce = (bucketId: number): ProduceLogRequestInit => ({
  acks: 1,
  tableId: 1,
  timeoutMs: 1000,
  bucketsReq: [{ bucketId, records: Buffer.from([bucketId]) }],
})

const versionsRequest = { clientSoftwareName: 'test', clientSoftwareVersion: '1' }

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection')
    },
    e => e as FlussError,
  )

function errorOf(frame: ResponseFrame): FlussError {
  expect(frame.type).not.toBe(0)
  return decodeErrorBody(frame.body)
}

function deferred<T = void>() {
  let resolve!: (v: T) => void
  const promise = new Promise<T>(r => {
    resolve = r
  })
  return { promise, resolve }
}

describe('RpcServer ApiVersions', () => {
  it('advertises exactly the registered APIs (and AUTHENTICATE) with their versions and the tablet server type', async () => {
    const { port } = await startServer({}, s =>
      s
        .register('PRODUCE_LOG', () => ({}))
        .register('PUT_KV', () => ({}), { maxVersion: 0 })
        .register('LOOKUP', () => ({})),
    )
    const c = await raw(port)
    c.send(
      ...encodeRequest({ apiKey: 1000, apiVersion: 0, requestId: 5 }, ApiVersionsRequest, versionsRequest),
    )
    const frame = await c.nextFrame()
    expect(frame).toMatchObject({ type: 0, requestId: 5 })
    const response = ApiVersionsResponse.decode(frame.body)
    expect(response.serverType).toBe(2)
    expect(response.apiVersions.map(v => [v.apiKey, v.minVersion, v.maxVersion])).toEqual([
      [1000, 0, 0],
      [1014, 0, 0],
      [1016, 0, 0],
      [1017, 0, 1],
      [1038, 0, 0],
    ])
  })

  it('reports coordinator type 1 and omits server_type for a combined server', async () => {
    const coordinator = await startServer({ role: 'coordinator' })
    expect((await client(coordinator.port)).serverApiVersions?.serverType).toBe(1)
    const combined = await startServer({ role: 'combined' }, s => s.register('PRODUCE_LOG', () => ({})))
    expect((await client(combined.port)).serverApiVersions?.serverType).toBeNull()
  })

  it('refuses to register an API of another role, twice, or beyond its versions', () => {
    const server = new RpcServer({ role: 'coordinator' })
    expect(() => server.register('PRODUCE_LOG', () => ({}))).toThrow(/not served by a coordinator/)
    server.register('CREATE_TABLE', () => ({}))
    expect(() => server.register('CREATE_TABLE', () => ({}))).toThrow(/twice/)
    expect(() => new RpcServer({ role: 'tablet' }).register('PUT_KV', () => ({}), { maxVersion: 2 })).toThrow(
      /outside/,
    )
  })
})

describe('RpcServer error responses', () => {
  it('answers unknown api keys and unsupported versions with UNSUPPORTED_VERSION and keeps serving', async () => {
    const { port } = await startServer({}, s => s.register('PRODUCE_LOG', () => ({})))
    const c = await raw(port)
    c.send(
      ...encodeRequest({ apiKey: 1039, apiVersion: 0, requestId: 1 }, ApiVersionsRequest, versionsRequest),
    )
    const unknown = errorOf(await c.nextFrame())
    expect(unknown.code).toBe(2)
    expect(unknown.message).toContain('CREATE_ACLS(1039)')
    c.send(...encodeRequest({ apiKey: 1014, apiVersion: 1, requestId: 2 }, ProduceLogRequest, produce(0)))
    const version = errorOf(await c.nextFrame())
    expect(version.code).toBe(2)
    expect(version.message).toMatch(/PRODUCE_LOG version 1/)
    // the handshake of a client newer than the server is still answered
    c.send(
      ...encodeRequest({ apiKey: 1000, apiVersion: 3, requestId: 3 }, ApiVersionsRequest, versionsRequest),
    )
    expect(await c.nextFrame()).toMatchObject({ type: 0, requestId: 3 })
  })

  it('answers an undecodable body or a missing required field with CORRUPT_MESSAGE', async () => {
    const { port } = await startServer({}, s => s.register('PRODUCE_LOG', () => ({})))
    const c = await raw(port)
    const header = Buffer.from('0000000c03f600000000000a', 'hex') // length 12, key 1014, v0, id 10
    c.send(header, Buffer.from([0x22, 0x05, 0xff, 0xff])) // a bucket entry whose length runs past the frame
    const corrupt = errorOf(await c.nextFrame())
    expect(corrupt.code).toBe(3)
    // a bucket entry {bucket_id = 1} without its required records
    const missing = Buffer.concat([
      ProduceLogRequest.encode({ acks: 1, tableId: 1, timeoutMs: 1 }),
      Buffer.from('22021001', 'hex'),
    ])
    c.send(frameOf(1014, 11, missing))
    const missingError = errorOf(await c.nextFrame())
    expect(missingError.code).toBe(3)
    expect(missingError.message).toMatch(/records/)
  })

  it('maps handler failures to their Fluss codes, and anything else to UNKNOWN_SERVER_ERROR', async () => {
    const { port } = await startServer({}, s =>
      s.register('PRODUCE_LOG', req => {
        const bucket = req.bucketsReq[0].bucketId
        if (bucket === 0) throw new FlussError('TABLE_NOT_EXIST', 'table 1 is gone')
        if (bucket === 1) throw new FlussError('SHUTTING_DOWN')
        throw new TypeError('boom')
      }),
    )
    const c = await client(port)
    const codes = await Promise.all([0, 1, 2].map(b => failure(c.request('PRODUCE_LOG', produce(b)))))
    expect(codes.map(e => [e.code, e.errorName])).toEqual([
      [7, 'TABLE_NOT_EXIST'],
      [12, 'NOT_LEADER_OR_FOLLOWER'],
      [-1, 'UNKNOWN_SERVER_ERROR'],
    ])
    expect(codes[0].message).toBe('table 1 is gone')
    expect(codes[2].message).toContain('TypeError: boom')
  })

  it('fails a slow handler with REQUEST_TIME_OUT and aborts its signal', async () => {
    const aborted = deferred<boolean>()
    const { port } = await startServer({}, s =>
      s.register(
        'PRODUCE_LOG',
        (_req, ctx) =>
          new Promise(() => {
            ctx.signal.addEventListener('abort', () => aborted.resolve(true))
          }),
        { timeoutMs: 30 },
      ),
    )
    const error = await failure((await client(port)).request('PRODUCE_LOG', produce(0)))
    expect(error.errorName).toBe('REQUEST_TIME_OUT')
    expect(await aborted.promise).toBe(true)
  })

  it('answers an oversized frame with SERVER_FAILURE CORRUPT_MESSAGE and closes the connection', async () => {
    const { port, server } = await startServer({ maxRequestBytes: 1024 }, s =>
      s.register('PRODUCE_LOG', () => ({})),
    )
    const c = await raw(port)
    c.send(Buffer.from('000007d003f60000', 'hex'))
    const frames = await c.untilClosed()
    expect(frames).toHaveLength(1)
    expect(frames[0].type).toBe(2)
    expect(errorOf(frames[0]).code).toBe(3)
    const big = { ...produce(0), bucketsReq: [{ bucketId: 0, records: Buffer.alloc(2048) }] }
    const viaClient = await failure((await client(port)).request('PRODUCE_LOG', big))
    expect(viaClient.code).toBe(3)
    expect((await client(port)).isOpen).toBe(true)
    expect(server.connectionCount).toBeGreaterThanOrEqual(1)
  })
})

describe('RpcServer connections', () => {
  it('completes pipelined requests out of order, each matched to its request', async () => {
    const gates = [deferred(), deferred(), deferred()]
    const { port } = await startServer({}, s =>
      s.register('PRODUCE_LOG', async req => {
        const bucketId = req.bucketsReq[0].bucketId
        await gates[bucketId].promise
        return { bucketsResp: [{ bucketId, baseOffset: bucketId * 100 }] }
      }),
    )
    const c = await client(port)
    const order: number[] = []
    const pending = [0, 1, 2].map(b =>
      c.request('PRODUCE_LOG', produce(b)).then(r => {
        order.push(r.bucketsResp[0].bucketId)
        return r.bucketsResp[0].baseOffset
      }),
    )
    await waitFor(() => c.inFlight === 3)
    for (const gate of [...gates].reverse()) {
      gate.resolve()
      await new Promise(r => setTimeout(r, 5))
    }
    expect(await Promise.all(pending)).toEqual([0, 100, 200])
    expect(order).toEqual([2, 1, 0])
  })

  it('runs at most maxInFlightPerConnection requests at once and reads more as they finish', async () => {
    let active = 0
    let peak = 0
    const release = deferred()
    const { port } = await startServer({ maxInFlightPerConnection: 2 }, s =>
      s.register('PRODUCE_LOG', async req => {
        active++
        peak = Math.max(peak, active)
        await release.promise
        active--
        return { bucketsResp: [{ bucketId: req.bucketsReq[0].bucketId }] }
      }),
    )
    const c = await client(port, { maxInFlight: 50 })
    const all = Promise.all([0, 1, 2, 3, 4, 5].map(b => c.request('PRODUCE_LOG', produce(b))))
    await waitFor(() => active === 2)
    await new Promise(r => setTimeout(r, 30))
    expect(active).toBe(2)
    release.resolve()
    const responses = await all
    expect(responses.map(r => r.bucketsResp[0].bucketId)).toEqual([0, 1, 2, 3, 4, 5])
    expect(peak).toBe(2)
  })

  it('closes a connection idle for idleTimeoutMs', async () => {
    const { port } = await startServer({ idleTimeoutMs: 50 })
    const c = await raw(port)
    expect(await c.untilClosed()).toEqual([])
  })

  it('gives handlers the connection context and runs the request hook first', async () => {
    const contexts: RequestContext[] = []
    const { port } = await startServer(
      {
        listenerName: 'CLIENT',
        beforeRequest: ctx => {
          const seen = (ctx.connection.attributes.get('seen') as number | undefined) ?? 0
          ctx.connection.attributes.set('seen', seen + 1)
          if (ctx.api.name === 'PRODUCE_LOG' && ctx.requestId % 2 === 0) {
            throw new FlussError('AUTHENTICATE_EXCEPTION', 'not authenticated')
          }
        },
      },
      s =>
        s.register('PRODUCE_LOG', (_req, ctx) => {
          contexts.push(ctx)
          return {}
        }),
    )
    const c = await client(port)
    const first = await c.request('PRODUCE_LOG', produce(0)).catch(e => e as FlussError)
    expect(first).toEqual({ bucketsResp: [] })
    const second = await c.request('PRODUCE_LOG', produce(0)).catch(e => e as FlussError)
    expect((second as FlussError).errorName).toBe('AUTHENTICATE_EXCEPTION')
    const ctx = contexts[0]
    expect(ctx.connection).toMatchObject({ clientAddress: '127.0.0.1', listenerName: 'CLIENT' })
    expect(ctx.connection.id).toBeGreaterThan(0)
    expect(ctx).toMatchObject({ apiVersion: 0, requestId: 1 })
    expect(ctx.connection.attributes.get('seen')).toBe(3)
  })

  it('lets requests in flight finish on close, then refuses new connections', async () => {
    const started = deferred()
    const server = new RpcServer({ role: 'tablet' })
    server.register('PRODUCE_LOG', async () => {
      started.resolve()
      await new Promise(r => setTimeout(r, 50))
      return { bucketsResp: [{ bucketId: 9 }] }
    })
    const { port } = await server.start()
    const c = await client(port)
    const response = c.request('PRODUCE_LOG', produce(0))
    await started.promise
    await server.close(5000)
    expect((await response).bucketsResp[0].bucketId).toBe(9)
    const refused = await ClientConnection.connect({ host: '127.0.0.1', port }).catch(e => e as FlussError)
    expect((refused as FlussError).errorName).toBe('NETWORK_EXCEPTION')
  })
})

function frameOf(apiKey: number, requestId: number, body: Buffer): Buffer {
  const header = Buffer.alloc(12)
  header.writeInt32BE(8 + body.length, 0)
  header.writeInt16BE(apiKey, 4)
  header.writeInt16BE(0, 6)
  header.writeInt32BE(requestId, 8)
  return Buffer.concat([header, body])
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await new Promise(r => setTimeout(r, 2))
  }
}

describe('RpcServer shutdown', () => {
  it('closes promptly when a request arrives while draining and the peer then closes', async () => {
    const release = deferred()
    const { server, port } = await startServer({}, s =>
      s.register('PRODUCE_LOG', async () => {
        await release.promise
        return { bucketsResp: [] }
      }),
    )
    const c = await raw(port)
    c.send(...encodeRequest({ apiKey: 1014, apiVersion: 0, requestId: 1 }, ProduceLogRequest, produce(0)))
    await new Promise(r => setTimeout(r, 50))
    const closing = server.close(60_000)
    // Arrives on the paused socket after draining began; it is never answered.
    c.send(...encodeRequest({ apiKey: 1014, apiVersion: 0, requestId: 2 }, ProduceLogRequest, produce(1)))
    await new Promise(r => setTimeout(r, 50))
    release.resolve()
    const frame = await c.nextFrame()
    expect(frame.type === 2 ? -1 : frame.requestId).toBe(1)
    c.end()
    // Before the fix the server never read the peer's FIN and waited the whole 60 s deadline.
    await closing
  }, 15_000)

  it('uses the configured shutdown timeout when close() is called without one', async () => {
    const never = deferred()
    const { server, port } = await startServer({ shutdownTimeoutMs: 200 }, s =>
      s.register('PRODUCE_LOG', async () => {
        await never.promise
        return { bucketsResp: [] }
      }),
    )
    const connection = await client(port)
    const pending = connection.request('PRODUCE_LOG', produce(0)).catch(e => e)
    await new Promise(r => setTimeout(r, 50))
    await server.close()
    expect(await pending).toBeInstanceOf(FlussError)
    never.resolve()
  }, 15_000)
})

describe('RpcServer handshake', () => {
  it('records the client software name and version on the connection', async () => {
    let seen: Map<string, unknown> | undefined
    const { port } = await startServer({}, s =>
      s.register('PRODUCE_LOG', async (_req, ctx) => {
        seen = ctx.connection.attributes
        return { bucketsResp: [] }
      }),
    )
    const connection = await client(port)
    await connection.request('PRODUCE_LOG', produce(0))
    expect(seen?.get('clientSoftwareName')).toBe('sluice')
    expect(typeof seen?.get('clientSoftwareVersion')).toBe('string')
  })
})

describe('logs of unexpected handler failures', () => {
  it('carry the request id, the API and the connection as JSON fields', async () => {
    const lines: string[] = []
    const logger = createLogger({ component: 'rpc', write: line => lines.push(line) })
    const { port } = await startServer({ logger }, s =>
      s.register('PRODUCE_LOG', () => {
        throw new TypeError('boom')
      }),
    )
    const c = await raw(port)
    c.send(...encodeRequest({ apiKey: 1014, apiVersion: 0, requestId: 4242 }, ProduceLogRequest, produce(0)))
    const e = errorOf(await c.nextFrame())
    expect(e.errorName).toBe('UNKNOWN_SERVER_ERROR')
    const record = lines.map(l => JSON.parse(l)).find(r => r.message === 'rpc handler failed unexpectedly')
    expect(record).toMatchObject({
      level: 'warn',
      component: 'rpc',
      api: 'PRODUCE_LOG',
      requestId: 4242,
      error: 'TypeError: boom',
    })
    expect(typeof record.connection).not.toBe('undefined')
  })
})
