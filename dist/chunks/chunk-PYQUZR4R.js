import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
function e(n){return n instanceof Error?n.message:String(n)}export{e as a};
//# sourceMappingURL=chunk-PYQUZR4R.js.map
