import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { ReadWriteLock } from './read-write-lock.js'

const tick = () => new Promise(resolve => setImmediate(resolve))

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
