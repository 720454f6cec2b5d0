import { tablePath } from '@sluice/core/metadata'
import { describe, expect, it } from 'vitest'
import { logTabletDir } from './replica-paths.js'

describe('logTabletDir', () => {
  const path = tablePath('db', 'orders')

  it('lays buckets out under <db>/<table>-<id>[/<partition>-<id>]/log-<bucket>', () => {
    expect(logTabletDir('/data', { tablePath: path }, { tableId: 12, bucket: 3 })).toBe(
      '/data/db/orders-12/log-3',
    )
    expect(
      logTabletDir(
        '/data',
        { tablePath: path, partitionName: '2024' },
        { tableId: 12, partitionId: 5, bucket: 0 },
      ),
    ).toBe('/data/db/orders-12/2024-5/log-0')
  })

  it('refuses names that would leave the data directory and partitions without a name', () => {
    expect(() =>
      logTabletDir('/data', { tablePath: tablePath('..', 'x') }, { tableId: 1, bucket: 0 }),
    ).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }))
    expect(() =>
      logTabletDir('/data', { tablePath: tablePath('db', 'a/b') }, { tableId: 1, bucket: 0 }),
    ).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }))
    expect(() =>
      logTabletDir('/data', { tablePath: path }, { tableId: 1, partitionId: 2, bucket: 0 }),
    ).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }))
  })
})
