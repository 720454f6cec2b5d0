import { Configuration } from '@sluice/core/config'
import { createApp, GATEWAY_API_VERSION, type GatewayApp } from '../app.js'
import type { GatewayLimits } from '../limits.js'
import { buildOpenApiDocument } from '../openapi/document.js'
import { SILENT_LOGGER } from '../types.js'
import { MemoryGatewayBackend } from './memory-backend.js'
import { responseProblem } from './openapi-check.js'

export interface TestGateway {
  readonly app: GatewayApp
  readonly backend: MemoryGatewayBackend
  /** Sends a request; a non-string `body` is sent as JSON. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>
}

export interface TestResponse {
  readonly status: number
  readonly headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
  readonly body: any
}

/** A gateway app on an in-memory backend, with silent logs. */
export function testGateway(
  config: Record<string, unknown> = {},
  limits: Partial<GatewayLimits> = {},
): TestGateway {
  const backend = new MemoryGatewayBackend()
  const app = createApp({ backend, config: Configuration.load(config), logger: SILENT_LOGGER, limits })
  let document: unknown
  return {
    app,
    backend,
    call: async (method, path, body, headers) => {
      const res = await send(app, method, path, body, headers)
      document ??= buildOpenApiDocument(app.registry, GATEWAY_API_VERSION)
      const problem = responseProblem(document, method, path.split('?')[0], res.status, res.body)
      if (problem !== undefined)
        throw new Error(
          `response does not match the OpenAPI document: ${problem}\n${JSON.stringify(res.body)}`,
        )
      return res
    },
  }
}

export async function send(
  app: { request(path: string, init: RequestInit): Response | Promise<Response> },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const init: RequestInit = { method, headers: { ...headers } }
  if (body !== undefined) {
    init.body =
      typeof body === 'string' || body instanceof Uint8Array ? (body as string) : JSON.stringify(body)
    if (!Object.keys(headers).some(h => h.toLowerCase() === 'content-type')) {
      ;(init.headers as Record<string, string>)['content-type'] = 'application/json'
    }
  }
  const res = await app.request(path, init)
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }
}

/** Creates database `db` and returns the gateway. */
export async function withDatabase(gw: TestGateway, db = 'db'): Promise<TestGateway> {
  const res = await gw.call('POST', '/v1/databases', { name: db })
  if (res.status !== 201) throw new Error(`create database: ${res.status} ${JSON.stringify(res.body)}`)
  return gw
}
