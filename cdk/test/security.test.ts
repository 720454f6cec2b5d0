import { Template } from 'aws-cdk-lib/assertions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { METADATA_ACCESS } from '../lib/metadata-access.js'
import { SluiceStage } from '../lib/sluice-stage.js'
import { STAGES } from '../lib/stages.js'
import { joinedText, REPO_ROOT, SYNTH_TIMEOUT_MS, testApp } from './synth.js'

type Statement = {
  Effect: string
  Action: string | string[]
  Resource: unknown
  Condition?: Record<string, Record<string, string[]>>
}

const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/abcd'
let dispose: () => void
let compute: Template
let plain: Template

beforeAll(() => {
  const test = testApp()
  dispose = test.dispose
  const secured = {
    ...STAGES.dev,
    stageId: 'SluiceTls',
    security: { bootstrapCertificateArn: CERTIFICATE, sasl: true },
  }
  compute = Template.fromStack(new SluiceStage(test.app, { config: secured, repoRoot: REPO_ROOT }).compute)
  plain = Template.fromStack(new SluiceStage(test.app, { config: STAGES.dev, repoRoot: REPO_ROOT }).compute)
}, SYNTH_TIMEOUT_MS)

afterAll(() => dispose())

function statementsOf(t: Template, rolePrefix: string): Statement[] {
  const roles = Object.keys(t.findResources('AWS::IAM::Role')).filter(id => id.startsWith(rolePrefix))
  expect(roles.length, rolePrefix).toBeGreaterThan(0)
  return Object.values(t.findResources('AWS::IAM::Policy'))
    .filter(p => p.Properties.Roles.some((r: { Ref: string }) => roles.includes(r.Ref)))
    .flatMap(p => p.Properties.PolicyDocument.Statement)
}

const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action])

/** Per DynamoDB item action: the leading-key patterns it is limited to (undefined = unlimited). */
function dynamoScopes(statements: Statement[]): Record<string, string[] | undefined> {
  const out: Record<string, string[] | undefined> = {}
  for (const s of statements) {
    for (const a of actions(s).filter(x => x.startsWith('dynamodb:'))) {
      const keys = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']
      out[a] = keys === undefined ? undefined : [...keys].sort()
    }
  }
  return out
}

describe('least privilege on the metadata table', () => {
  const cases = [
    [
      'coordinator',
      'FlussCoordinatorTaskTaskDefinitionTaskRole',
      ['ACL', 'CATALOG', 'CLUSTER', 'DB#*', 'TABLE#*'],
      ['ACL', 'CATALOG', 'CLUSTER', 'DB#*', 'TABLE#*'],
    ],
    [
      'tablet server',
      'FlussTabletServersServer0TaskTaskDefinitionTaskRole',
      ['ACL', 'CATALOG', 'CLUSTER', 'DB#*', 'TABLE#*'],
      ['CLUSTER', 'TABLE#*'],
    ],
    ['gateway', 'GatewayHandlerFunctionServiceRole', ['ACL', 'CATALOG', 'CLUSTER', 'DB#*', 'TABLE#*'], []],
    [
      'tiering',
      'TieringHandlerFunctionServiceRole',
      ['CATALOG', 'CLUSTER', 'DB#*', 'LAKE_CATALOG#*', 'TABLE#*'],
      ['LAKE_CATALOG#*', 'TABLE#*'],
    ],
  ] as const
  for (const [role, prefix, reads, writes] of cases) {
    it(`scopes the ${role} by leading keys: reads ${reads.join(' ')}, writes ${writes.join(' ') || 'nothing'}`, () => {
      const scopes = dynamoScopes(statementsOf(compute, prefix))
      for (const a of ['dynamodb:GetItem', 'dynamodb:Query']) expect(scopes[a], a).toEqual([...reads])
      for (const a of ['dynamodb:PutItem', 'dynamodb:DeleteItem'])
        expect(scopes[a], a).toEqual(writes.length === 0 ? undefined : [...writes])
      // No unconditioned item access, no scans.
      expect(Object.entries(scopes).filter(([, keys]) => keys === undefined)).toEqual([])
      expect(Object.keys(scopes).filter(a => /Scan|BatchWrite|\*/.test(a))).toEqual([])
    })
  }

  it('declares the same access table the roles got', () => {
    expect(METADATA_ACCESS.gateway.write).toEqual([])
    expect(METADATA_ACCESS.tabletServer.write).not.toContain('acls')
  })
})

