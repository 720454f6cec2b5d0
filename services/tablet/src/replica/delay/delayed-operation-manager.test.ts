import { describe, expect, it } from 'vitest'
import { DelayedOperation } from './delayed-operation.js'
import { DelayedOperationManager } from './delayed-operation-manager.js'

class Waiter extends DelayedOperation {
  ready = false
  outcome: 'met' | 'expired' | undefined
  #expired = false

  tryComplete(): boolean {
    return this.ready ? this.forceComplete() : false
  }
  protected override onExpiration(): void {
    this.#expired = true
  }
  protected onComplete(): void {
    this.outcome = this.#expired ? 'expired' : 'met'
  }
}

describe('DelayedOperationManager', () => {
  it('completes at once when the condition already holds, without watching', () => {
    const manager = new DelayedOperationManager<Waiter>('test', 2)
    const op = new Waiter(10_000)
    op.ready = true
    manager.tryCompleteElseWatch(op, ['a'])
    expect(op.outcome).toBe('met')
    expect(manager.watched).toBe(0)
  })

  it('completes a watched operation when a watched key is checked and its condition holds', () => {
    const manager = new DelayedOperationManager<Waiter>('test', 2)
    const op = new Waiter(10_000)
    manager.tryCompleteElseWatch(op, ['a', 'b'])
    expect(manager.watched).toBe(1)
    expect(manager.checkAndComplete('b')).toBe(0)
    op.ready = true
    expect(manager.checkAndComplete('c')).toBe(0)
    expect(manager.checkAndComplete('b')).toBe(1)
    expect(op.outcome).toBe('met')
    expect(manager.watched).toBe(0)
    expect(manager.checkAndComplete('a')).toBe(0)
  })

  it('expires an operation after its delay and bounds how many are watched', async () => {
    const manager = new DelayedOperationManager<Waiter>('test', 1)
    const op = new Waiter(20)
    manager.tryCompleteElseWatch(op, ['a'])
    expect(manager.hasRoom).toBe(false)
    await new Promise(resolve => setTimeout(resolve, 60))
    expect(op.outcome).toBe('expired')
    expect(manager.hasRoom).toBe(true)
  })

  it('completes everything on completeAll, once each', () => {
    const manager = new DelayedOperationManager<Waiter>('test', 3)
    const ops = [new Waiter(10_000), new Waiter(10_000)]
    for (const op of ops) manager.tryCompleteElseWatch(op, ['k'])
    manager.completeAll()
    expect(ops.map(o => o.outcome)).toEqual(['met', 'met'])
    expect(ops[0].forceComplete()).toBe(false)
    expect(manager.watched).toBe(0)
  })
})
