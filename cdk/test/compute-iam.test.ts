import { Template } from 'aws-cdk-lib/assertions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SluiceStage } from '../lib/sluice-stage.js'
import { STAGES } from '../lib/stages.js'
import { REPO_ROOT, SYNTH_TIMEOUT_MS, testApp } from './synth.js'

type Statement = { Effect: string; Action: string | string[]; Resource: unknown }

let dispose: () => void
let compute: Template

beforeAll(() => {
  const test = testApp()
  dispose = test.dispose
  const sluice = new SluiceStage(test.app, { config: STAGES.dev, repoRoot: REPO_ROOT })
  compute = Template.fromStack(sluice.compute)
}, SYNTH_TIMEOUT_MS)

afterAll(() => dispose())

/** The identity-policy statements of the roles whose logical id starts with `rolePrefix`. */
function statementsOf(rolePrefix: string): Statement[] {
  const roles = Object.keys(compute.findResources('AWS::IAM::Role')).filter(id => id.startsWith(rolePrefix))
  expect(roles.length, rolePrefix).toBeGreaterThan(0)
  return Object.values(compute.findResources('AWS::IAM::Policy'))
    .filter(p => p.Properties.Roles.some((r: { Ref: string }) => roles.includes(r.Ref)))
    .flatMap(p => p.Properties.PolicyDocument.Statement)
}

function actionsOf(statements: Statement[]): string[] {
  return statements.flatMap(s => (Array.isArray(s.Action) ? s.Action : [s.Action]))
}

/** Object-key patterns of the statements that name objects of the data bucket. */
function bucketPrefixes(statements: Statement[], action: string): string[] {
  return statements
    .filter(s => actionsOf([s]).includes(action))
    .flatMap(s => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]))
    .map(r => JSON.stringify(r))
    .filter(r => r.includes('/remote-log/*') || r.includes('/kv-snapshots/*') || r.includes('/lake/*'))
    .map(r => /\/(remote-log|kv-snapshots|lake)\/\*/.exec(r)?.[1] ?? '')
    .sort()
}

describe('tiering function', () => {
  const statements = () => statementsOf('TieringHandlerFunctionServiceRole')

  it('reads and writes the metadata table', () => {
    expect(actionsOf(statements())).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem']))
  })

  it('reads tiered segments and writes only the lake', () => {
    expect(bucketPrefixes(statements(), 's3:GetObject*')).toEqual(['lake', 'remote-log'])
    expect(bucketPrefixes(statements(), 's3:PutObject')).toEqual(['lake'])
  })

  it('commits Iceberg tables in the stage database only', () => {
    const glue = statements().find(s => actionsOf([s]).includes('glue:UpdateTable'))
    expect(glue?.Action).toEqual(
      expect.arrayContaining(['glue:GetTable', 'glue:CreateTable', 'glue:UpdateTable']),
    )
    const resources = JSON.stringify(glue?.Resource)
    expect(resources).toContain(':catalog')
    expect(resources).toContain(':database/sluice_dev')
    expect(resources).toContain(':table/sluice_dev/*')
  })
})

describe('gateway function', () => {
  const statements = () => statementsOf('GatewayHandlerFunctionServiceRole')

  it('reads but never writes the metadata table or the bucket', () => {
    const actions = actionsOf(statements())
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']))
    expect(actions.filter(a => /^dynamodb:(Put|Update|Delete|BatchWrite)/.test(a))).toEqual([])
    expect(actions.filter(a => /^s3:(Put|Delete)/.test(a))).toEqual([])
    expect(actions.filter(a => /^glue:(Create|Update|Delete)/.test(a))).toEqual([])
  })
})

describe('server tasks', () => {
  it('read and write the metadata table, remote log and KV snapshots, but not the lake', () => {
    for (const prefix of [
      'FlussCoordinatorTaskTaskDefinitionTaskRole',
      'FlussTabletServersServer0TaskTaskDefinitionTaskRole',
    ]) {
      const statements = statementsOf(prefix)
      expect(actionsOf(statements)).toEqual(
        expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:ConditionCheckItem']),
      )
      expect(bucketPrefixes(statements, 's3:PutObject')).toEqual(['kv-snapshots', 'remote-log'])
      expect(actionsOf(statements).some(a => a.startsWith('glue:'))).toBe(false)
    }
  })
})

describe('Athena', () => {
  it('is granted only to the lake reader role', () => {
    const holders = Object.values(compute.findResources('AWS::IAM::Policy')).filter(p =>
      actionsOf(p.Properties.PolicyDocument.Statement).some(a => a.startsWith('athena:')),
    )
    expect(holders).toHaveLength(1)
    expect(JSON.stringify(holders[0].Properties.Roles)).toContain('LakeQueryReaderRole')
  })

  it('lets readers query the workgroup, read the lake and write results', () => {
    const statements = statementsOf('LakeQueryReaderRole')
    expect(actionsOf(statements)).toEqual(
      expect.arrayContaining([
        'athena:StartQueryExecution',
        'glue:GetTable',
        's3:GetObject*',
        's3:PutObject',
      ]),
    )
    expect(bucketPrefixes(statements, 's3:GetObject*')).toEqual(['lake'])
    expect(JSON.stringify(statements)).toContain(':workgroup/sluice-dev')
  })
})
