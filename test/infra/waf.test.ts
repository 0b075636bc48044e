import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { defaultRateLimits } from '#shared/http/rate-limits.ts';
import { PaymentGatewayStack } from '#infra/gateway-stack.ts';
import { testApp } from '../support/cdk-app.ts';

const synth = (context: Record<string, unknown> = {}) => Template.fromStack(new PaymentGatewayStack(testApp(context), 'Waf'));

describe('per-client limits (WAFv2 on the API stage)', () => {
  const template = synth();

  it('limits per Svc-API-Key and per client IP on /pay and /providers with 429, plus the managed rule groups', () => {
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: Match.arrayWith([
        Match.objectLike({
          Name: 'PerApiKey',
          Action: { Block: { CustomResponse: Match.objectLike({ ResponseCode: 429 }) } },
          Statement: {
            RateBasedStatement: Match.objectLike({
              Limit: defaultRateLimits.perKey,
              AggregateKeyType: 'CUSTOM_KEYS',
              CustomKeys: [{ Header: Match.objectLike({ Name: 'svc-api-key' }) }],
            }),
          },
        }),
        Match.objectLike({
          Name: 'PerIpPublic',
          Statement: {
            RateBasedStatement: Match.objectLike({
              Limit: defaultRateLimits.perIp,
              AggregateKeyType: 'IP',
              ScopeDownStatement: Match.anyValue(),
            }),
          },
        }),
        Match.objectLike({ Statement: { ManagedRuleGroupStatement: Match.objectLike({ Name: 'AWSManagedRulesAmazonIpReputationList' }) } }),
        Match.objectLike({ Statement: { ManagedRuleGroupStatement: Match.objectLike({ Name: 'AWSManagedRulesCommonRuleSet' }) } }),
        Match.objectLike({ Statement: { ManagedRuleGroupStatement: Match.objectLike({ Name: 'AWSManagedRulesKnownBadInputsRuleSet' }) } }),
      ]),
    });
    const stages = template.findResources('AWS::ApiGateway::Stage');
    const [stageId] = Object.keys(stages);
    const association = Object.values(template.findResources('AWS::WAFv2::WebACLAssociation'))[0]!;
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(stageId);
  });

  it('counts the hosted pages (checkout and payment links), provider callbacks and the dashboard (sign-in included) per client IP', () => {
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0]!;
    const rule = acl.Properties.Rules.find((r: { Name: string }) => r.Name === 'PerIpPublic');
    const paths = rule.Statement.RateBasedStatement.ScopeDownStatement.OrStatement.Statements.map(
      (s: { ByteMatchStatement: { SearchString: string; PositionalConstraint: string } }) =>
        `${s.ByteMatchStatement.PositionalConstraint} ${s.ByteMatchStatement.SearchString}`,
    );
    // /l/: each "Continue" on a payment link's page opens a checkout session, so one address must not post without limit.
    expect(paths).toEqual(['CONTAINS /pay/', 'CONTAINS /l/', 'CONTAINS /providers/', 'CONTAINS /dashboard']);
  });

  it('keeps the stage throttle as a high safety net, and takes limits from CDK context', () => {
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]!;
    expect(stage.Properties.MethodSettings[0].ThrottlingRateLimit).toBeGreaterThanOrEqual(1000);
    synth({ rateLimitPerKey: 50, rateLimitPerIp: 20, rateLimitWindowSeconds: 300 }).hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: Match.arrayWith([
        Match.objectLike({
          Name: 'PerApiKey',
          Statement: { RateBasedStatement: Match.objectLike({ Limit: 50, EvaluationWindowSec: 300 }) },
        }),
        Match.objectLike({
          Name: 'PerIpPublic',
          Statement: { RateBasedStatement: Match.objectLike({ Limit: 20, EvaluationWindowSec: 300 }) },
        }),
      ]),
    });
  });
});
