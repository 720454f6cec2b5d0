import { describe, expect, it } from 'vitest'
import { TestingTime } from '../testing/coordinator-fixtures.js'
import { PeriodicTask } from './periodic-task.js'

describe('PeriodicTask', () => {
  it('runs every interval after the previous run, survives failures and stops', async () => {
    const time = new TestingTime(0)
    const runs: number[] = []
    const warnings: string[] = []
    const task = new PeriodicTask(
      'test',
      100,
      async () => {
        runs.push(time.nowMs())
        if (runs.length === 2) throw new Error('second run fails')
      },
      time,
      { info() {}, warn: m => warnings.push(m) },
    )
    task.start()
    await time.advance(250)
    expect(runs).toEqual([0, 100, 200])
    expect(warnings).toEqual(['test failed'])
    await task.stop()
    await time.advance(1000)
    expect(runs).toHaveLength(3)
  })
})
