import type { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { PeriodicTask } from './periodic-task.js'
import { SerialExecutor } from './serial-executor.js'
import { TestingTime } from './testing.js'

describe('SerialExecutor', () => {
  it('runs tasks one at a time in order and refuses more than maxQueued', async () => {
    const executor = new SerialExecutor(2)
    const order: string[] = []
    let release!: () => void
    const first = executor.run(async () => {
      order.push('first starts')
      await new Promise<void>(r => {
        release = r
      })
      order.push('first ends')
    })
    const second = executor.run(async () => {
      order.push('second')
      return 2
    })
    const refused = await executor.run(async () => 3).catch(e => e as FlussError)
    expect((refused as FlussError).errorName).toBe('RESOURCE_EXHAUSTED')
    await Promise.resolve()
    release()
    await first
    expect(await second).toBe(2)
    expect(order).toEqual(['first starts', 'first ends', 'second'])
    await executor.close()
    expect(((await executor.run(async () => 1).catch(e => e)) as FlussError).errorName).toBe('SHUTTING_DOWN')
  })

  it('keeps going after a failed task', async () => {
    const executor = new SerialExecutor(10)
    await expect(executor.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await executor.run(async () => 'ok')).toBe('ok')
  })
})

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
