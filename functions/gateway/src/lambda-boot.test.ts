import { Configuration } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { createLambdaApp, lambdaHandler } from './lambda.js'
import { BootOnce } from './lambda-boot.js'
import { event } from './testing/lambda-event.js'
import { MemoryGatewayBackend } from './testing/memory-backend.js'
import { SILENT_LOGGER } from './types.js'

function testingClock() {
  let now = 1_000_000
  return { nowMs: () => now, advance: (ms: number) => (now += ms) }
}

const unreachable = () => new FlussError('NETWORK_EXCEPTION', 'cannot reach 10.0.0.1:9123')

/** A handler whose boot fails while `failing()` is true; counts boot attempts. */
function setup(config: Record<string, string> = {}) {
  const clock = testingClock()
  const state = { attempts: 0, failing: true }
  const handler = lambdaHandler(
    async () => {
      state.attempts++
      if (state.failing) throw unreachable()
      const backend = new MemoryGatewayBackend()
      return createLambdaApp({ backend, config: Configuration.load({}), logger: SILENT_LOGGER })
    },
    { config: Configuration.load(config), logger: SILENT_LOGGER, clock },
  )
  const invoke = async (method: string, path: string) => {
    const res = await handler(event(method, path, { headers: { 'x-request-id': REQUEST_ID } }))
    const headers = res.headers as Record<string, string>
    return { status: res.statusCode, headers, body: JSON.parse(res.body) }
  }
  return { clock, state, invoke }
}

const REQUEST_ID = '0b7c5a52-5c1e-4c8e-9d0a-3f0f6a1d2e11'

describe('Lambda handler while the SDK connection is not up', () => {
  it('answers /health 200 and /ready 503 during a failed boot, and backs off before retrying', async () => {
    const { clock, state, invoke } = setup()
    const health = await invoke('GET', '/health')
    expect([health.status, health.body.status]).toEqual([200, 'ok'])
    expect(health.headers['x-request-id']).toBe(REQUEST_ID)
    expect(state.attempts).toBe(0)

    const ready = await invoke('GET', '/ready')
    expect(ready.status).toBe(503)
    expect(ready.headers['retry-after']).toBe('1')
    expect(ready.body.error).toMatchObject({ code: 'unavailable', request_id: REQUEST_ID })
    expect(state.attempts).toBe(1)

    const failed = await invoke('GET', '/v1/databases')
    expect(failed.status).toBe(503)
    expect(failed.body.error).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/could not start: cannot reach 10\.0\.0\.1:9123/),
    })
    expect(state.attempts).toBe(1)
    expect((await invoke('GET', '/health')).status).toBe(200)

    clock.advance(1000)
    const second = await invoke('GET', '/v1/databases')
    expect([second.status, second.headers['retry-after']]).toEqual([503, '2'])
    expect(state.attempts).toBe(2)
    clock.advance(1000)
    expect((await invoke('GET', '/v1/databases')).headers['retry-after']).toBe('1')
    expect(state.attempts).toBe(2)

    state.failing = false
    clock.advance(1000)
    const served = await invoke('GET', '/v1/databases')
    expect([served.status, served.body]).toEqual([200, { databases: [] }])
    expect((await invoke('GET', '/ready')).status).toBe(200)
    expect((await invoke('GET', '/health')).status).toBe(200)
    expect(state.attempts).toBe(3)
  })

  it('answers /ready at once while a boot is running; other requests wait for it', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>(resolve => {
      release = resolve
    })
    let attempts = 0
    const handler = lambdaHandler(
      async () => {
        attempts++
        await gate
        return createLambdaApp({
          backend: new MemoryGatewayBackend(),
          config: Configuration.load({}),
          logger: SILENT_LOGGER,
        })
      },
      { logger: SILENT_LOGGER },
    )
    const ready = await handler(event('GET', '/ready'))
    expect(ready.statusCode).toBe(503)
    expect(JSON.parse(ready.body).error.message).toMatch(/is starting/)
    expect((await handler(event('GET', '/health'))).statusCode).toBe(200)
    const waiting = handler(event('GET', '/v1/databases'))
    release()
    expect((await waiting).statusCode).toBe(200)
    expect((await handler(event('GET', '/ready'))).statusCode).toBe(200)
    expect(attempts).toBe(1)
  })

  it('reads the retry backoff from gateway.connect.retry-backoff.*', async () => {
    const { clock, invoke } = setup({
      'gateway.connect.retry-backoff.initial': '2s',
      'gateway.connect.retry-backoff.max': '5s',
    })
    const waits: string[] = []
    for (let i = 0; i < 4; i++) {
      const res = await invoke('GET', '/v1/databases')
      waits.push(res.headers['retry-after'])
      clock.advance(Number(res.headers['retry-after']) * 1000)
    }
    expect(waits).toEqual(['2', '4', '5', '5'])
  })
})

describe('BootOnce', () => {
  it('makes the value once, shares a running attempt and turns a synchronous throw into a failure', async () => {
    const clock = testingClock()
    let calls = 0
    const once = new BootOnce(
      async () => {
        calls++
        return 'app'
      },
      { initialMs: 10, maxMs: 10 },
      clock,
    )
    const [a, b] = [once.start(), once.start()]
    expect(a).toBe(b)
    expect([await a, once.value, calls]).toEqual(['app', 'app', 1])
    const errors: unknown[] = []
    const throwing = new BootOnce(
      () => {
        throw unreachable()
      },
      { initialMs: 10, maxMs: 10 },
      clock,
      e => errors.push(e),
    )
    await expect(throwing.start()).rejects.toThrow(/cannot reach/)
    expect(throwing.start()).toBeUndefined()
    expect(errors).toHaveLength(1)
  })
})
