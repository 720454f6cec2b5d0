import { type MetricRegistry, RequestMetrics } from '@sluice/core/metrics'
import type { IsrUpdateOutcome } from '../../replica/replica-isr-writes.js'
import { registerRocksDbGauges } from './rocksdb-gauges.js'
import { TableMeterSet } from './table-meters.js'
import { registerTabletGauges, type TabletGaugeSources } from './tablet-gauges.js'

/**
 * The metrics of a tablet server (`fluss_tabletserver_*`): request metrics of its RPC listeners,
 * the server and table meters recorded once per request, ISR change meters, and gauges read from
 * the replicas, KV tablets (RocksDB), remote log and KV snapshots when scraped.
 */
export class TabletServerMetrics {
  readonly requests: RequestMetrics
  readonly tables: TableMeterSet
  readonly #isr: Record<IsrUpdateOutcome, { count: number }>

  constructor(
    registry: MetricRegistry,
    sources: TabletGaugeSources & { readonly connections: () => number },
  ) {
    const replicas = () => sources.replicaManager.replicas()
    this.requests = new RequestMetrics(registry, sources.connections)
    this.tables = new TableMeterSet(registry, replicas)
    this.#isr = {
      shrink: registry.meter('isrShrinks', 'ISR shrinks committed by leaders here').child(),
      expand: registry.meter('isrExpands', 'ISR expansions committed by leaders here').child(),
      failed: registry.meter('failedIsrUpdates', 'ISR writes that failed').child(),
    }
    registerTabletGauges(registry, sources)
    registerRocksDbGauges(registry, replicas)
    registry.gauge('tableCount', 'Tables with a replica on this server', () => {
      const held = new Set(replicas().map(r => r.tableBucket.tableId))
      this.tables.prune(held)
      return held.size
    })
  }

  isrUpdated(outcome: IsrUpdateOutcome): void {
    this.#isr[outcome].count++
  }
}
