import { FLUSS_CONF_ENV } from '@sluice/core/config'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { event } from './testing/lambda-event.js'

const saved = process.env[FLUSS_CONF_ENV]
afterAll(() => {
  if (saved === undefined) delete process.env[FLUSS_CONF_ENV]
  else process.env[FLUSS_CONF_ENV] = saved
})

describe('Lambda entry point', () => {
  it('serves /health and /ready while the SDK cannot reach the cluster', async () => {
    // Port 1 refuses connections: every boot attempt fails after the client's request timeout.
    process.env[FLUSS_CONF_ENV] = JSON.stringify({
      'bootstrap.servers': '127.0.0.1:1',
      'client.request-timeout': '200ms',
      'gateway.connect.retry-backoff.initial': '1min',
      'gateway.connect.retry-backoff.max': '2min',
    })
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const { handler } = await import('./handler.js')
    expect((await handler(event('GET', '/health'))).statusCode).toBe(200)
    const request = await handler(event('GET', '/v1/databases'))
    expect(request.statusCode).toBe(503)
    expect(request.headers?.['retry-after']).toBe('60')
    expect(JSON.parse(request.body).error).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/could not start: .*127\.0\.0\.1:1/),
    })
    const ready = await handler(event('GET', '/ready'))
    expect([ready.statusCode, ready.headers?.['retry-after']]).toEqual([503, '60'])
    expect((await handler(event('GET', '/health'))).statusCode).toBe(200)
    expect(logged.mock.calls.map(c => JSON.parse(String(c[0])).message)).toEqual(['gateway boot failed'])
    logged.mockRestore()
  })
})
