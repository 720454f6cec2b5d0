import { Configuration } from '@sluice/core/config'
import type { Clock } from '@sluice/core/util'
import { describe, expect, it } from 'vitest'
import { createApp } from './app.js'
import { MemoryGatewayBackend } from './testing/memory-backend.js'
import { send, testGateway, withDatabase } from './testing/test-app.js'
import { SILENT_LOGGER } from './types.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('createApp conventions', () => {
  it('answers health (with uptime) and readiness without authentication', async () => {
    const gw = testGateway({
      'gateway.security.authentication': 'token',
      'gateway.security.tokens': 's3cret:alice',
    })
    const health = await gw.call('GET', '/health')
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ status: 'ok', uptime_ms: expect.any(Number) })
    expect((await gw.call('GET', '/ready')).body).toEqual({ status: 'ready' })
  })

  it('puts an x-request-id on every response: a valid incoming UUID or a new one', async () => {
    const gw = testGateway()
    const own = '0d6f4a53-5a9b-4b8e-9a57-0a4b8f3c2e11'
    expect(
      (await gw.call('GET', '/health', undefined, { 'x-request-id': own })).headers.get('x-request-id'),
    ).toBe(own)
    const replaced = await gw.call('GET', '/v1/databases/x', undefined, { 'x-request-id': 'not a uuid' })
    expect(replaced.headers.get('x-request-id')).toMatch(UUID)
    expect(replaced.body.error.request_id).toBe(replaced.headers.get('x-request-id'))
    expect((await gw.call('GET', '/nowhere')).headers.get('x-request-id')).toMatch(UUID)
  })

  it('answers unknown routes with 404 and wrong methods with 405 and Allow', async () => {
    const gw = testGateway()
    const missing = await gw.call('GET', '/v2/things')
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found'])
    const wrong = await gw.call('PUT', '/v1/databases', { name: 'x' })
    expect([wrong.status, wrong.body.error.code, wrong.headers.get('allow')]).toEqual([
      405,
      'method_not_allowed',
      'GET, POST',
    ])
  })

  it('enforces JSON: Accept (406), Content-Type (415), query strings and bodies where none are taken (400)', async () => {
    const gw = testGateway()
    expect((await gw.call('GET', '/v1/databases', undefined, { accept: 'text/html' })).status).toBe(406)
    expect(
      (await gw.call('GET', '/v1/databases', undefined, { accept: 'text/html, application/*;q=0.5' })).status,
    ).toBe(200)
    expect(
      (await gw.call('GET', '/v1/databases', undefined, { accept: 'application/json;q=0' })).status,
    ).toBe(406)
    const plain = await gw.call('POST', '/v1/databases', '{"name":"x"}', { 'content-type': 'text/plain' })
    expect([plain.status, plain.body.error.code]).toEqual([415, 'unsupported_media_type'])
    expect(
      (
        await gw.call('POST', '/v1/databases', '{"name":"x"}', {
          'content-type': 'application/json; charset=latin1',
        })
      ).status,
    ).toBe(415)
    expect(
      (
        await gw.call('POST', '/v1/databases', '{"name":"x"}', {
          'content-type': 'application/json; charset=UTF-8',
        })
      ).status,
    ).toBe(201)
    expect(
      (
        await gw.call('POST', '/v1/databases', new Uint8Array([1]), {
          'content-type': 'application/vnd.apache.arrow.stream',
        })
      ).status,
    ).toBe(415)
    const query = await gw.call('GET', '/v1/databases?page=2')
    expect([query.status, query.body.error.message]).toEqual([
      400,
      'GET /v1/databases takes no query parameters.',
    ])
    expect((await gw.call('DELETE', '/v1/databases/x', { a: 1 })).body.error.message).toMatch(
      /takes no request body/,
    )
    expect(gw.backend.calls.get('dropDatabase')).toBeUndefined()
  })

  it('refuses bodies over gateway.rest.write.max-request-bytes with 413, by header or while reading', async () => {
    const gw = testGateway({ 'gateway.rest.write.max-request-bytes': 64 })
    const big = JSON.stringify({ name: 'x', comment: 'y'.repeat(100) })
    const declared = await gw.call('POST', '/v1/databases', big)
    expect([declared.status, declared.body.error.code]).toEqual([413, 'limit_exceeded'])
    const chunks = [new TextEncoder().encode(big.slice(0, 40)), new TextEncoder().encode(big.slice(40))]
    const stream = new ReadableStream({
      pull(c) {
        const next = chunks.shift()
        if (next) c.enqueue(next)
        else c.close()
      },
    })
    const res = await gw.app.request('/v1/databases', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(413)
    expect(gw.backend.calls.get('createDatabase')).toBeUndefined()
  })

  it('fails requests past the deadline with 504 timeout and aborts the backend call', async () => {
    const gw = testGateway({ 'gateway.rest.write.request-timeout': '30ms' })
    gw.backend.hang('listDatabases')
    const res = await gw.call('GET', '/v1/databases')
    expect([res.status, res.body.error.code]).toEqual([504, 'timeout'])
    expect((await gw.call('GET', '/health')).status).toBe(200)
  })

  it('answers 503 with Retry-After while starting or draining, but stays live', async () => {
    const gw = testGateway()
    gw.app.lifecycle.startDraining()
    const ready = await gw.call('GET', '/ready')
    expect([ready.status, ready.body.error.code, ready.headers.get('retry-after')]).toEqual([
      503,
      'unavailable',
      '1',
    ])
    expect((await gw.call('GET', '/v1/databases')).status).toBe(503)
    expect((await gw.call('GET', '/v1/openapi.json')).status).toBe(503)
    expect((await gw.call('GET', '/health')).status).toBe(200)
  })

  it('limits concurrent writes with 429 resource_exhausted', async () => {
    const gw = await withDatabase(testGateway({ 'gateway.rest.write.max-concurrent-requests': 1 }))
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'a', type: 'INT' }] },
    })
    const release = gw.backend.block('append')
    const first = gw.call('POST', '/v1/databases/db/tables/t/append', { rows: [{ a: 1 }] })
    for (let i = 0; i < 500 && gw.backend.calls.get('append') !== 1; i++)
      await new Promise(r => setTimeout(r, 10))
    const second = await gw.call('POST', '/v1/databases/db/tables/t/append', { rows: [{ a: 2 }] })
    expect([second.status, second.body.error.code, second.headers.get('retry-after')]).toEqual([
      429,
      'resource_exhausted',
      '1',
    ])
    release()
    expect((await first).status).toBe(200)
    expect((await gw.call('POST', '/v1/databases/db/tables/t/append', { rows: [{ a: 3 }] })).status).toBe(200)
  })

  it('rate-limits writes when enabled, with Retry-After', async () => {
    let now = 1_000_000
    const clock: Clock = { nowMs: () => now }
    const backend = new MemoryGatewayBackend(clock)
    const config = Configuration.load({
      'gateway.rest.write.rate-limit.enabled': true,
      'gateway.rest.write.rate-limit.requests-per-second': 2,
    })
    const app = createApp({ backend, config, clock, logger: SILENT_LOGGER })
    await send(app, 'POST', '/v1/databases', { name: 'db' })
    await send(app, 'POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'a', type: 'INT' }] },
    })
    const write = () => send(app, 'POST', '/v1/databases/db/tables/t/append', { rows: [{ a: 1 }] })
    expect((await write()).status).toBe(200)
    expect((await write()).status).toBe(200)
    const limited = await write()
    expect([limited.status, limited.body.error.code, limited.headers.get('retry-after')]).toEqual([
      429,
      'resource_exhausted',
      '1',
    ])
    now += 1000
    expect((await write()).status).toBe(200)
    expect(backend.writtenRows).toBe(3)
  })

  it('authenticates bearer tokens in token mode', async () => {
    const gw = testGateway({
      'gateway.security.authentication': 'token',
      'gateway.security.tokens': 's3cret:alice',
    })
    const none = await gw.call('GET', '/v1/databases')
    expect([none.status, none.body.error.code, none.headers.get('www-authenticate')]).toEqual([
      401,
      'unauthenticated',
      'Bearer',
    ])
    expect((await gw.call('GET', '/v1/databases', undefined, { authorization: 'Bearer wrong' })).status).toBe(
      401,
    )
    expect(
      (await gw.call('GET', '/v1/databases', undefined, { authorization: 'Bearer s3cret' })).status,
    ).toBe(200)
    expect((await gw.call('GET', '/v1/openapi.json')).status).toBe(200)
  })

  it('authenticates users in password and trusted-header modes', async () => {
    const pw = testGateway({
      'gateway.security.authentication': 'password',
      'gateway.security.users': 'bob:pw',
    })
    const basic = (s: string) => ({ authorization: `Basic ${Buffer.from(s).toString('base64')}` })
    expect((await pw.call('GET', '/v1/databases', undefined, basic('bob:pw'))).status).toBe(200)
    expect((await pw.call('GET', '/v1/databases', undefined, basic('bob:no'))).status).toBe(401)
    const th = testGateway({ 'gateway.security.authentication': 'trusted-header' })
    expect((await th.call('GET', '/v1/databases')).status).toBe(401)
    expect((await th.call('GET', '/v1/databases', undefined, { 'x-forwarded-user': 'carol' })).status).toBe(
      200,
    )
  })

  it('refuses an authentication mode without its secrets at startup', () => {
    expect(() => testGateway({ 'gateway.security.authentication': 'token' })).toThrow(
      /gateway.security.tokens/,
    )
  })
})
