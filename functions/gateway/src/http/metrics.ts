import type { MetricRegistry } from '@sluice/core/metrics'
import { LATENCY_BUCKETS_MS } from '@sluice/core/metrics'
import type { Context, Next } from 'hono'
import { routePath } from 'hono/route'

/**
 * The gateway's request metrics (`fluss_gateway_request_*`), one series per route template and
 * method: requests, failed requests (status 400 and above, label `status` class 4xx/5xx), body
 * bytes in, and the time to the response. Recorded once per request.
 */
export function gatewayMetrics(registry: MetricRegistry) {
  const labels = ['method', 'route']
  const requests = registry.meter('request_requests', 'HTTP requests answered', labels)
  const errors = registry.meter('request_errors', 'HTTP requests answered with status >= 400', [
    ...labels,
    'status',
  ])
  const bytesIn = registry.counter('request_bytesIn', 'Bytes of request bodies (Content-Length)', labels)
  const time = registry.histogram(
    'request_requestProcessTimeMs',
    'Time from a request received to its response (ms)',
    LATENCY_BUCKETS_MS,
    labels,
  )
  return async (c: Context, next: Next): Promise<void> => {
    const startMs = performance.now()
    try {
      await next()
    } finally {
      const route = routePath(c, -1)
      const method = c.req.method
      requests.child(method, route).count++
      const status = c.res.status
      if (status >= 400) errors.child(method, route, `${Math.floor(status / 100)}xx`).count++
      const length = Number(c.req.header('content-length') ?? 0)
      if (length > 0) bytesIn.child(method, route).count += length
      time.child(method, route).observe(performance.now() - startMs)
    }
  }
}
