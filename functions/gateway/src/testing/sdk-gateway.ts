import { FakeCluster } from '@sluice/client/testing'
import { Configuration, type RawValue } from '@sluice/core/config'
import { GATEWAY_API_VERSION } from '../app.js'
import { SdkBackend } from '../backend/sdk-backend.js'
import { buildOpenApiDocument } from '../openapi/document.js'
import { type GatewayServer, startGatewayServer } from '../server.js'
import { SILENT_LOGGER } from '../types.js'
import { responseProblem } from './openapi-check.js'

export interface SdkGateway {
  readonly cluster: FakeCluster
  readonly backend: SdkBackend
  readonly server: GatewayServer
  /** Sends a JSON request over HTTP; the response must conform to the OpenAPI document. */
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
}

/**
 * The gateway served over HTTP on 127.0.0.1 (random port) with an SdkBackend connected to an
 * in-process FakeCluster (Fluss RPC, with KV support). Everything started is closed by `cleanups`
 * (run them last-registered first).
 */
export async function startSdkGateway(
  cleanups: (() => Promise<unknown>)[],
  config: Readonly<Record<string, RawValue>> = {},
  tabletServers = 2,
): Promise<SdkGateway> {
  const cluster = await FakeCluster.start({ tabletServers })
  cleanups.push(() => cluster.close())
  const configuration = Configuration.load({
    'bootstrap.servers': cluster.bootstrapServers,
    'gateway.rest.write.request-timeout': '10s',
    'client.lookup.batch-timeout': '5ms',
    ...config,
  })
  const backend = await SdkBackend.connect(configuration)
  cleanups.push(() => backend.close())
  const server = await startGatewayServer({
    config: configuration,
    backend,
    port: 0,
    host: '127.0.0.1',
    logger: SILENT_LOGGER,
  })
  cleanups.push(() => server.close())
  const doc = buildOpenApiDocument(server.app.registry, GATEWAY_API_VERSION)
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    })
    const text = await res.text()
    const json = text === '' ? undefined : JSON.parse(text)
    const problem = responseProblem(doc, method, path.split('?')[0], res.status, json)
    if (problem !== undefined) throw new Error(`${problem}: ${text}`)
    return { status: res.status, body: json }
  }
  return { cluster, backend, server, call }
}
