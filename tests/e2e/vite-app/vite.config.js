// npm links `file:` dependencies: keep the link's path so Vite sees keel-agent under
// node_modules/, as it would be after an install from the registry.
import { defineConfig } from "vite";

export default defineConfig({
  resolve: { preserveSymlinks: true },
  build: { reportCompressedSize: false },
});
