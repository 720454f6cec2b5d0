/**
 * A leader's view of its ISR (Fluss's `IsrState`): committed, or with one change written to the
 * metadata store and not yet confirmed. While a change is pending no other is proposed.
 *
 * `isr` is what acks=all and the minimum-ISR check use; `maximalIsr` is what the high watermark
 * waits for: during an expansion the new member already counts (the stricter choice if the write
 * fails), during a shrink the removed members still count (the write may fail, and a high
 * watermark that advanced without them could not be taken back).
 */
export type IsrState =
  | { readonly kind: 'committed'; readonly isr: readonly number[] }
  | {
      readonly kind: 'pendingExpand'
      readonly isr: readonly number[]
      readonly newMember: number
      readonly proposedIsr: readonly number[]
      readonly lastCommitted: readonly number[]
    }
  | {
      readonly kind: 'pendingShrink'
      readonly isr: readonly number[]
      readonly removed: readonly number[]
      readonly proposedIsr: readonly number[]
      readonly lastCommitted: readonly number[]
    }

export type PendingIsrState = Exclude<IsrState, { kind: 'committed' }>

export function committedIsr(isr: readonly number[]): IsrState {
  return { kind: 'committed', isr: [...isr] }
}

export function pendingExpand(current: readonly number[], newMember: number): PendingIsrState {
  return {
    kind: 'pendingExpand',
    isr: [...current],
    newMember,
    proposedIsr: [...current, newMember],
    lastCommitted: [...current],
  }
}

export function pendingShrink(current: readonly number[], removed: readonly number[]): PendingIsrState {
  return {
    kind: 'pendingShrink',
    isr: [...current],
    removed: [...removed],
    proposedIsr: current.filter(id => !removed.includes(id)),
    lastCommitted: [...current],
  }
}

export function maximalIsr(state: IsrState): readonly number[] {
  return state.kind === 'pendingExpand' ? state.proposedIsr : state.isr
}

export function isInflight(state: IsrState): state is PendingIsrState {
  return state.kind !== 'committed'
}
