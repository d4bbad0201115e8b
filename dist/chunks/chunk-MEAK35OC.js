import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var s=new Set(["completed","stopped","failed","cancelled"]),e=class extends Error{constructor(t,i){super(t);this.field=i}field;name="InjectorRefusal"};export{s as a,e as b};
//# sourceMappingURL=chunk-MEAK35OC.js.map
