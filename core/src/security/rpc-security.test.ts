import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect as connectTcp } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as connectTls } from 'node:tls'
import { afterEach, describe, expect, it } from 'vitest'
import { Configuration } from '../config/index.js'
import { FlussError } from '../errors/index.js'
import { encodeRequest } from '../rpc/frame.js'
import { ApiVersionsRequest } from '../rpc/generated/fluss-api.js'
import { ClientConnection, type RequestContext, RpcServer } from '../rpc/index.js'
import { rejection, TestingRawClient } from '../testing/raw-client.js'
import { plainJaas, scramJaas, testCertFile } from '../testing/security.js'
import type { ClientSecurity } from './client-security.js'
import { internalClientSecurity, serverListenerSecurity } from './listener-security.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const logs: { message: string; fields?: Record<string, unknown> }[] = []
const logger = {
  warn: (message: string, fields?: Record<string, unknown>) => logs.push({ message, fields }),
  info: (message: string, fields?: Record<string, unknown>) => logs.push({ message, fields }),
}

async function start(values: Record<string, unknown>, listener = 'CLIENT') {
  const config = Configuration.load({
    'security.sasl.plain.jaas.config': plainJaas({ alice: 'alice-secret', admin: 'admin-secret' }),
    'sluice.security.authentication.failure-delay': '0ms',
    ...values,
  })
  const security = serverListenerSecurity(config, [listener], logger).get(listener)
  const seen: RequestContext[] = []
  const server = new RpcServer({
    role: 'tablet',
    listenerName: listener,
    security,
    logger,
    tlsReloadIntervalMs: 100,
  })
  server.register('LIST_DATABASES', (_req, ctx) => {
    seen.push(ctx)
    return { databaseName: ['db'] }
  })
  const { port } = await server.start()
  cleanups.push(() => server.close(100))
  return { port, seen, server }
}

async function open(port: number, security?: ClientSecurity) {
  const c = await ClientConnection.connect({
    host: '127.0.0.1',
    port,
    connectTimeoutMs: 3000,
    ...(security ? { security } : {}),
  })
  cleanups.push(() => c.close())
  return c
}

const failure = rejection

const plain = (username: string, password: string): ClientSecurity => ({
  sasl: { mechanism: 'PLAIN', username, password },
})
const ca = { caFile: testCertFile('ca.pem') }
const tlsServer = (cert = 'server') => ({
  'sluice.security.ssl.certificate-file': testCertFile(`${cert}.pem`),
  'sluice.security.ssl.key-file': testCertFile(`${cert}.key`),
})

describe('SASL listeners', () => {
  it('authenticate PLAIN and SCRAM-SHA-256 users and give handlers their principal', async () => {
    const { port, seen } = await start({
      'security.protocol.map': 'CLIENT:SASL',
      'security.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
      'security.sasl.scram-sha-256.jaas.config': scramJaas({ bob: 'bob-secret' }),
    })
    const a = await open(port, plain('alice', 'alice-secret'))
    expect(await a.request('LIST_DATABASES', {})).toMatchObject({ databaseName: ['db'] })
    const b = await open(port, {
      sasl: { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'bob-secret' },
    })
    await b.request('LIST_DATABASES', {})
    expect(seen.map(c => [c.connection.session.principal.name, c.connection.session.via])).toEqual([
      ['alice', 'sasl:PLAIN'],
      ['bob', 'sasl:SCRAM-SHA-256'],
    ])
    expect(seen[0].connection.session.internal).toBe(false)
  })

  it('refuse a wrong password, an unknown user, a missing AUTHENTICATE and an unknown mechanism', async () => {
    logs.length = 0
    const { port, seen } = await start({ 'security.protocol.map': 'CLIENT:SASL' })
    for (const [user, password] of [
      ['alice', 'wrong'],
      ['nobody', 'alice-secret'],
    ]) {
      const e = await failure(open(port, plain(user, password)))
      expect(e.errorName).toBe('AUTHENTICATE_EXCEPTION')
      expect(e.message).toMatch(/Invalid username or password/)
    }
    const anonymous = await open(port)
    const e = await failure(anonymous.request('LIST_DATABASES', {}))
    expect(e.errorName).toBe('AUTHENTICATE_EXCEPTION')
    expect(e.message).toMatch(/has not completed authentication/)
    const scram = await failure(
      open(port, { sasl: { mechanism: 'SCRAM-SHA-256', username: 'alice', password: 'x' } }),
    )
    expect(scram.message).toMatch(/SASL server enables \[PLAIN\] while protocol of client is 'SCRAM-SHA-256'/)
    expect(seen).toHaveLength(0)
    const failed = logs.filter(l => l.message === 'authentication failed')
    expect(failed.length).toBeGreaterThanOrEqual(2)
    expect(JSON.stringify(logs)).not.toMatch(/alice-secret|wrong/)
  })

  it('limit failed attempts per address, refusing even the right password until the window passes', async () => {
    const { port } = await start({
      'security.protocol.map': 'CLIENT:SASL',
      'sluice.security.authentication.max-failures': 2,
      'sluice.security.authentication.failure-window': '400ms',
    })
    for (let i = 0; i < 2; i++) await failure(open(port, plain('alice', 'guess')))
    const blocked = await failure(open(port, plain('alice', 'alice-secret')))
    expect(blocked.message).toMatch(/Too many failed authentications from 127\.0\.0\.1/)
    await new Promise(r => setTimeout(r, 450))
    await (await open(port, plain('alice', 'alice-secret'))).request('LIST_DATABASES', {})
  })

  it('answer AUTHENTICATE on a PLAINTEXT listener with a protocol mismatch', async () => {
    const { port } = await start({})
    const e = await failure(open(port, plain('alice', 'alice-secret')))
    expect(e.errorName).toBe('AUTHENTICATE_EXCEPTION')
    expect(e.message).toMatch(/protocol of server is 'PLAINTEXT' while protocol of client is 'PLAIN'/)
  })

  it('fail at startup when a SASL listener has no users', () => {
    const config = Configuration.load({ 'security.protocol.map': 'CLIENT:SASL' })
    expect(() => serverListenerSecurity(config, ['CLIENT'], logger)).toThrow(/no JAAS config gives it users/)
    const unknown = Configuration.load({ 'security.protocol.map': 'OTHER:SASL' })
    expect(() => serverListenerSecurity(unknown, ['CLIENT'], logger)).toThrow(/not in 'bind.listeners'/)
  })
})

