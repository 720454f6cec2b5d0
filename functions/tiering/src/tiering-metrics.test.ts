import { readFileSync } from 'node:fs'
import { Configuration } from '@sluice/core/config'
import type { TableInfo } from '@sluice/core/metadata'
import { MetricRegistry } from '@sluice/core/metrics'
import { afterEach, describe, expect, it } from 'vitest'
import type { LakeItem } from './round/lake-item.js'
import type { RoundResult } from './round/round-result.js'
import { TieringMetrics } from './tiering-metrics.js'

const registry = new MetricRegistry('tiering')
afterEach(() => registry.close())

const info = {
  tableId: 5,
  tablePath: { databaseName: 'db', tableName: 'orders' },
  tableConfig: Configuration.load({ 'table.datalake.freshness': '1min' }),
} as unknown as TableInfo

describe('TieringMetrics', () => {
  it('reports lag, freshness, their ratio and round counts per table', async () => {
    let now = 1_000_000
    const metrics = new TieringMetrics(registry, () => now)
    metrics.observeTable(info, { lastRoundEndMs: now - 30_000 } as LakeItem)
    let text = await registry.metrics()
    expect(text).toContain('fluss_tiering_table_tierLag{database="db",table="orders"} 30000')
    expect(text).toContain('fluss_tiering_table_freshness{database="db",table="orders"} 60000')
    expect(text).toContain('fluss_tiering_table_tierLagOverFreshness{database="db",table="orders"} 0.5')
    now += 90_000
    expect(await registry.metrics()).toContain(
      'fluss_tiering_table_tierLagOverFreshness{database="db",table="orders"} 2',
    )
    const round = {
      tableId: 5,
      tablePath: info.tablePath,
      status: 'committed',
      records: 120,
      bytes: 4096,
      durationMs: 800,
    }
    metrics.round(round as RoundResult)
    metrics.round({ ...round, status: 'failed', records: 0, bytes: 0 } as RoundResult)
    text = await registry.metrics()
    expect(text).toContain('fluss_tiering_table_tierLag{database="db",table="orders"} 0')
    expect(text).toContain('fluss_tiering_table_rounds_total{database="db",table="orders"} 2')
    expect(text).toContain('fluss_tiering_table_failures_total{database="db",table="orders"} 1')
    expect(text).toContain('fluss_tiering_table_records_total{database="db",table="orders"} 120')
    expect(text).toContain('fluss_tiering_table_tierDuration{database="db",table="orders"} 800')
  })
  it('serves every tiering metric the Grafana dashboard charts', async () => {
    const dashboard = readFileSync(
      new URL('../../../docs/grafana/sluice-dashboard.json', import.meta.url),
      'utf8',
    )
    const charted = new Set(dashboard.match(/fluss_tiering_\w+/g) ?? [])
    expect(charted.size).toBeGreaterThan(0)
    new TieringMetrics(registry, () => 0).observeTable(info, { lastRoundEndMs: 0 } as LakeItem)
    const text = await registry.metrics()
    const missing = [...charted].filter(name => !text.includes(`# TYPE ${name.replace(/_bucket$/, '')} `))
    expect(missing).toEqual([])
  })
})
