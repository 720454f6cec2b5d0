import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { ReadWriteLock } from './read-write-lock.js'
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

  it('refuses tasks beyond its bound with RESOURCE_EXHAUSTED', async () => {
    const executor = new SerialExecutor(2)
    let release = () => {}
    const blocker = new Promise<void>(resolve => {
      release = resolve
    })
    const first = executor.run(() => blocker)
    const second = executor.run(() => 2)
    const third = executor.run(() => 3)
    await expect(third).rejects.toSatisfy(
      (e: unknown) => e instanceof FlussError && e.is('RESOURCE_EXHAUSTED'),
    )
    release()
    await first
    await expect(second).resolves.toBe(2)
  })
})

describe('ReadWriteLock', () => {
  it('lets readers share and makes a writer wait for them, then blocks new readers behind it', async () => {
    const lock = new ReadWriteLock(10)
    const events: string[] = []
    let releaseReader = () => {}
    const reader = lock.shared(
      () =>
        new Promise<void>(resolve => {
          events.push('reader 1 in')
          releaseReader = resolve
        }),
    )
    await tick()
    const writer = lock.exclusive(async () => {
      events.push('writer in')
    })
    const lateReader = lock.shared(async () => {
      events.push('reader 2 in')
    })
    await tick()
    expect(events).toEqual(['reader 1 in'])
    releaseReader()
    await Promise.all([reader, writer, lateReader])
    expect(events).toEqual(['reader 1 in', 'writer in', 'reader 2 in'])
  })

  it('bounds the number of waiters', async () => {
    const lock = new ReadWriteLock(1)
    let release = () => {}
    const holder = lock.exclusive(() => new Promise<void>(resolve => (release = resolve)))
    const waiting = lock.shared(async () => 1)
    await expect(lock.shared(async () => 2)).rejects.toThrow(FlussError)
    release()
    await holder
    await expect(waiting).resolves.toBe(1)
  })
})
