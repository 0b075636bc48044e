import { Template } from 'aws-cdk-lib/assertions';
import type { PaymentGatewayStack } from '#infra/gateway-stack.ts';

export type Resources = Record<string, { Type: string; Properties?: any; DependsOn?: string[] }>;
/**
 * The root stack and its nested route stacks (infra/route-stack.ts) as one template: each nested
 * template's parameters replaced by the root values passed to them, so a nested function's
 * TABLE_NAME or secret grant reads as the root's `{ Ref: <table> }` like a root function's.
 */
export function wholeTemplate(root: PaymentGatewayStack): Template {
  const resources: Resources = { ...Template.fromStack(root).toJSON().Resources };
  for (const nested of root.routeStacks.values()) {
    const passed = resources[root.resolve(root.getLogicalId(nested.nestedStackResource!))]!.Properties.Parameters;
    const substitute = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(substitute);
      if (!value || typeof value !== 'object') return value;
      const ref = (value as { Ref?: string }).Ref;
      if (typeof ref === 'string' && ref in passed) return passed[ref];
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v)]));
    };
    for (const [id, resource] of Object.entries(Template.fromStack(nested).toJSON().Resources as Resources)) {
      if (id in resources) throw new Error(`logical id ${id} in two stacks`);
      resources[id] = substitute(resource) as Resources[string];
    }
  }
  return Template.fromJSON({ Resources: resources });
}
