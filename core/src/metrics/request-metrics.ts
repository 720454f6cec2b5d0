import { apiByKey } from '../rpc/api-keys.js'
import { ResponseType } from '../rpc/frame.js'
import type { RequestObserver } from '../rpc/handler.js'
import type { Buckets } from './families.js'
import type { MeteredCount } from './meter.js'
import { LATENCY_BUCKETS_MS, type MetricRegistry, SIZE_BUCKETS_BYTES } from './metric-registry.js'

interface ApiSlot {
  readonly requests: MeteredCount
  readonly errors: MeteredCount
  readonly bytes: Buckets
  readonly time: Buckets
}

/** `PRODUCE_LOG` → `produceLog` (Fluss's request metric group names). */
export function requestMetricName(apiName: string): string {
  return apiName.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
}

/**
 * Fluss's request metrics of an RPC server, one series per API (label `request`, Fluss's
 * `request_<api>` infix): `requestsPerSecond`, `errorsPerSecond` (with their `_total` counters),
 * `requestBytes` and `requestProcessTimeMs` (histograms). Recorded once per request, where the
 * server hands the response to the socket; `connectionCount` is read when scraped.
 */
export class RequestMetrics implements RequestObserver {
  readonly #slots = new Map<number, ApiSlot>()
  readonly #requests
  readonly #errors
  readonly #bytes
  readonly #time

  constructor(registry: MetricRegistry, connections?: () => number) {
    const labels = ['request']
    this.#requests = registry.meter('request_requests', 'Requests processed', labels)
    this.#errors = registry.meter('request_errors', 'Requests answered with an error', labels)
    this.#bytes = registry.histogram(
      'request_requestBytes',
      'Size of requests (bytes)',
      SIZE_BUCKETS_BYTES,
      labels,
    )
    this.#time = registry.histogram(
      'request_requestProcessTimeMs',
      'Time from a request read off the socket to its response handed to it (ms)',
      LATENCY_BUCKETS_MS,
      labels,
    )
    if (connections !== undefined)
      registry.gauge('connectionCount', 'Open client and server connections', connections)
  }

  completed(apiKey: number, requestBytes: number, startMs: number, response: readonly Buffer[]): void {
    const slot = this.#slots.get(apiKey) ?? this.#slot(apiKey)
    slot.requests.count++
    if (response[0]?.[4] === ResponseType.ERROR) slot.errors.count++
    slot.bytes.observe(requestBytes)
    slot.time.observe(performance.now() - startMs)
  }

  #slot(apiKey: number): ApiSlot {
    const name = requestMetricName(apiByKey(apiKey)?.name ?? `api${apiKey}`)
    const slot = {
      requests: this.#requests.child(name),
      errors: this.#errors.child(name),
      bytes: this.#bytes.child(name),
      time: this.#time.child(name),
    }
    this.#slots.set(apiKey, slot)
    return slot
  }
}
