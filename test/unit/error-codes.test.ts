import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { guides } from '#functions/reference/guides.ts';
import { errorCodes } from '#shared/domain/error-codes.ts';
import { defaultCodes } from '#shared/http/problem.ts';

/**
 * Every error `code` a merchant-facing document names exists (issue 38 §3): the gateway's from its catalogue
 * (shared/domain/error-codes.ts, which every thrower is typed against), the SDK's own (`redirect_refused`,
 * `connection_failed`) from the SDK's source. A code renamed in the code, or misspelt in a document, fails here.
 */
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

const snake = '([a-z][a-z0-9]*(?:_[a-z0-9]+)+)';
/** One document's text: HTML `<code>x</code>` read as Markdown's `x`. */
const asMarkdown = (text: string) => text.replace(/<code>([^<]*)<\/code>/g, '`$1`');

/**
 * The codes a text names: every snake_case token quoted in its error sections (`sections`: the text from each heading
 * to the next of its level), and anywhere else a token that follows a status (422 `duplicate_order_ref`,
 * `409` `ledger_unbalanced`, `400 unknown_parameter`) or the word code (code `invalid_signature`, `code`: `a`, `b`).
 */
function namedCodes(text: string, sections: RegExp[] = []): string[] {
  const md = asMarkdown(text);
  const found = new Set<string>();
  for (const heading of sections) {
    const start = md.search(heading);
    if (start < 0) throw new Error(`no section ${heading}`);
    const level = /^#+/.exec(md.slice(start))?.[0] ?? '##';
    const rest = md.slice(start + 1);
    const end = rest.search(new RegExp(`\\n${level} `));
    const section = end < 0 ? rest : rest.slice(0, end);
    for (const m of section.matchAll(new RegExp(`[\`'"]${snake}[\`'"]`, 'g'))) found.add(m[1]!);
  }
  const afterStatus = new RegExp(`\\b(?:4\\d\\d|50\\d)\`?\\)?,?\\s+(?:with\\s+)?(?:code\\s+)?\`${snake}\``, 'g');
  const inOneSpan = new RegExp(`\`(?:4\\d\\d|50\\d) ${snake}\``, 'g');
  const afterWordCode = new RegExp(`\\bcodes?\\s+\`${snake}\``, 'g');
  for (const pattern of [afterStatus, inOneSpan, afterWordCode]) for (const m of md.matchAll(pattern)) found.add(m[1]!);
  // `code`: `a`, `b` … up to the end of the sentence.
  for (const m of md.matchAll(/`code`\)?:([^.]*)/g)) for (const t of m[1]!.matchAll(new RegExp(`\`${snake}\``, 'g'))) found.add(t[1]!);
  return [...found].sort();
}

/** The codes the SDK sets itself (errors it raises with no answer to take a code from). */
const sdkSource = read('sdk/node/src/client.ts');
const sdkCodes = [...sdkSource.matchAll(new RegExp(`\\bcode(?: =|:) '${snake}'`, 'g'))].map((m) => m[1]!);
const known = new Set([...Object.keys(errorCodes), ...sdkCodes]);

const documents: { name: string; text: string; sections: RegExp[] }[] = [
  { name: 'sdk/node/README.md', text: read('sdk/node/README.md'), sections: [/^## Errors$/m] },
  { name: 'docs/merchant-guide.md', text: read('docs/merchant-guide.md'), sections: [/^## Errors$/m] },
  { name: 'README.md', text: read('README.md'), sections: [] },
  { name: '/docs/errors', text: guides.errors!.html, sections: [/<h1>Errors<\/h1>/] },
  ...Object.entries(guides).map(([slug, g]) => ({ name: `/docs/${slug}`, text: g.html, sections: [] })),
];

describe('error codes the documents name', () => {
  it('reads the codes a text names, and only those', () => {
    const text =
      "## Errors\nBranch on `code`: `known_one` or 'quoted_two'.\n## Other\nA reason `card_declined`; " +
      'a 422 `after_status`, a `409` `ticked_status`, `400 one_span`, with code `after_word`. It has a ' +
      'stable `code`: `listed_a` (why), `listed_b`. Then `not_a_code`.';
    expect(namedCodes(text, [/^## Errors$/m])).toEqual(
      ['after_status', 'after_word', 'known_one', 'listed_a', 'listed_b', 'one_span', 'quoted_two', 'ticked_status'].sort(),
    );
  });

  it('takes the SDK’s own codes from its source', () => {
    expect(sdkCodes.sort()).toEqual(['connection_failed', 'redirect_refused']);
  });

  it('every status default is in the catalogue', () => {
    for (const code of Object.values(defaultCodes)) expect(known.has(code), code).toBe(true);
  });

  it.each(documents.map((d) => [d.name, d] as const))('%s names only codes that exist', (_name, document) => {
    const named = namedCodes(document.text, document.sections);
    expect(
      named.filter((code) => !known.has(code)),
      `unknown codes in ${document.name}`,
    ).toEqual([]);
  });

  it('the /docs Errors guide and the reference list every code of the catalogue', () => {
    const listed = [...guides.errors!.html.matchAll(/<tr><td><code>([a-z_]+)<\/code><\/td>/g)].map((m) => m[1]);
    expect(listed).toEqual(Object.keys(errorCodes));
    const openapi = JSON.parse(read('docs/openapi.json'));
    const described: string = openapi.components.schemas.Problem.properties.code.description;
    for (const code of Object.keys(errorCodes)) expect(described, code).toContain(`\`${code}\``);
  });

  it('finds the codes where the documents list them', () => {
    expect(namedCodes(read('sdk/node/README.md'), [/^## Errors$/m])).toEqual(
      expect.arrayContaining(['signature_mismatch', 'insufficient_balance', 'connection_failed']),
    );
    const guide = namedCodes(read('docs/merchant-guide.md'), [/^## Errors$/m]);
    expect(guide).toEqual(expect.arrayContaining(['unknown_parameter', 'ledger_unbalanced', 'unsupported_bank_code', 'not_refundable']));
    expect(guide).not.toContain('card_declined'); // a failure reason, not an error code
    expect(namedCodes(guides.errors!.html, [/<h1>Errors<\/h1>/])).toEqual(expect.arrayContaining(['invalid_idempotency_key']));
  });
});