describe('TLS listeners', () => {
  it('serve the SDK over TLS, and SASL over TLS', async () => {
    const { port } = await start({ 'security.protocol.map': 'CLIENT:SSL', ...tlsServer() })
    const c = await open(port, { tls: ca })
    expect(await c.request('LIST_DATABASES', {})).toMatchObject({ databaseName: ['db'] })
    const s = await start({ 'security.protocol.map': 'CLIENT:SASL_SSL', ...tlsServer() })
    await (await open(s.port, { tls: ca, ...plain('alice', 'alice-secret') })).request('LIST_DATABASES', {})
    expect(
      (await failure(open(s.port, { tls: ca }).then(x => x.request('LIST_DATABASES', {})))).errorName,
    ).toBe('AUTHENTICATE_EXCEPTION')
  })

  it('take the principal from a verified client certificate (mutual TLS), and require one when told', async () => {
    const { port, seen } = await start({
      'security.protocol.map': 'CLIENT:SSL',
      ...tlsServer(),
      'sluice.security.ssl.ca-file': testCertFile('ca.pem'),
      'sluice.security.ssl.client-auth': 'required',
    })
    const client = { ...ca, certificateFile: testCertFile('client.pem'), keyFile: testCertFile('client.key') }
    await (await open(port, { tls: client })).request('LIST_DATABASES', {})
    expect(seen[0].connection.session.principal).toEqual({ type: 'User', name: 'alice' })
    expect(seen[0].connection.session.via).toBe('tls')
    const e = await failure(open(port, { tls: ca }).then(c => c.request('LIST_DATABASES', {})))
    expect(e.errorName).toBe('NETWORK_EXCEPTION')
  })

  it('refuse an expired certificate, a wrong host and a self-signed certificate without its CA', async () => {
    for (const [cert, message] of [
      ['expired', /expired/i],
      ['other-host', /IP: 127\.0\.0\.1 is not in the cert's list|altnames/i],
      ['self-signed', /self[- ]signed/i],
    ] as const) {
      const { port } = await start({ 'security.protocol.map': 'CLIENT:SSL', ...tlsServer(cert) })
      const e = await failure(open(port, { tls: ca }))
      expect(e.errorName).toBe('NETWORK_EXCEPTION')
      expect(e.message).toMatch(message)
    }
  })

  it('keep serving after TLS garbage on a plaintext port and plaintext on a TLS port', async () => {
    const tlsPort = (await start({ 'security.protocol.map': 'CLIENT:SSL', ...tlsServer() })).port
    const plainPort = (await start({})).port
    // A TLS ClientHello at a plaintext listener: an oversized "frame" → the connection is closed.
    const hello = await new Promise<void>(resolve => {
      const s = connectTls({ host: '127.0.0.1', port: plainPort, rejectUnauthorized: false })
      s.on('error', () => resolve())
      s.on('close', () => resolve())
    })
    expect(hello).toBeUndefined()
    // A plaintext ApiVersions at a TLS listener: the handshake fails, nothing is answered.
    const answered = await new Promise<number>(resolve => {
      const s = connectTcp({ host: '127.0.0.1', port: tlsPort })
      let bytes = 0
      s.on('data', d => {
        bytes += d.length
      })
      s.on('connect', () => {
        for (const c of encodeRequest({ apiKey: 1000, apiVersion: 0, requestId: 1 }, ApiVersionsRequest, {
          clientSoftwareName: 'x',
          clientSoftwareVersion: '1',
        }))
          s.write(c)
      })
      s.on('error', () => undefined)
      s.on('close', () => resolve(bytes))
    })
    expect(answered).toBeLessThan(64) // at most a TLS alert, never an RPC frame
    await (await open(tlsPort, { tls: ca })).request('LIST_DATABASES', {})
    await (await open(plainPort)).request('LIST_DATABASES', {})
    const raw = await TestingRawClient.connect(plainPort)
    raw.destroy()
  })
})

describe('SASL request gate', () => {
  it('answers ApiVersions before authentication but refuses everything else without decoding it', async () => {
    const { port, seen } = await start({ 'security.protocol.map': 'CLIENT:SASL' })
    const raw = await TestingRawClient.connect(port)
    cleanups.push(() => raw.destroy())
    raw.send(
      ...encodeRequest({ apiKey: 1000, apiVersion: 0, requestId: 1 }, ApiVersionsRequest, {
        clientSoftwareName: 'x',
        clientSoftwareVersion: '1',
      }),
    )
    expect((await raw.nextFrame()).type).toBe(0)
    // LIST_DATABASES (1003) with a body that is not even protobuf.
    const header = Buffer.alloc(12)
    header.writeInt32BE(8 + 3, 0)
    header.writeInt16BE(1003, 4)
    header.writeInt16BE(0, 6)
    header.writeInt32BE(2, 8)
    raw.send(header, Buffer.from([0xff, 0xff, 0xff]))
    const refused = await raw.nextFrame()
    expect(refused.type).not.toBe(0)
    expect(seen).toHaveLength(0)
    expect(raw.isClosed).toBe(false)
    expect(FlussError).toBeDefined()
  })
})

describe('TLS certificate rotation', () => {
  it('serves a renewed certificate to new connections while open ones keep working, under load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-tls-rotate-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const cert = join(dir, 'cert.pem')
    const key = join(dir, 'key.pem')
    copyFileSync(testCertFile('server.pem'), cert)
    copyFileSync(testCertFile('server.key'), key)
    const { port, seen } = await start({
      'security.protocol.map': 'CLIENT:SSL',
      'sluice.security.ssl.certificate-file': cert,
      'sluice.security.ssl.key-file': key,
    })
    const served = () =>
      new Promise<string>((resolve, reject) => {
        const s = connectTls({ host: '127.0.0.1', port, ca: [readFileSync(testCertFile('ca.pem'))] }, () => {
          resolve(s.getPeerCertificate().fingerprint256)
          s.destroy()
        })
        s.on('error', reject)
      })
    const before = await served()
    const conns = await Promise.all([0, 1, 2].map(() => open(port, { tls: ca })))
    let answered = 0
    let stop = false
    const load = conns.map(async c => {
      while (!stop) {
        await c.request('LIST_DATABASES', {})
        answered++
      }
    })
    await new Promise(r => setTimeout(r, 200))
    copyFileSync(testCertFile('server2.pem'), cert)
    copyFileSync(testCertFile('server2.key'), key)
    let after = before
    for (let i = 0; i < 50 && after === before; i++) {
      await new Promise(r => setTimeout(r, 100))
      after = await served()
    }
    await new Promise(r => setTimeout(r, 200))
    stop = true
    await Promise.all(load)
    expect(after).not.toBe(before)
    expect(conns.every(c => c.isOpen)).toBe(true)
    expect(answered).toBeGreaterThan(100)
    expect(seen.length).toBe(answered)
  })
})

