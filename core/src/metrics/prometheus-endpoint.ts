import { createServer, type Server } from 'node:http'
import { FlussError } from '../errors/index.js'
import type { MetricRegistry } from './metric-registry.js'

export interface PrometheusEndpoint {
  /** `http://host:port/metrics`. */
  readonly url: string
  readonly port: number
  close(): Promise<void>
}

/** The ports of `metrics.reporter.prometheus.port`: one port, or every port of 'low-high' in order. */
export function prometheusPorts(spec: string): number[] {
  const [low, high = low] = spec.split('-').map(Number) as [number, number?]
  if (!(low >= 0 && high <= 65535 && low <= high)) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `metrics.reporter.prometheus.port '${spec}' is not a port or a range 'low-high' of ports`,
    )
  }
  return Array.from({ length: high - low + 1 }, (_, i) => low + i)
}

/**
 * Serves `GET /metrics` (Prometheus text format) on the first free port of `portSpec`. Anything
 * else is 404; a failed collection is 500 with the reason.
 */
export async function startPrometheusEndpoint(
  registry: MetricRegistry,
  host: string,
  portSpec: string,
): Promise<PrometheusEndpoint> {
  const ports = prometheusPorts(portSpec)
  let lastError: unknown
  for (const port of ports) {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the metrics are at /metrics\n')
        return
      }
      registry.metrics().then(
        text => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        e => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${e}\n`),
      )
    })
    try {
      const bound = await listen(server, host, port)
      server.unref() // the endpoint never keeps a process alive
      return {
        url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
        port: bound,
        close: () => new Promise(resolve => server.close(() => resolve())),
      }
    } catch (e) {
      lastError = e
    }
  }
  throw new FlussError(
    'INVALID_CONFIG_EXCEPTION',
    `no port of metrics.reporter.prometheus.port '${portSpec}' is free on ${host}: ${String(lastError)}`,
  )
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      const address = server.address()
      resolve(typeof address === 'object' && address !== null ? address.port : port)
    })
  })
}
