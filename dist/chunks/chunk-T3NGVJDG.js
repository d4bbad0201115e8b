import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import e from"node:module";function a(){try{e.enableCompileCache?.()}catch{}}export{a};
//# sourceMappingURL=chunk-T3NGVJDG.js.map