describe('TLS from PEM text, and protocol versions', () => {
  const pem = (name: string) => readFileSync(testCertFile(name), 'utf8')

  it('serves the certificate and key given as PEM text (a secret) and refuses TLS below 1.2', async () => {
    const { port } = await start({
      'security.protocol.map': 'CLIENT:SSL',
      'sluice.security.ssl.certificate': pem('server.pem'),
      'sluice.security.ssl.key': pem('server.key'),
    })
    expect(
      await (await open(port, { tls: { ca: pem('ca.pem') } })).request('LIST_DATABASES', {}),
    ).toMatchObject({
      databaseName: ['db'],
    })
    // A client that offers TLS 1.0-1.1 only (its own security level lowered so it can offer them).
    const handshake = (maxVersion: 'TLSv1.1' | 'TLSv1.2') =>
      new Promise<string>(resolve => {
        const socket = connectTls({
          host: '127.0.0.1',
          port,
          ca: pem('ca.pem'),
          minVersion: 'TLSv1',
          maxVersion,
          ciphers: 'DEFAULT@SECLEVEL=0',
        })
        socket.once('secureConnect', () => {
          resolve(`connected ${socket.getProtocol()}`)
          socket.destroy()
        })
        socket.once('error', e => resolve(`error ${e.message}`))
      })
    expect(await handshake('TLSv1.2')).toBe('connected TLSv1.2')
    const old = await handshake('TLSv1.1')
    expect(old).toMatch(/^error .*(alert protocol version|unsupported protocol)/i)
    expect(old).not.toMatch(/no protocols available/i)
    // The listener keeps serving.
    await (await open(port, { tls: { ca: pem('ca.pem') } })).request('LIST_DATABASES', {})
  })

  it('refuses a certificate given both as a file and as text', () => {
    const config = Configuration.load({
      'security.protocol.map': 'CLIENT:SSL',
      ...tlsServer(),
      'sluice.security.ssl.certificate': pem('server.pem'),
    })
    expect(() => serverListenerSecurity(config, ['CLIENT'], logger)).toThrow(
      /'sluice.security.ssl.certificate' or 'sluice.security.ssl.certificate-file', not both/,
    )
  })
})

