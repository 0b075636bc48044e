import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';

/**
 * cdk.json's context (feature flags such as `@aws-cdk/aws-iam:minimizePolicies`), which `cdk deploy` passes to the app:
 * a test synthesizes the templates that ship, not the ones a bare `new App()` would.
 */
export const deployContext: Record<string, unknown> = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;

/**
 * An App for synthesizing the stack in a test. `aws:cdk:bundling-stacks: []` makes NodejsFunction
 * skip esbuild (the handler files must still exist; test/infra/bundles.test.ts builds the bundles
 * with the stack's options). CDK's built-in CloudFormation validation is off: without the
 * `@aws-cdk/core:validateAgainstDefaultRules` flag it only writes warnings to a report nobody reads,
 * and it cost about 10 CPU-s in each process that synthesizes (its WASM rule engine) and about 1 more
 * per synthesis. test/infra/stack.test.ts's cdk-nag synthesis runs it once, as `cdk synth` does,
 * with that flag on so its findings fail the test.
 */
export const testApp = (context: Record<string, unknown> = {}): App =>
  new App({ builtinCloudFormationValidation: false, context: { ...deployContext, 'aws:cdk:bundling-stacks': [], ...context } });
