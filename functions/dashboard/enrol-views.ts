import { create } from 'qrcode/lib/core/qrcode.js';
import { render as renderSvg } from 'qrcode/lib/renderer/svg-tag.js';
import { path, plainPage } from '#shared/http/dashboard-views.ts';
import { html, Html } from '#shared/http/pages.ts';
import { alert, hidden } from './views.ts';

/**
 * The two-factor enrolment page, apart from views.ts: only the sign-in Lambda shows it, and its QR
 * code comes from qrcode's encoder and SVG renderer alone (`import 'qrcode'` would bundle its PNG
 * renderer and pngjs, about 58 kB, into both dashboard Lambdas: issue 26). qrcode-svg.d.ts types them.
 */
export function enrolPage(o: { secret: string; uri: string; email: string; csrf: string; error?: string }) {
  const svg = renderSvg(create(o.uri, { errorCorrectionLevel: 'M' }), { margin: 2 });
  return plainPage(
    'Set up two-factor authentication',
    html`<div class="card"><h1>Set up two-factor authentication</h1>
<p>Every sign-in needs a code from an authenticator app. Scan this QR code with the app, or enter the key by hand.</p>
<figure class="qr" role="img" aria-label="QR code of the authenticator key">${new Html(svg)}</figure>
<p>Key (base32):</p><p class="secret" id="totp-secret">${o.secret}</p>
<p>Or open this link on the device with the app:</p><p class="secret"><a href="${o.uri}" id="totp-uri">${o.uri}</a></p>
${alert(o.error)}
<form method="post" action="${path('/enrol')}">${hidden(o.csrf)}
<label for="code">6-digit code from the app</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}\
" maxlength="6" required${o.error ? html` aria-invalid="true"` : ''}>
<button type="submit">Turn on two-factor authentication</button>
</form>
<form method="post" action="${path('/sign-out')}">${hidden(o.csrf)}<button type="submit" class="secondary">Cancel and sign out</button>\
</form>
</div>`,
  );
}
