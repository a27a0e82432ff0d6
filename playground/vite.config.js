import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

// The build lands in the Python package (service/static/playground), served by `smq serve` at / and
// /playground; assets under /playground/assets/ carry content hashes in their names (cached for good).
export default defineConfig({
  plugins: [preact()],
  base: '/playground/',
  build: {
    outDir: '../service/static/playground',
    emptyOutDir: true,
    assetsDir: 'assets',
    chunkSizeWarningLimit: 700,
    reportCompressedSize: true,
  },
  server: {
    // `npm run dev` proxies the API to a local `smq serve --open`
    proxy: { '/v1': 'http://127.0.0.1:8000' },
  },
});
