import { describe, expect, it } from 'vitest'
import { KvPreWriteBuffer, keyIdOf } from './kv-pre-write-buffer.js'
import type { KvValue } from './kv-schemas.js'

const value = (text: string): KvValue => ({ schemaId: 1, row: [text], bytes: Buffer.from(text) })
const key = (text: string) => Buffer.from(text)

function put(buffer: KvPreWriteBuffer, k: string, v: string | null, offset: number, delta = 0): void {
  buffer.put(key(k), keyIdOf(key(k)), v === null ? null : value(v), offset, delta)
}

const pendingValue = (buffer: KvPreWriteBuffer, k: string) => {
  const entry = buffer.get(keyIdOf(key(k)))
  return entry === undefined ? undefined : (entry.value?.row[0] ?? null)
}

describe('KvPreWriteBuffer', () => {
  it('returns the newest pending value, tombstones as null', () => {
    const buffer = new KvPreWriteBuffer()
    put(buffer, 'k1', 'a', 0)
    put(buffer, 'k1', 'b', 2)
    put(buffer, 'k2', null, 3)
    expect([pendingValue(buffer, 'k1'), pendingValue(buffer, 'k2'), pendingValue(buffer, 'k3')]).toEqual([
      'b',
      null,
      undefined,
    ])
    expect(buffer.size).toBe(3)
  })

  it('truncates to an offset, restoring the values the dropped entries replaced', () => {
    const buffer = new KvPreWriteBuffer()
    put(buffer, 'k1', 'a', 0)
    put(buffer, 'k1', 'b', 2)
    put(buffer, 'k2', 'c', 3)
    expect(buffer.truncateTo(2)).toBe(2)
    expect([pendingValue(buffer, 'k1'), pendingValue(buffer, 'k2')]).toEqual(['a', undefined])
    put(buffer, 'k1', 'z', 2)
    expect(pendingValue(buffer, 'k1')).toBe('z')
  })

  it('flushes the prefix below an offset in order and forgets it', () => {
    const buffer = new KvPreWriteBuffer()
    put(buffer, 'k1', 'a', 0, 1)
    put(buffer, 'k2', 'b', 1, 1)
    put(buffer, 'k1', 'c', 3, 0)
    put(buffer, 'k2', null, 4, -1)
    expect(buffer.entriesBelow(4).map(e => e.logOffset)).toEqual([0, 1, 3])
    expect(buffer.markFlushedBelow(2)).toBe(2)
    expect([pendingValue(buffer, 'k1'), pendingValue(buffer, 'k2'), buffer.size]).toEqual(['c', null, 2])
    // Truncating above the flushed prefix never resurrects a flushed value (RocksDB has it).
    buffer.truncateTo(3)
    expect([pendingValue(buffer, 'k1'), pendingValue(buffer, 'k2'), buffer.size]).toEqual([
      undefined,
      undefined,
      0,
    ])
    expect(buffer.pendingBytes).toBe(0)
  })

  it('refuses offsets that do not increase', () => {
    const buffer = new KvPreWriteBuffer()
    put(buffer, 'k1', 'a', 5)
    expect(() => put(buffer, 'k2', 'b', 5)).toThrow(/must increase/)
  })
})