describe('bootstrap load balancer', () => {
  it('adds a TLS 1.2+ listener with the ACM certificate when the stage names one', () => {
    compute.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 9443,
      Protocol: 'TLS',
      Certificates: [{ CertificateArn: CERTIFICATE }],
      SslPolicy: 'ELBSecurityPolicy-TLS13-1-2-2021-06',
    })
    const plainListeners = Object.values(plain.findResources('AWS::ElasticLoadBalancingV2::Listener'))
    expect(plainListeners.map(l => l.Properties.Protocol)).toEqual(['TCP'])
  })
})

describe('SASL stages', () => {
  it('open the INTERNAL listener port between servers only', () => {
    const rules = Object.values(compute.findResources('AWS::EC2::SecurityGroupIngress')).filter(
      r => r.Properties.FromPort === 9124,
    )
    expect(rules).toHaveLength(1)
    expect(rules[0].Properties.SourceSecurityGroupId).toBeDefined()
    expect(rules[0].Properties.CidrIp).toBeUndefined()
    expect(
      Object.values(plain.findResources('AWS::EC2::SecurityGroupIngress')).filter(
        r => r.Properties.FromPort === 9124,
      ),
    ).toEqual([])
  })
})

type Container = { Name: string; Secrets?: { Name: string; ValueFrom: unknown }[]; Environment?: unknown }

/** The server containers of every coordinator and tablet server task definition. */
function serverContainers(t: Template): Container[] {
  return Object.values(t.findResources('AWS::ECS::TaskDefinition'))
    .map(d => d.Properties.ContainerDefinitions.find((c: Container) => c.Name === 'server'))
    .filter((c): c is Container => c !== undefined)
}

/** Logical ids of the secrets whose id starts with `prefix`. */
function secretIds(t: Template, prefix: string): string[] {
  return Object.keys(t.findResources('AWS::SecretsManager::Secret')).filter(id => id.startsWith(prefix))
}

/** The gateway function's environment. */
function gatewayEnvironment(t: Template): Record<string, unknown> {
  const fns = Object.entries(t.findResources('AWS::Lambda::Function')).filter(([id]) =>
    id.startsWith('GatewayHandler'),
  )
  expect(fns).toHaveLength(1)
  return fns[0][1].Properties.Environment.Variables
}

/** Secret logical ids a role may read (GetSecretValue). */
function readableSecrets(t: Template, rolePrefix: string): string[] {
  return statementsOf(t, rolePrefix)
    .filter(s => actions(s).includes('secretsmanager:GetSecretValue'))
    .map(s => (s.Resource as { Ref: string }).Ref ?? JSON.stringify(s.Resource))
    .sort()
}

describe('server secrets', () => {
  it('inject SLUICE_SECRETS from Secrets Manager into every server container at task start', () => {
    const servers = serverContainers(plain)
    expect(servers.length).toBeGreaterThanOrEqual(4)
    for (const container of servers) {
      expect(container.Secrets?.map(s => s.Name)).toEqual(['SLUICE_SECRETS'])
      expect(JSON.stringify(container.Environment)).not.toContain('jaas')
    }
    // A PLAINTEXT stage has nothing to generate: the secret starts empty, for operators to fill.
    plain.resourceCountIs('AWS::SecretsManager::Secret', 1)
    plain.hasResourceProperties('AWS::SecretsManager::Secret', { SecretString: '{}' })
    expect(gatewayEnvironment(plain).SLUICE_SECRET_ARNS).toBeUndefined()
  })

  it('SASL stages generate the internal, admin and gateway credentials, so the cluster starts without manual steps', () => {
    const generated = (key: string) => ({
      GenerateSecretString: {
        SecretStringTemplate: '{}',
        GenerateStringKey: key,
        PasswordLength: 40,
        ExcludePunctuation: true,
      },
    })
    compute.resourceCountIs('AWS::SecretsManager::Secret', 3)
    compute.hasResourceProperties(
      'AWS::SecretsManager::Secret',
      generated('sluice.security.sasl.internal.password'),
    )
    compute.hasResourceProperties(
      'AWS::SecretsManager::Secret',
      generated('sluice.security.sasl.plain.user.admin'),
    )
    compute.hasResourceProperties(
      'AWS::SecretsManager::Secret',
      generated('sluice.security.sasl.plain.user.sluice-gateway'),
    )
    for (const secret of Object.values(compute.findResources('AWS::SecretsManager::Secret')))
      expect(secret.Properties.SecretString).toBeUndefined()
    for (const container of serverContainers(compute))
      expect(container.Secrets?.map(s => s.Name).sort()).toEqual([
        'SLUICE_SECRETS',
        'SLUICE_SECRETS_ADMIN',
        'SLUICE_SECRETS_GATEWAY',
      ])
    compute.hasOutput('AdminCredentialsSecretArn', {})
  })

  it('SASL stages give the gateway its user in FLUSS_CONF and its password from its own secret, read at cold start', () => {
    const env = gatewayEnvironment(compute)
    const conf = JSON.parse(joinedText(env.FLUSS_CONF))
    expect(conf).toMatchObject({
      'client.security.protocol': 'SASL',
      'client.security.sasl.username': 'sluice-gateway',
      'super.users': 'User:admin;User:sluice-gateway',
    })
    expect(JSON.stringify(conf)).not.toMatch(/password/)
    const [gatewaySecret] = secretIds(compute, 'FlussGatewayCredentials')
    expect(env.SLUICE_SECRET_ARNS).toEqual({ Ref: gatewaySecret })
    // The gateway reads its own secret only: not the admin's, not the servers'.
    expect(readableSecrets(compute, 'GatewayHandlerFunctionServiceRole')).toEqual([gatewaySecret])
    expect(readableSecrets(plain, 'GatewayHandlerFunctionServiceRole')).toEqual([])
  })
})

