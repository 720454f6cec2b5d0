import { type ErrorName, FlussError } from '../errors/index.js'

/**
 * Test helper: runs `fn` and checks it throws a FlussError with `code` whose message contains
 * `text` (or matches it, for a RegExp).
 */
export function expectFlussError(fn: () => unknown, code: ErrorName, text?: string | RegExp): FlussError {
  let thrown: unknown
  try {
    fn()
  } catch (e) {
    thrown = e
  }
  if (!(thrown instanceof FlussError)) {
    throw new Error(
      `expected a FlussError(${code}), got ${thrown === undefined ? 'no error' : String(thrown)}`,
    )
  }
  if (thrown.errorName !== code)
    throw new Error(`expected ${code}, got ${thrown.errorName}: ${thrown.message}`)
  const matches =
    typeof text === 'string' ? thrown.message.includes(text) : (text?.test(thrown.message) ?? true)
  if (!matches) {
    throw new Error(`expected the message to contain\n  ${text}\nbut it is\n  ${thrown.message}`)
  }
  return thrown
}
