import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{b as e}from"./chunk-GSNKVR4F.js";var s=class extends e{name="PlanError";constructor(r,t){super(r,t,"plan")}};export{s as a};
//# sourceMappingURL=chunk-JK3FOVJL.js.map
