import { describe, expect, it } from 'vitest'
import { FailureLimiter } from './failure-limiter.js'
import { jaasOption, jaasUsers, PLAIN_LOGIN_MODULE, parseJaasConfig, plainClientJaas } from './jaas.js'
import { PlainSaslClient, PlainSaslServer, secretsEqual } from './sasl.js'
import { parseScramCredential, ScramSaslClient, ScramSaslServer, scramCredential } from './scram.js'

const plain = (s: string) => Buffer.from(s, 'utf8')

describe('JAAS config', () => {
  it("reads Fluss's server syntax: module, flag, quoted and bare values, comments", () => {
    const entries = parseJaasConfig(`
      // users of the CLIENT listener
      ${PLAIN_LOGIN_MODULE} required
        username="admin" password='admin-secret' /* the server's own */
        user_admin="admin-secret" user_alice="al\\"ice" user_bob=bob-secret;`)
    expect(entries).toHaveLength(1)
    expect(entries[0].controlFlag).toBe('required')
    expect(jaasOption(entries, PLAIN_LOGIN_MODULE, 'password')).toBe('admin-secret')
    expect([...jaasUsers(entries, PLAIN_LOGIN_MODULE)]).toEqual([
      ['admin', 'admin-secret'],
      ['alice', 'al"ice'],
      ['bob', 'bob-secret'],
    ])
    expect(jaasUsers(entries, 'other.Module').size).toBe(0)
  })

  it('round-trips the client line for any password', () => {
    const line = plainClientJaas('a"b', 'p\\w"d')
    const e = parseJaasConfig(line)[0]
    expect([e.options.get('username'), e.options.get('password')]).toEqual(['a"b', 'p\\w"d'])
  })

  it('refuses malformed text with a message that does not repeat values', () => {
    for (const [text, message] of [
      ['', /login module not specified/],
      ['m required user_a="x"', /not terminated by a semicolon/],
      ['m sometimes;', /invalid login module control flag/],
      ['m required user_a=;', /value not specified for key 'user_a'/],
      ['m required user_a="secret-value', /unterminated quoted value/],
      ['m required user_a="x" %;', /unexpected character/],
    ] as const) {
      const error = (() => {
        try {
          parseJaasConfig(text)
        } catch (e) {
          return e as Error
        }
        throw new Error(`accepted ${text}`)
      })()
      expect(error.message).toMatch(message)
      expect(error.message).not.toContain('secret-value')
    }
  })
})

describe('SASL/PLAIN', () => {
  const users = new Map([['alice', 'alice-secret']])

  it('accepts the token the Java and Python clients send and names the user', () => {
    const server = new PlainSaslServer(users)
    const token = new PlainSaslClient('alice', 'alice-secret').initialToken()
    expect(token).toEqual(plain('\u0000alice\u0000alice-secret'))
    expect(server.evaluate(token)).toEqual(Buffer.alloc(0))
    expect(server.complete).toBe(true)
    expect(server.authorizationId).toBe('alice')
    expect(new PlainSaslServer(users).evaluate(plain('alice\u0000alice\u0000alice-secret'))).toHaveLength(0)
  })

  it("refuses with Fluss's messages, the same for a wrong password and an unknown user", () => {
    const cases: [string, RegExp][] = [
      ['\u0000alice\u0000wrong', /Invalid username or password/],
      ['\u0000mallory\u0000alice-secret', /Invalid username or password/],
      ['\u0000\u0000x', /username not specified/],
      ['\u0000alice\u0000', /password not specified/],
      ['alice-secret', /expected 3 tokens, got 1/],
      ['a\u0000b\u0000c\u0000d\u0000e', /expected 3 tokens, got 4/],
      ['bob\u0000alice\u0000alice-secret', /authorization id that is different/],
      ['x'.repeat(5000), /longer than 4096 bytes/],
    ]
    for (const [token, message] of cases) {
      const server = new PlainSaslServer(users)
      expect(() => server.evaluate(plain(token))).toThrow(message)
      expect(server.complete).toBe(false)
      try {
        server.evaluate(plain(token))
      } catch (e) {
        expect((e as { errorName: string }).errorName).toBe('AUTHENTICATE_EXCEPTION')
        expect((e as Error).message).not.toContain('alice-secret')
      }
    }
  })

  it('compares secrets of any lengths', () => {
    expect(secretsEqual('a', 'a')).toBe(true)
    expect(secretsEqual('a', 'ab')).toBe(false)
  })
})

