import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The synthesized templates as the rehearsal reads them: the root stack and its nested stacks
 * (found through each AWS::CloudFormation::Stack's `aws:asset:path`), every intrinsic resolved to
 * the local stand-in of the resource it names (the table, queues, secrets, functions, the base URL),
 * nested-stack parameters to the values their parent passes. Nothing here knows the route table or
 * the jobs list: what runs is what the templates say.
 */
export type Resource = { Type: string; Properties?: any; Metadata?: Record<string, unknown> };
export interface StackTemplate {
  name: string;
  resources: Record<string, Resource>;
  /** Parameter values passed in by the parent (unresolved), for nested stacks. */
  passed: Record<string, unknown>;
  parent?: StackTemplate;
}

export const rehearsalRegion = 'us-east-1';
export const rehearsalAccount = '000000000000';
/**
 * The live providers secret the rehearsal synthesizes with (`-c liveProvidersSecretArn`, as a deployment
 * with live providers is synthesized): the rehearsal serves it with the emulators' credentials (scripts/emulators).
 * A complete ARN (CDK checks for the 6 characters after the last hyphen).
 */
export const rehearsalLiveProvidersArn = `arn:aws:secretsmanager:${rehearsalRegion}:${rehearsalAccount}:secret:LiveProviders-Rhrsal`;

/** The root template and its nested stacks, read from a cdk.out-shaped directory. */
export function readTemplates(dir: string, rootName = 'PaymentGateway'): StackTemplate[] {
  const read = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as { Resources: Record<string, Resource> };
  const root: StackTemplate = { name: rootName, resources: read(`${rootName}.template.json`).Resources, passed: {} };
  const stacks = [root];
  for (const stack of stacks) {
    for (const [id, resource] of Object.entries(stack.resources)) {
      if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
      const file = resource.Metadata?.['aws:asset:path'];
      if (typeof file !== 'string') throw new Error(`nested stack ${id} has no aws:asset:path`);
      stacks.push({ name: id, resources: read(file).Resources, passed: resource.Properties?.Parameters ?? {}, parent: stack });
    }
  }
  return stacks;
}

/** What a logical id stands for locally: its Ref value and its attributes. */
export interface Physical {
  ref: string;
  attributes?: Record<string, string>;
}

/**
 * Local physical values by resource type. `named(type, id)` may override (the table, queues and
 * secrets the rehearsal created); every other resource gets a stable name from its logical id.
 */
export function defaultPhysical(type: string, id: string): Physical {
  const arn = (service: string, rest: string) => `arn:aws:${service}:${rehearsalRegion}:${rehearsalAccount}:${rest}`;
  switch (type) {
    case 'AWS::Lambda::Function':
      return { ref: id, attributes: { Arn: arn('lambda', `function:${id}`) } };
    case 'AWS::IAM::Role':
      return { ref: id, attributes: { Arn: `arn:aws:iam::${rehearsalAccount}:role/${id}` } };
    case 'AWS::Logs::LogGroup':
      return { ref: `/aws/lambda/${id}`, attributes: { Arn: arn('logs', `log-group:/aws/lambda/${id}:*`) } };
    case 'AWS::SNS::Topic':
      return { ref: arn('sns', id), attributes: { TopicName: id } };
    case 'AWS::ApiGateway::RestApi':
      return { ref: 'rehearsal', attributes: { RootResourceId: 'root' } };
    default:
      return { ref: id, attributes: { Arn: arn('local', id) } };
  }
}

export type Lookup = (stack: StackTemplate, id: string) => Physical;

const pseudo: Record<string, string> = {
  'AWS::Region': rehearsalRegion,
  'AWS::AccountId': rehearsalAccount,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'PaymentGateway',
  'AWS::NoValue': '',
};

/** Resolves Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select and Fn::Split in `stack`. */
export function resolver(lookup: Lookup) {
  const resolve = (stack: StackTemplate, value: unknown): any => {
    if (Array.isArray(value)) return value.map((v) => resolve(stack, v));
    if (!value || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [fn, arg] = entries[0]! as [string, any];
      if (fn === 'Ref') return ref(stack, arg);
      if (fn === 'Fn::GetAtt') return attribute(stack, arg[0], arg[1]);
      if (fn === 'Fn::Join') return (resolve(stack, arg[1]) as string[]).join(arg[0]);
      if (fn === 'Fn::Select') return (resolve(stack, arg[1]) as unknown[])[Number(resolve(stack, arg[0]))];
      if (fn === 'Fn::Split') return String(resolve(stack, arg[1])).split(arg[0]);
      if (fn === 'Fn::Sub') {
        const [text, vars] = typeof arg === 'string' ? [arg, {}] : [arg[0] as string, arg[1] as Record<string, unknown>];
        return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
          if (name in vars) return String(resolve(stack, vars[name]));
          const [id, attr] = name.split('.');
          return attr ? attribute(stack, id!, attr) : ref(stack, id!);
        });
      }
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, resolve(stack, v)]));
  };
  const ref = (stack: StackTemplate, id: string): string => {
    if (id in pseudo) return pseudo[id]!;
    if (id in stack.passed) return resolve(stack.parent!, stack.passed[id]);
    if (!(id in stack.resources)) throw new Error(`${stack.name}: Ref to unknown ${id}`);
    return lookup(stack, id).ref;
  };
  const attribute = (stack: StackTemplate, id: string, name: string): string => {
    const value = lookup(stack, id).attributes?.[name];
    if (value === undefined) throw new Error(`${stack.name}: no local value for ${id}.${name}`);
    return value;
  };
  return resolve;
}

/** The logical id a GetAtt/Ref inside `value` names (an integration URI's function, a rule target's ARN). */
export function referencedId(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(referencedId).find(Boolean);
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, any>;
  if (typeof v.Ref === 'string' && !v.Ref.startsWith('AWS::')) return v.Ref;
  if (Array.isArray(v['Fn::GetAtt'])) return v['Fn::GetAtt'][0];
  return Object.values(v).map(referencedId).find(Boolean);
}

/** Every resource of a type across the stacks. */
export function resourcesOf(stacks: StackTemplate[], type: string) {
  return stacks.flatMap((stack) =>
    Object.entries(stack.resources)
      .filter(([, r]) => r.Type === type)
      .map(([id, r]) => ({ stack, id, resource: r })),
  );
}
