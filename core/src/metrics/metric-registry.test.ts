import { afterEach, describe, expect, it } from 'vitest'
import { Configuration } from '../config/configuration.js'
import { EmfPublisher } from './emf.js'
import { MetricRegistry } from './metric-registry.js'
import { startProcessMetrics } from './process-metrics.js'
import { prometheusPorts, startPrometheusEndpoint } from './prometheus-endpoint.js'

const registries: MetricRegistry[] = []
afterEach(() => {
  for (const r of registries.splice(0)) r.close()
})
function registry(labels = {}): MetricRegistry {
  const r = new MetricRegistry('tabletserver', labels)
  registries.push(r)
  return r
}

describe('MetricRegistry', () => {
  it('renders Fluss names with labels, counters, gauges read at scrape time and histograms', async () => {
    const r = registry({ server_id: '7' })
    const meter = r.meter('table_messagesIn', 'Messages written', ['database', 'table'])
    meter.child('db', 't').add(5)
    meter.child('db', 't').add(2)
    r.gauge('underReplicated', 'Under-replicated buckets', () => 3)
    r.gauge('table_bucket_log_endOffset', 'End offsets', () => [[{ bucket: '0' }, 42]])
    const h = r.histogram('request_requestProcessTimeMs', 'Time', [1, 10], ['request'])
    h.child('produceLog').observe(0.5)
    h.child('produceLog').observe(5)
    h.child('produceLog').observe(50)
    const text = await r.metrics()
    expect(text).toContain('# TYPE fluss_tabletserver_table_messagesIn_total counter')
    expect(text).toContain(
      'fluss_tabletserver_table_messagesIn_total{database="db",table="t",server_id="7"} 7',
    )
    expect(text).toContain('# TYPE fluss_tabletserver_table_messagesInPerSecond gauge')
    expect(text).toContain('fluss_tabletserver_underReplicated{server_id="7"} 3')
    expect(text).toContain('fluss_tabletserver_table_bucket_log_endOffset{bucket="0",server_id="7"} 42')
    expect(text).toContain(
      'fluss_tabletserver_request_requestProcessTimeMs_bucket{request="produceLog",le="1",server_id="7"} 1',
    )
    expect(text).toContain(
      'fluss_tabletserver_request_requestProcessTimeMs_bucket{request="produceLog",le="10",server_id="7"} 2',
    )
    expect(text).toContain(
      'fluss_tabletserver_request_requestProcessTimeMs_bucket{request="produceLog",le="+Inf",server_id="7"} 3',
    )
    expect(text).toContain(
      'fluss_tabletserver_request_requestProcessTimeMs_sum{request="produceLog",server_id="7"} 55.5',
    )
    expect(text).toContain('nodejs_eventloop_lag_p99_seconds')
    expect(text).toContain('nodejs_gc_duration_seconds')
  })

  it('forgets removed series; refuses a name registered twice', async () => {
    const r = registry()
    const m = r.meter('bytesIn', 'Bytes', ['table'])
    m.child('a').add(1)
    m.remove('a')
    expect(await r.metrics()).not.toContain('table="a"')
    expect(() => r.meter('bytesIn', 'again')).toThrow(/already been registered/)
  })
})

describe('the Prometheus endpoint', () => {
  it('serves /metrics, 404 elsewhere, and takes the next port of a busy range', async () => {
    const r = registry()
    r.gauge('x', 'x', () => 1)
    const first = await startPrometheusEndpoint(r, '127.0.0.1', '0')
    try {
      const res = await fetch(first.url)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain('text/plain')
      expect(await res.text()).toContain('fluss_tabletserver_x 1')
      expect((await fetch(first.url.replace('/metrics', '/'))).status).toBe(404)
      const second = await startPrometheusEndpoint(r, '127.0.0.1', `${first.port}-${first.port + 20}`)
      expect(second.port).toBeGreaterThan(first.port)
      await second.close()
      await expect(startPrometheusEndpoint(r, '127.0.0.1', String(first.port))).rejects.toThrow(/no port/)
    } finally {
      await first.close()
    }
  })

  it('parses ports and ranges', () => {
    expect(prometheusPorts('9249')).toEqual([9249])
    expect(prometheusPorts('9250-9252')).toEqual([9250, 9251, 9252])
    expect(() => prometheusPorts('9252-9250')).toThrow(/not a port/)
  })
})

describe('process metrics from the configuration', () => {
  it('are off without a reporter; jmx and push-gateway reporters are refused', async () => {
    expect(await startProcessMetrics(Configuration.load({}), { scope: 'coordinator' })).toBeUndefined()
    expect(() => Configuration.load({ 'metrics.reporters': 'jmx' })).toThrow(/metrics.reporters/)
    expect(() => Configuration.load({ 'metrics.reporter.jmx.port': '9250' })).toThrow(/does not have/)
    expect(() => Configuration.load({ 'metrics.reporter.prometheus-push.host-url': 'http://x' })).toThrow(
      /does not have/,
    )
  })

  it('serve Prometheus on the configured port', async () => {
    const m = await startProcessMetrics(
      Configuration.load({ 'metrics.reporters': 'prometheus', 'metrics.reporter.prometheus.port': '0' }),
      { scope: 'coordinator', labels: { server_id: '1' } },
    )
    try {
      expect(m?.endpoint?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
      expect(await (await fetch(m?.endpoint?.url as string)).text()).toContain('nodejs_heap_size_used_bytes')
    } finally {
      await m?.close()
    }
  })
})

describe('EmfPublisher', () => {
  it('writes one embedded-metric-format line: sums, maxima and counter increases', async () => {
    const r = registry({ server_id: '3' })
    r.gauge('underReplicated', 'u', () => [
      [{ table: 'a' }, 1],
      [{ table: 'b' }, 2],
    ])
    const failures = r.meter('kvSnapshot_failures', 'f').child()
    const lines: string[] = []
    const emf = new EmfPublisher({
      registry: r,
      namespace: 'Sluice',
      dimensions: { Service: 'tabletserver', ServerId: '3' },
      metrics: [
        { from: 'fluss_tabletserver_underReplicated', name: 'underReplicated', unit: 'Count', kind: 'sum' },
        {
          from: 'fluss_tabletserver_underReplicated',
          name: 'underReplicatedMax',
          unit: 'Count',
          kind: 'max',
        },
        {
          from: 'fluss_tabletserver_kvSnapshot_failures_total',
          name: 'kvSnapshotFailures',
          unit: 'Count',
          kind: 'delta',
        },
      ],
      intervalMs: 3_600_000,
      write: l => lines.push(l),
      nowMs: () => 1000,
    })
    failures.add(4)
    await emf.publish()
    failures.add(1)
    await emf.publish()
    emf.close()
    const [first, second] = lines.map(l => JSON.parse(l))
    expect(first).toEqual({
      _aws: {
        Timestamp: 1000,
        CloudWatchMetrics: [
          {
            Namespace: 'Sluice',
            Dimensions: [['Service'], ['Service', 'ServerId']],
            Metrics: [
              { Name: 'underReplicated', Unit: 'Count' },
              { Name: 'underReplicatedMax', Unit: 'Count' },
              { Name: 'kvSnapshotFailures', Unit: 'Count' },
            ],
          },
        ],
      },
      Service: 'tabletserver',
      ServerId: '3',
      underReplicated: 3,
      underReplicatedMax: 2,
      kvSnapshotFailures: 4,
    })
    expect(second.kvSnapshotFailures).toBe(1)
  })
})
