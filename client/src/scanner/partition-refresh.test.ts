import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import type { MetadataQuery, MetadataUpdater } from '../metadata/metadata-updater.js'
import { refreshPartitions } from './partition-refresh.js'

const tablePath = { databaseName: 'fluss', tableName: 't' }

/** A metadata updater answering like a server where `dropped` partitions no longer exist. */
function updaterWithout(dropped: readonly number[], failWith?: FlussError) {
  const queries: MetadataQuery[] = []
  const updater = {
    update: async (query: MetadataQuery) => {
      queries.push(query)
      if (failWith !== undefined) throw failWith
      const missing = (query.partitionIds ?? []).find(id => dropped.includes(id))
      if (missing !== undefined)
        throw new FlussError('PARTITION_NOT_EXISTS', `The partition id '${missing}' does not exist.`)
    },
  }
  return { updater: updater as unknown as MetadataUpdater, queries }
}

describe('refreshPartitions', () => {
  it('refreshes all partitions in one request when none was dropped', async () => {
    const { updater, queries } = updaterWithout([])
    expect(await refreshPartitions(updater, tablePath, [1, 2, 3])).toEqual([])
    expect(queries).toEqual([{ tables: [tablePath], partitionIds: [1, 2, 3] }])
  })

  it('asks for the table alone when no partition is named', async () => {
    const { updater, queries } = updaterWithout([7])
    expect(await refreshPartitions(updater, tablePath, [])).toEqual([])
    expect(queries).toEqual([{ tables: [tablePath] }])
  })

  it('isolates the dropped partitions by halving, and refreshes the live ones on the way', async () => {
    const ids = Array.from({ length: 16 }, (_, i) => i + 1)
    const { updater, queries } = updaterWithout([3, 12])
    expect((await refreshPartitions(updater, tablePath, ids)).sort((a, b) => a - b)).toEqual([3, 12])
    const refreshed = new Set(
      queries
        .filter(q => !(q.partitionIds ?? []).some(id => id === 3 || id === 12))
        .flatMap(q => q.partitionIds),
    )
    expect(refreshed).toEqual(new Set(ids.filter(id => id !== 3 && id !== 12)))
    // 1 + two halvings of depth log2(16) = 4 per dropped id, at most
    expect(queries.length).toBeLessThanOrEqual(1 + 2 * 2 * 4)
  })

  it('throws any other failure', async () => {
    const { updater } = updaterWithout([], new FlussError('TABLE_NOT_EXIST', 'gone'))
    await expect(refreshPartitions(updater, tablePath, [1, 2])).rejects.toMatchObject({
      errorName: 'TABLE_NOT_EXIST',
    })
  })
})
