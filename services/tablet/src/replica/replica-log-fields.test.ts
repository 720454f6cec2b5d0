import { createLogger } from '@sluice/core/log'
import { afterEach, describe, expect, it } from 'vitest'
import {
  appendBatches,
  createTestReplica,
  followerFetch,
  leaderAndIsr,
  settle,
  type TestReplica,
} from '../testing/replica.js'

describe('replica log lines', () => {
  let t: TestReplica | undefined
  afterEach(async () => {
    await t?.close()
  })

  it('carry table, bucket and leader epoch as fields, which a JSON logger writes as fields', async () => {
    const warned: { message: string; fields?: Readonly<Record<string, unknown>> }[] = []
    t = await createTestReplica({
      maxLagMs: 1000,
      warn: (message, _error, fields) => warned.push({ message, ...(fields ? { fields } : {}) }),
    })
    t.replica.makeLeader(leaderAndIsr(1, 4, [1, 2]))
    await t.replica.whenLeaderReady()
    await appendBatches(t.replica, 2)
    await followerFetch(t.replica, 2, 0)
    t.clock.advance(2000)
    t.replica.maybeShrinkIsr()
    await settle()
    const shrink = warned.find(w => w.message.startsWith('shrinking the ISR'))
    expect(shrink?.fields).toEqual({ table: 'db.events', tableId: 7, bucket: 0, leaderEpoch: 4 })

    // As the tablet server writes it: the replica component, the fields beside the message.
    const lines: string[] = []
    const logger = createLogger({ component: 'tablet', write: line => lines.push(line) }).child({
      component: 'replica',
    })
    logger.warn(shrink?.message ?? '', { ...shrink?.fields, error: 'x' })
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 'warn',
      component: 'replica',
      table: 'db.events',
      bucket: 0,
      leaderEpoch: 4,
      error: 'x',
    })
  })
})
