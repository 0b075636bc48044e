import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** The cdk-nag 3 rule packs the app must pass; unacknowledged errors fail `cdk synth`. */
export function addComplianceChecks(app: IConstruct): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
}
