import { ANONYMOUS, type FlussPrincipal } from './principal.js'
import type { SaslServer } from './sasl.js'

/**
 * The security state of one server connection (Fluss's Session plus the connection state machine):
 * a connection on a SASL listener starts `authenticating` and only becomes `ready` after a
 * successful AUTHENTICATE; other listeners start `ready`. Sessions on the internal listener are
 * trusted by the authorizer (servers talking to each other).
 */
export class Session {
  state: 'authenticating' | 'ready'
  principal: FlussPrincipal
  /** The exchange in progress (multi-round mechanisms such as SCRAM). */
  sasl: SaslServer | undefined
  /** How the principal was established: 'none', 'sasl:<mechanism>' or 'tls'. */
  via: string

  constructor(
    readonly clientAddress: string,
    readonly listenerName: string,
    readonly internal: boolean,
    needsAuthentication: boolean,
    principal: FlussPrincipal = ANONYMOUS,
    via = 'none',
  ) {
    this.state = needsAuthentication ? 'authenticating' : 'ready'
    this.principal = principal
    this.via = via
  }

  get authenticated(): boolean {
    return this.state === 'ready'
  }
}