describe('SCRAM-SHA-256', () => {
  const stored = scramCredential('pencil')
  const credentials = new Map([['user', parseScramCredential(stored, 'user')]])

  function exchange(password: string, name = 'user') {
    const server = new ScramSaslServer(credentials)
    const client = new ScramSaslClient(name, password)
    const serverFirst = server.evaluate(client.initialToken())
    const clientFinal = client.evaluateChallenge(serverFirst) as Buffer
    const serverFinal = server.evaluate(clientFinal)
    expect(client.evaluateChallenge(serverFinal)).toBeNull()
    return { server, client }
  }

  it('authenticates without the server holding the password, and the client checks the server', () => {
    expect(stored).not.toContain('pencil')
    const { server, client } = exchange('pencil')
    expect(server.complete && client.complete).toBe(true)
    expect(server.authorizationId).toBe('user')
  })

  it('refuses a wrong password and an unknown user at the same step with the same message', () => {
    expect(() => exchange('wrong')).toThrow(/Invalid username or password/)
    expect(() => exchange('pencil', 'nobody')).toThrow(/Invalid username or password/)
  })

  it('rejects a forged server signature and malformed messages', () => {
    const server = new ScramSaslServer(credentials)
    const client = new ScramSaslClient('user', 'pencil')
    client.evaluateChallenge(server.evaluate(client.initialToken()))
    expect(() => client.evaluateChallenge(plain(`v=${Buffer.alloc(32).toString('base64')}`))).toThrow(
      /wrong server signature/,
    )
    expect(() => new ScramSaslServer(credentials).evaluate(plain('p=tls-unique,,n=user,r=x'))).toThrow(
      /channel binding/,
    )
    const s = new ScramSaslServer(credentials)
    s.evaluate(plain('n,,n=user,r=abc'))
    expect(() => s.evaluate(plain('c=biws,r=not-the-nonce,p=AAAA'))).toThrow(/nonce/)
    expect(() => s.evaluate(plain('anything'))).toThrow(/over/)
    expect(() => parseScramCredential('12:abc', 'u')).toThrow(/SCRAM-SHA-256 credential of user 'u'/)
  })
})

describe('FailureLimiter', () => {
  it('blocks an address after maxFailures in the window, then lets it try again', () => {
    let now = 1_000
    const limiter = new FailureLimiter({ maxFailures: 3, windowMs: 100, nowMs: () => now })
    for (let i = 0; i < 3; i++) {
      expect(limiter.blockedForMs('1.2.3.4')).toBe(0)
      limiter.recordFailure('1.2.3.4')
      now += 10
    }
    expect(limiter.blockedForMs('1.2.3.4')).toBe(70)
    expect(limiter.blockedForMs('5.6.7.8')).toBe(0)
    now += 70
    expect(limiter.blockedForMs('1.2.3.4')).toBe(0)
  })

  it('tracks a bounded number of addresses', () => {
    const limiter = new FailureLimiter({ maxFailures: 1, windowMs: 1000, maxAddresses: 2 })
    for (const a of ['a', 'b', 'c']) limiter.recordFailure(a)
    expect(limiter.size).toBe(2)
    expect(limiter.blockedForMs('a')).toBe(0)
    expect(limiter.blockedForMs('c')).toBeGreaterThan(0)
  })
})
