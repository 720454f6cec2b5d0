import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { SerialExecutor } from './serial-executor.js'

const tick = () => new Promise(resolve => setImmediate(resolve))

describe('SerialExecutor', () => {
  it('runs tasks one at a time in submission order', async () => {
    const executor = new SerialExecutor(10)
    const events: string[] = []
    const task = (name: string) => async () => {
      events.push(`${name} start`)
      await tick()
      events.push(`${name} end`)
      return name
    }
    const results = await Promise.all([
      executor.run(task('a')),
      executor.run(task('b')),
      executor.run(task('c')),
    ])
    expect(results).toEqual(['a', 'b', 'c'])
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end'])
  })

  it('keeps going after a failed task', async () => {
    const executor = new SerialExecutor(10)
    await expect(executor.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    await expect(executor.run(() => 7)).resolves.toBe(7)
    expect(executor.queued).toBe(0)
  })

  it('refuses tasks beyond its bound with RESOURCE_EXHAUSTED, except unbounded ones', async () => {
    const executor = new SerialExecutor(2)
    let release = () => {}
    const blocker = new Promise<void>(resolve => {
      release = resolve
    })
    const first = executor.run(() => blocker)
    const second = executor.run(() => 2)
    const third = executor.run(() => 3)
    const closing = executor.run(() => 4, true)
    await expect(third).rejects.toSatisfy(
      (e: unknown) => e instanceof FlussError && e.is('RESOURCE_EXHAUSTED'),
    )
    release()
    await first
    await expect(second).resolves.toBe(2)
    await expect(closing).resolves.toBe(4)
  })

  it('waits for the queued tasks on close and refuses new ones with SHUTTING_DOWN', async () => {
    const executor = new SerialExecutor(10, 'the coordinator')
    const order: string[] = []
    const queued = executor.run(async () => {
      await tick()
      order.push('queued task')
    })
    await executor.close()
    order.push('closed')
    await queued
    expect(order).toEqual(['queued task', 'closed'])
    const refused = await executor.run(async () => 1).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(FlussError)
    expect((refused as FlussError).errorName).toBe('SHUTTING_DOWN')
    expect((refused as FlussError).message).toContain('the coordinator is shutting down')
  })

  it('requires a positive bound', () => {
    expect(() => new SerialExecutor(0)).toThrow('maxQueued must be a positive integer')
  })
})
