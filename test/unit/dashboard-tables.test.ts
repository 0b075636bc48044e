import { describe, expect, it } from 'vitest';
import { dashboardCss, labelTableCells } from '#shared/http/dashboard-views.ts';

describe('dashboard tables on narrow screens', () => {
  const table =
    '<div class="table-wrap"><table><thead><tr><th scope="col">Key id</th>' +
    '<th scope="col" class="num">Amount <span class="vh">(PKR)</span></th><th scope="col">Say "hi"</th></tr></thead>' +
    '<tbody><tr><td>key_1</td><td class="num">15.00</td><td><form><button>Revoke</button></form></td></tr>' +
    '<tr><td>key_2</td><td class="num">7.00</td><td>—</td></tr></tbody></table></div>';

  it("labels every body cell with its column's header, stripped of markup and quoted safely", () => {
    const out = labelTableCells(`<p>before</p>${table}<p>after</p>`);
    expect(out.match(/data-label="Key id"/g)).toHaveLength(2);
    expect(out.match(/data-label="Amount \(PKR\)"/g)).toHaveLength(2);
    expect(out).toContain('<td data-label="Say &quot;hi&quot;"><form>');
    expect(out).toContain('<td data-label="Amount (PKR)" class="num">15.00</td>');
    // Header cells and markup outside tables are untouched.
    expect(out).toContain('<th scope="col">Key id</th>');
    expect(out.startsWith('<p>before</p>')).toBe(true);
  });

  it('labels each table by its own headers', () => {
    const second = table.replace('Key id', 'When').replace('key_1', 'today');
    const out = labelTableCells(table + second);
    expect(out).toContain('<td data-label="Key id">key_1</td>');
    expect(out).toContain('<td data-label="When">today</td>');
  });

  it('stacks table rows with their labels below 40rem, so no table is wider than the screen', () => {
    const css = dashboardCss;
    expect(css).toMatch(
      /@media \(max-width:40rem\)\{\.table-wrap table,\.table-wrap tbody,\.table-wrap tr,\.table-wrap td\{display:block\}/,
    );
    expect(css).toContain('.table-wrap td::before{content:attr(data-label)');
    // Cells wrap anywhere so wide tables fit, but a button's label never breaks mid-word ("Revo ke").
    expect(css).toContain('th,td.num,td button{white-space:nowrap}');
    // Nor a piece of a value kept whole on purpose (a payout account's `•••• 6702`).
    expect(css).toContain('.nowrap{white-space:nowrap}');
    // Nor does a short word of its own column (a key's status, an IP address): "revoke d", "127. 0.0.1".
    expect(css).toContain('td button,td.word{overflow-wrap:normal}');
    // Stacked, an amount sits beside its label like every other value (not pushed to the right edge).
    expect(css).toContain('.table-wrap td.num{text-align:left}');
  });
});