describe('TLS stages', () => {
  const CERT_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:sluice-tls-AbCdEf'
  const CA_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:sluice-ca-AbCdEf'
  const tls = {
    certificateSecretArn: CERT_SECRET,
    caSecretArn: CA_SECRET,
    serverName: 'servers.sluice.example',
  }
  let template: Template
  let disposeTls: () => void

  beforeAll(() => {
    const test = testApp()
    disposeTls = test.dispose
    const stage = { ...STAGES.dev, stageId: 'SluiceDataTls', security: { sasl: true, tls } }
    template = Template.fromStack(new SluiceStage(test.app, { config: stage, repoRoot: REPO_ROOT }).compute)
  }, SYNTH_TIMEOUT_MS)
  afterAll(() => disposeTls())

  it('encrypt the data path: SASL_SSL listeners with the certificate from Secrets Manager in every server', () => {
    for (const container of serverContainers(template)) {
      const secrets = Object.fromEntries((container.Secrets ?? []).map(s => [s.Name, s.ValueFrom]))
      expect(secrets.SLUICE_SECRETS_TLS).toBe(CERT_SECRET)
      expect(secrets.SLUICE_SECRETS_TLS_CA).toBe(CA_SECRET)
      const conf = JSON.parse(
        joinedText(
          (container.Environment as { Name: string; Value: unknown }[]).find(e => e.Name === 'FLUSS_CONF')
            ?.Value,
        ),
      )
      expect(conf['security.protocol.map']).toBe('CLIENT:SASL_SSL,INTERNAL:SASL_SSL')
      expect(conf['sluice.security.ssl.server-name']).toBe('servers.sluice.example')
    }
    const conf = JSON.parse(joinedText(gatewayEnvironment(template).FLUSS_CONF))
    expect(conf['client.security.protocol']).toBe('SASL_SSL')
    expect(conf['client.security.ssl.server-name']).toBe('servers.sluice.example')
    // The gateway reads the CA, never the certificate's private key.
    const gatewayReads = JSON.stringify(
      statementsOf(template, 'GatewayHandlerFunctionServiceRole').filter(s =>
        actions(s).includes('secretsmanager:GetSecretValue'),
      ),
    )
    expect(gatewayReads).toContain('sluice-ca-AbCdEf')
    expect(gatewayReads).not.toContain('sluice-tls-AbCdEf')
    // The load balancer passes TLS through on 9123: no terminating listener.
    const listeners = Object.values(template.findResources('AWS::ElasticLoadBalancingV2::Listener'))
    expect(listeners.map(l => [l.Properties.Port, l.Properties.Protocol])).toEqual([[9123, 'TCP']])
  })

  it('refuse a terminating load balancer certificate with TLS on the servers', () => {
    const test = testApp()
    try {
      const stage = {
        ...STAGES.dev,
        stageId: 'SluiceBothTls',
        security: { tls, bootstrapCertificateArn: CERTIFICATE },
      }
      expect(() => new SluiceStage(test.app, { config: stage, repoRoot: REPO_ROOT })).toThrow(
        /drop 'security.bootstrapCertificateArn'/,
      )
    } finally {
      test.dispose()
    }
  })
})
