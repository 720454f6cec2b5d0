import { TABLE_DATALAKE_FRESHNESS } from '@sluice/core/config'
import type { TableInfo } from '@sluice/core/metadata'
import { tablePathToString } from '@sluice/core/metadata'
import type { MeterFamily, MetricRegistry } from '@sluice/core/metrics'
import type { LakeItem } from './round/lake-item.js'
import type { RoundResult } from './round/round-result.js'

interface TableLag {
  readonly database: string
  readonly table: string
  readonly freshnessMs: number
  /** End of the last completed round (committed or idle); null before the first. */
  lastRoundEndMs: number | null
}

/**
 * Fluss's lake tiering metrics, reported by the process running the tiering passes
 * (`fluss_tiering_*`, labels `database`, `table`): `table_tierLag` (ms since the last completed
 * round), `table_freshness` (the table's `table.datalake.freshness`), their ratio
 * `table_tierLagOverFreshness` (above 1: the lake is staler than promised), and per round
 * `failuresTotal`, `recordCount`, `fileSize` (bytes read) and `tierDuration`.
 */
export class TieringMetrics {
  readonly #tables = new Map<number, TableLag>()
  readonly #rounds: MeterFamily
  readonly #failures: MeterFamily
  readonly #records: MeterFamily
  readonly #bytes: MeterFamily
  readonly #lastDuration = new Map<string, [Record<string, string>, number]>()

  constructor(
    registry: MetricRegistry,
    private readonly nowMs: () => number = Date.now,
  ) {
    const labels = ['database', 'table']
    this.#rounds = registry.meter('table_rounds', 'Tiering rounds run', labels)
    this.#failures = registry.meter('table_failures', 'Tiering rounds that failed', labels)
    this.#records = registry.meter('table_records', 'Records tiered into the lake', labels)
    this.#bytes = registry.meter('table_bytes', 'Log bytes read by tiering rounds', labels)
    const perTable = (value: (t: TableLag) => number) => () =>
      [...this.#tables.values()].map(t => [{ database: t.database, table: t.table }, value(t)] as const)
    registry.gauge(
      'table_tierLag',
      'Time since the last completed tiering round of the table (ms)',
      perTable(t => this.#lag(t)),
    )
    registry.gauge(
      'table_freshness',
      "The table's table.datalake.freshness (ms)",
      perTable(t => t.freshnessMs),
    )
    registry.gauge(
      'table_tierLagOverFreshness',
      'tierLag / freshness: above 1 the lake is staler than the table promises',
      perTable(t => this.#lag(t) / Math.max(1, t.freshnessMs)),
    )
    registry.gauge('table_tierDuration', 'Duration of the last tiering round of the table (ms)', () => [
      ...this.#lastDuration.values(),
    ])
  }

  /** A lake table seen by a pass (due or not), with its LAKE item. */
  observeTable(info: TableInfo, item: LakeItem): void {
    const known = this.#tables.get(info.tableId)
    const lastRoundEndMs = item.lastRoundEndMs
    this.#tables.set(info.tableId, {
      database: info.tablePath.databaseName,
      table: info.tablePath.tableName,
      freshnessMs: info.tableConfig.get(TABLE_DATALAKE_FRESHNESS),
      lastRoundEndMs: Math.max(lastRoundEndMs ?? 0, known?.lastRoundEndMs ?? 0) || null,
    })
  }

  /** A round finished. */
  round(result: RoundResult): void {
    const { databaseName, tableName } = result.tablePath
    this.#rounds.child(databaseName, tableName).count++
    if (result.status === 'failed') this.#failures.child(databaseName, tableName).count++
    this.#records.child(databaseName, tableName).count += result.records ?? 0
    this.#bytes.child(databaseName, tableName).count += result.bytes ?? 0
    if (result.durationMs !== undefined)
      this.#lastDuration.set(tablePathToString(result.tablePath), [
        { database: databaseName, table: tableName },
        result.durationMs,
      ])
    const t = this.#tables.get(result.tableId)
    if (t !== undefined && (result.status === 'committed' || result.status === 'idle'))
      t.lastRoundEndMs = this.nowMs()
  }

  #lag(t: TableLag): number {
    return t.lastRoundEndMs === null ? 0 : Math.max(0, this.nowMs() - t.lastRoundEndMs)
  }
}
