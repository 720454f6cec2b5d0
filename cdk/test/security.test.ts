import { Template } from 'aws-cdk-lib/assertions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { METADATA_ACCESS } from '../lib/metadata-access.js'
import { SluiceStage } from '../lib/sluice-stage.js'
import { STAGES } from '../lib/stages.js'
import { REPO_ROOT, SYNTH_TIMEOUT_MS, testApp } from './synth.js'

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

describe('server secrets', () => {
  it('inject SLUICE_SECRETS from Secrets Manager into every server container at task start', () => {
    const defs = Object.values(compute.findResources('AWS::ECS::TaskDefinition'))
    const servers = defs.filter(d =>
      d.Properties.ContainerDefinitions.some((c: { Name: string }) => c.Name === 'server'),
    )
    expect(servers.length).toBeGreaterThanOrEqual(4)
    for (const d of servers) {
      const container = d.Properties.ContainerDefinitions.find((c: { Name: string }) => c.Name === 'server')
      expect(container.Secrets.map((s: { Name: string }) => s.Name)).toEqual(['SLUICE_SECRETS'])
      expect(JSON.stringify(container.Environment)).not.toContain('jaas')
    }
    compute.resourceCountIs('AWS::SecretsManager::Secret', 1)
  })
})
