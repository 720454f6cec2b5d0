import { Configuration } from '@sluice/core/config'
import { MetricRegistry } from '@sluice/core/metrics'
import { SYSTEM_CLOCK } from '@sluice/core/util'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../app.js'
import { MemoryGatewayBackend } from '../testing/memory-backend.js'
import { send } from '../testing/test-app.js'
import { SILENT_LOGGER } from '../types.js'

const registries: MetricRegistry[] = []
afterEach(() => {
  for (const r of registries.splice(0)) r.close()
})

function app(enabled: boolean) {
  const metrics = new MetricRegistry('gateway')
  registries.push(metrics)
  const config = Configuration.load({ 'gateway.metrics.enabled': String(enabled) })
  const backend = new MemoryGatewayBackend(SYSTEM_CLOCK)
  return { metrics, app: createApp({ backend, config, logger: SILENT_LOGGER, metrics }) }
}

describe('gateway request metrics', () => {
  it('count requests and errors per route template and method', async () => {
    const { metrics, app: gw } = app(true)
    await send(gw, 'POST', '/v1/databases', { name: 'db' })
    await send(gw, 'GET', '/v1/databases/db')
    await send(gw, 'GET', '/v1/databases/missing')
    const text = await metrics.metrics()
    expect(text).toMatch(/fluss_gateway_request_requests_total\{method="POST",route="\/v1\/databases"\} 1/)
    expect(text).toMatch(
      /fluss_gateway_request_requests_total\{method="GET",route="\/v1\/databases\/:database"\} 2/,
    )
    expect(text).toMatch(
      /fluss_gateway_request_errors_total\{method="GET",route="\/v1\/databases\/:database",status="4xx"\} 1/,
    )
    expect(text).toMatch(
      /fluss_gateway_request_requestProcessTimeMs_count\{method="GET",route="\/v1\/databases\/:database"\} 2/,
    )
  })

  it('are not recorded with gateway.metrics.enabled false', async () => {
    const { metrics, app: gw } = app(false)
    await send(gw, 'POST', '/v1/databases', { name: 'db' })
    expect(await metrics.metrics()).not.toContain('fluss_gateway_request_requests_total{')
  })
})
