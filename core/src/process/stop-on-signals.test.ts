import { afterEach, describe, expect, it } from 'vitest'
import { stopOnSignalsOrParentExit } from './stop-on-signals.js'

const SIGNALS = ['SIGTERM', 'SIGINT'] as const
type Listener = (...args: unknown[]) => void
const added = new Map<string, Listener[]>()

afterEach(() => {
  for (const [signal, listeners] of added) for (const listener of listeners) process.off(signal, listener)
  added.clear()
})

/** Registers through `stopOnSignalsOrParentExit` and returns the listeners it added, per signal. */
function register(stop: (cause: string) => unknown): Map<string, Listener[]> {
  const before = new Map(SIGNALS.map(s => [s, process.listeners(s)]))
  stopOnSignalsOrParentExit(stop)
  for (const signal of SIGNALS) {
    const existing = before.get(signal) ?? []
    added.set(signal, process.listeners(signal).filter(l => !existing.includes(l)) as Listener[])
  }
  return added
}

describe('stopOnSignalsOrParentExit', () => {
  it('calls stop with the signal that arrived', () => {
    const causes: string[] = []
    const listeners = register(cause => causes.push(cause))
    for (const listener of listeners.get('SIGTERM') ?? []) listener('SIGTERM')
    for (const listener of listeners.get('SIGINT') ?? []) listener('SIGINT')
    expect(causes).toEqual(['SIGTERM', 'SIGINT'])
  })
})
