import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Configuration } from '../config/index.js'
import { decodeErrorBody, encodeRequest } from '../rpc/frame.js'
import { ApiVersionsRequest, AuthenticateRequest } from '../rpc/generated/fluss-api.js'
import { ClientConnection, RpcServer } from '../rpc/index.js'
import { prng } from '../testing/random.js'
import { TestingRawClient } from '../testing/raw-client.js'
import { plainJaas, scramJaas } from '../testing/security.js'
import { serverListenerSecurity } from './listener-security.js'

/** Random, truncated and oversized AUTHENTICATE tokens and requests before authentication. */
let server: RpcServer
let port: number
let served = 0

beforeAll(async () => {
  const config = Configuration.load({
    'security.protocol.map': 'FLUSS:SASL',
    'security.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
    'security.sasl.plain.jaas.config': plainJaas({ alice: 'alice-secret' }),
    'security.sasl.scram-sha-256.jaas.config': scramJaas({ alice: 'alice-secret' }),
    'sluice.security.authentication.failure-delay': '0ms',
    'sluice.security.authentication.max-failures': 1_000_000,
  })
  const security = serverListenerSecurity(config, ['FLUSS'], { warn() {} }).get('FLUSS')
  server = new RpcServer({ role: 'tablet', security, maxRequestBytes: 64 * 1024 })
  server.register('LIST_DATABASES', () => {
    served++
    return { databaseName: [] }
  })
  port = (await server.start()).port
})

afterAll(() => server.close(100))

const VALID = Buffer.from('\u0000alice\u0000alice-secret')

function authenticateFrame(requestId: number, protocol: string, token: Buffer): Buffer[] {
  return encodeRequest({ apiKey: 1038, apiVersion: 0, requestId }, AuthenticateRequest, { protocol, token })
}

describe('AUTHENTICATE fuzzing', () => {
  it('refuses random, truncated and oversized tokens with AUTHENTICATE_EXCEPTION and keeps serving', async () => {
    const rng = prng(18)
    const client = await TestingRawClient.connect(port)
    try {
      for (let i = 1; i <= 400; i++) {
        const kind = rng.int(0, 4)
        const token =
          kind === 0
            ? rng.bytes(rng.int(0, 300))
            : kind === 1
              ? VALID.subarray(0, rng.int(0, VALID.length - 1))
              : kind === 2
                ? rng.bytes(rng.int(4097, 20_000))
                : kind === 3
                  ? Buffer.concat([VALID.subarray(0, rng.int(0, VALID.length)), rng.bytes(rng.int(1, 8))])
                  : Buffer.from(`n,,n=alice,r=${rng.bytes(rng.int(0, 30)).toString('latin1')}`)
        const protocol = kind === 4 ? 'SCRAM-SHA-256' : rng.pick(['PLAIN', 'plain', 'PLAIN', 'GSSAPI', ''])
        client.send(...authenticateFrame(i, protocol, token))
        const frame = await client.nextFrame()
        expect('requestId' in frame ? frame.requestId : undefined).toBe(i)
        if (frame.type === 0) {
          // A SCRAM client-first message is answered with a challenge; PLAIN never succeeds by chance.
          expect(protocol).toBe('SCRAM-SHA-256')
          continue
        }
        expect(decodeErrorBody(frame.body).errorName).toBe('AUTHENTICATE_EXCEPTION')
      }
      // Still unauthenticated: nothing else is served on this connection.
      const header = Buffer.alloc(12)
      header.writeInt32BE(8, 0)
      header.writeInt16BE(1003, 4)
      header.writeInt32BE(999, 8)
      client.send(header)
      const refused = await client.nextFrame()
      expect(decodeErrorBody(refused.body).errorName).toBe('AUTHENTICATE_EXCEPTION')
      expect(client.isClosed).toBe(false)
      // The right token still works on the same connection.
      client.send(...authenticateFrame(1000, 'PLAIN', VALID))
      expect((await client.nextFrame()).type).toBe(0)
      client.send(header)
      expect((await client.nextFrame()).type).toBe(0)
    } finally {
      client.destroy()
    }
    expect(served).toBe(1)
    const fresh = await ClientConnection.connect({
      host: '127.0.0.1',
      port,
      security: { sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' } },
    })
    await fresh.request('LIST_DATABASES', {})
    fresh.close()
  })

  it('answers random requests before authentication with errors, never running a handler', async () => {
    const rng = prng(7)
    const before = served
    const client = await TestingRawClient.connect(port)
    try {
      client.send(
        ...encodeRequest({ apiKey: 1000, apiVersion: 0, requestId: 1 }, ApiVersionsRequest, {
          clientSoftwareName: 'f',
          clientSoftwareVersion: '1',
        }),
      )
      expect((await client.nextFrame()).type).toBe(0)
      for (let i = 2; i < 200; i++) {
        const body = rng.bytes(rng.int(0, 200))
        const header = Buffer.alloc(12)
        header.writeInt32BE(8 + body.length, 0)
        header.writeInt16BE(rng.pick([1001, 1003, 1005, 1014, 1015, 1016, 1017, 1039, 1040, 1041]), 4)
        header.writeInt16BE(0, 6)
        header.writeInt32BE(i, 8)
        client.send(Buffer.concat([header, body]))
        const frame = await client.nextFrame()
        expect(frame.type).not.toBe(0)
      }
    } finally {
      client.destroy()
    }
    expect(served).toBe(before)
  })
})
