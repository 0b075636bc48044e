// The two modules of the qrcode package that functions/dashboard/enrol-views.ts uses (its own
// typings, @types/qrcode, describe the package's entry only).
declare module 'qrcode/lib/core/qrcode.js' {
  import type { QRCode, QRCodeOptions } from 'qrcode';
  export function create(text: string, options?: QRCodeOptions): QRCode;
}
declare module 'qrcode/lib/renderer/svg-tag.js' {
  import type { QRCode, QRCodeRenderersOptions } from 'qrcode';
  export function render(qrData: QRCode, options?: QRCodeRenderersOptions): string;
}
