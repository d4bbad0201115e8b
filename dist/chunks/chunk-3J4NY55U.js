import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var r=class extends Error{name="BadInputError"};function e(n){return n instanceof r||n instanceof Error&&n.name==="BadInputError"}export{r as a,e as b};
//# sourceMappingURL=chunk-3J4NY55U.js.map
