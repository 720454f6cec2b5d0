import { describe, expect, it } from 'vitest'
import { setupManager as setup } from '../testing/auto-partition.js'
import { FLUSS_SCENARIOS } from '../testing/auto-partition-scenarios.js'
import { autoPartitionedTable, localInstant } from '../testing/auto-partition-tables.js'

const sorted = (xs: readonly string[]) => [...xs].sort()

describe.each(['UTC', 'Asia/Shanghai', 'America/New_York'])('AutoPartitionManager in %s', zone => {
  it.each(FLUSS_SCENARIOS)(
    '$unit (multi-key: $multiKey) creates and drops exactly the expected partitions',
    async s => {
      const { clock, ops, manager } = setup(localInstant(zone, s.start))
      const table = autoPartitionedTable({ tableId: 1, unit: s.unit, zone, multiKey: s.multiKey })
      ops.addTable(table)
      await manager.checkTable(table)
      expect(ops.names(1)).toEqual(sorted(s.expected))

      const partitions = ops.partitions.get(1) ?? new Set<string>()
      for (const name of s.manualCreated) partitions.add(name)
      for (const name of s.manualDropped) partitions.delete(name)

      clock.setMs(localInstant(zone, s.at1))
      await manager.checkNow()
      expect(ops.names(1)).toEqual(sorted(s.expected1))

      clock.setMs(localInstant(zone, s.at2))
      await manager.checkNow()
      expect(ops.names(1)).toEqual(sorted(s.expected2))

      const again = await manager.checkNow()
      expect(again).toEqual([{ tableId: 1, tablePath: 'db.t1', dropped: [], created: [], failures: [] }])
      expect(ops.names(1)).toEqual(sorted(s.expected2))
    },
  )
})
