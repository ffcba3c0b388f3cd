/** Text as the service counts and stores it: declared once, in src/client/text.ts (the published package words its refusals with it too). */
export { charCount, hasNonBlank, unstorable } from '../client/text.js';
