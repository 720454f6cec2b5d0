import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { MemoryMetaStore } from '../metastore/index.js'
import { CachedMetaStore } from './cached-metastore.js'
import { listenersToString, parseListeners } from './endpoints.js'

function setup(maxEntries = 10) {
  const inner = new MemoryMetaStore()
  let now = 0
  const cached = new CachedMetaStore(inner, { ttlMs: 100, maxEntries, nowMs: () => now })
  return { inner, cached, advance: (ms: number) => (now += ms) }
}

describe('CachedMetaStore', () => {
  it('reuses reads within the TTL and reads through after it', async () => {
    const { inner, cached, advance } = setup()
    await inner.put('p', 'a', { v: 1 }, { version: 'absent' })
    expect((await cached.get('p', 'a'))?.value).toEqual({ v: 1 })
    await inner.put('p', 'a', { v: 2 }, { version: 1 })
    expect((await cached.get('p', 'a'))?.value).toEqual({ v: 1 })
    expect((await cached.query('p')).items.map(i => i.value)).toEqual([{ v: 2 }])
    advance(100)
    expect((await cached.get('p', 'a'))?.value).toEqual({ v: 2 })
  })

  it('forgets reads of a partition key written through it', async () => {
    const { cached } = setup()
    expect(await cached.get('p', 'a')).toBeUndefined()
    await cached.put('p', 'a', { v: 1 }, { version: 'absent' })
    expect((await cached.get('p', 'a'))?.version).toBe(1)
    await cached.delete('p', 'a', { version: 1 })
    expect(await cached.get('p', 'a')).toBeUndefined()
  })

  it('holds at most maxEntries results', async () => {
    const { inner, cached } = setup(2)
    for (const sk of ['a', 'b', 'c']) await inner.put('p', sk, { v: sk }, { version: 'absent' })
    for (const sk of ['a', 'b', 'c']) await cached.get('p', sk)
    expect(cached.size).toBe(2)
  })

  it('never keeps "not found": an item created by another writer is seen at once', async () => {
    const { inner, cached } = setup()
    expect(await cached.get('p', 'new')).toBeUndefined()
    await inner.put('p', 'new', { v: 1 }, { version: 'absent' })
    expect((await cached.get('p', 'new'))?.value).toEqual({ v: 1 })
    expect(cached.size).toBe(1)
  })
})

describe('listeners', () => {
  it('parses and prints NAME://host:port lists, IPv6 included', () => {
    const endpoints = parseListeners('FLUSS://10.0.0.1:9123, CLIENT://[::1]:9124')
    expect(endpoints).toEqual([
      { listenerName: 'FLUSS', host: '10.0.0.1', port: 9123 },
      { listenerName: 'CLIENT', host: '::1', port: 9124 },
    ])
    expect(listenersToString(endpoints)).toBe('FLUSS://10.0.0.1:9123,CLIENT://[::1]:9124')
  })

  it.each(['', 'host:9123', 'A://h:99999', 'A://h:1,A://h:2'])('refuses %j', text => {
    expect(() => parseListeners(text)).toThrow(FlussError)
  })
})
