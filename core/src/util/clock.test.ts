import { describe, expect, it } from 'vitest'
import { SYSTEM_CLOCK, systemTimer } from './clock.js'

describe('system clock and timer', () => {
  it('reads the wall clock', () => {
    const before = Date.now()
    const now = SYSTEM_CLOCK.nowMs()
    expect(now).toBeGreaterThanOrEqual(before)
    expect(now).toBeLessThanOrEqual(Date.now())
  })

  it('runs a scheduled callback once and not after cancel', async () => {
    for (const timer of [systemTimer(), systemTimer({ unref: true })]) {
      const runs: string[] = []
      timer.schedule(5, () => void runs.push('kept'))
      timer.schedule(5, () => void runs.push('cancelled')).cancel()
      await new Promise(resolve => setTimeout(resolve, 30))
      expect(runs).toEqual(['kept'])
    }
  })
})