describe('credentials kept as one secret each', () => {
  const secrets = {
    'internal.listener.name': 'INTERNAL',
    'security.protocol.map': 'CLIENT:SASL,INTERNAL:SASL',
    'sluice.security.sasl.internal.password': 'internal-secret',
    'sluice.security.sasl.plain.user.gateway': 'gateway-secret',
  }

  it('sluice.security.sasl.plain.user.<name> adds a client-listener user', async () => {
    const { port, seen } = await start({ ...secrets, 'security.protocol.map': 'CLIENT:SASL' }, 'CLIENT')
    await (await open(port, plain('gateway', 'gateway-secret'))).request('LIST_DATABASES', {})
    await (await open(port, plain('alice', 'alice-secret'))).request('LIST_DATABASES', {})
    expect(seen.map(s => s.connection.session.principal.name)).toEqual(['gateway', 'alice'])
    const e = await failure(open(port, plain('sluice-internal', 'internal-secret')))
    expect(e.errorName).toBe('AUTHENTICATE_EXCEPTION')
  })

  it('sluice.security.sasl.internal.password is the only credential of the internal listener, and what servers present', async () => {
    const { port } = await start({ ...secrets, 'security.protocol.map': 'INTERNAL:SASL' }, 'INTERNAL')
    await (await open(port, plain('sluice-internal', 'internal-secret'))).request('LIST_DATABASES', {})
    for (const [u, p] of [
      ['gateway', 'gateway-secret'],
      ['alice', 'alice-secret'],
    ] as const)
      expect((await failure(open(port, plain(u, p)))).errorName).toBe('AUTHENTICATE_EXCEPTION')
    expect(internalClientSecurity(Configuration.load(secrets))).toEqual({
      sasl: { mechanism: 'PLAIN', username: 'sluice-internal', password: 'internal-secret' },
    })
  })
})

describe('authorizer and the internal listener', () => {
  it('refuses ACLs when the only listener is the internal one, and warns when the internal listener does not authenticate', () => {
    logs.length = 0
    const single = Configuration.load({ 'authorizer.enabled': true })
    expect(() => serverListenerSecurity(single, ['FLUSS'], logger)).toThrow(
      /only listener 'FLUSS' is the internal listener/,
    )
    const open = Configuration.load({
      'authorizer.enabled': true,
      'internal.listener.name': 'INTERNAL',
      'security.protocol.map': 'CLIENT:SASL',
      'security.sasl.plain.jaas.config': plainJaas({ alice: 'a' }),
    })
    serverListenerSecurity(open, ['CLIENT', 'INTERNAL'], logger)
    expect(logs.filter(l => l.message.includes('bypasses every ACL'))).toHaveLength(1)
    expect(logs[0].fields).toEqual({ listener: 'INTERNAL', protocol: 'PLAINTEXT' })
    logs.length = 0
    serverListenerSecurity(
      Configuration.load({
        'authorizer.enabled': true,
        'internal.listener.name': 'INTERNAL',
        'security.protocol.map': 'CLIENT:SASL,INTERNAL:SASL',
        'security.sasl.plain.jaas.config': plainJaas({ alice: 'a' }),
        'sluice.security.sasl.internal.password': 'x',
      }),
      ['CLIENT', 'INTERNAL'],
      logger,
    )
    expect(logs).toEqual([])
    // Without the authorizer a single listener is fine (nothing to bypass).
    serverListenerSecurity(Configuration.load({}), ['FLUSS'], logger)
  })
})
