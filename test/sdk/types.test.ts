import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentPath, renderSdkTypes, renderSdkTypesFile, typeOf, typesPath } from '../../sdk/node/scripts/types.ts';

/**
 * sdk/node/src/types.gen.ts is generated from docs/openapi.json (which test/openapi/document.test.ts keeps equal
 * to the route table and the handlers' zod schemas), so the SDK's request and response types follow the gateway.
 */
const document = JSON.parse(readFileSync(documentPath, 'utf8'));

describe('sdk/node/src/types.gen.ts', () => {
  it('is up to date with docs/openapi.json (run `npm run docs` or `npm run sdk:types`)', () => {
    expect(readFileSync(typesPath, 'utf8') === renderSdkTypesFile(), 'sdk/node/src/types.gen.ts is stale: run `npm run sdk:types`').toBe(
      true,
    );
  });

  it('changes when the document changes (the staleness check can fail)', () => {
    const changed = structuredClone(document);
    changed.components.schemas.Balance.properties.availableBalance.type = 'string';
    expect(renderSdkTypes(changed)).not.toBe(renderSdkTypes(document));
  });

  it('has params, query and response types for every merchant operation, without `signature`', () => {
    const source = readFileSync(typesPath, 'utf8');
    for (const [, item] of Object.entries(document.paths as Record<string, any>)) {
      for (const op of Object.values(item as Record<string, any>)) {
        if (!op.security?.length) continue;
        const name = op.operationId.charAt(0).toUpperCase() + op.operationId.slice(1);
        expect(source).toContain(`export type ${name}Response = `);
        expect(source).toContain(`  ${op.operationId}: {`);
        if (op.parameters?.some((p: any) => p.in === 'query')) expect(source).toContain(`export interface ${name}Query {`);
      }
    }
    const checkout = /export interface InitiateCheckoutParams \{[\s\S]*?\n\}/.exec(source)![0];
    expect(checkout).toContain('  amount: number;');
    expect(checkout).toContain('  orderRef: {');
    expect(checkout).not.toContain('signature');
    expect(source).toMatch(/export interface Problem \{[\s\S]*?\n {2}code: string;[\s\S]*?\n {2}traceId: string;/);
  });

  it('prints the JSON Schema subset the document uses', () => {
    expect(typeOf({ anyOf: [{ type: 'null' }, { type: 'string', const: '' }, { type: 'string' }] })).toBe('null | "" | string');
    expect(typeOf({ type: ['string', 'null'] })).toBe('string | null');
    expect(typeOf({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } })).toBe('(string | number)[]');
    expect(typeOf({ type: 'object', additionalProperties: { type: 'number' } })).toBe('Record<string, number>');
    expect(typeOf({ type: 'object', properties: { a: { enum: ['x', 'y'] } }, required: ['a'], additionalProperties: false })).toBe(
      '{\n  a: "x" | "y";\n}',
    );
    expect(typeOf({ $ref: '#/components/schemas/Problem' })).toBe('Problem');
    expect(typeOf({})).toBe('unknown');
  });
});
