import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// `base: './'` makes every asset URL relative: the server adds `<base href="<root path>/">` to
// index.html at run time, so one build works under any SERVICE_HOST_ROOT_PATH.
export default defineConfig({
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    // `npm run dev -w @sightline/ui` proxies the API to a server on the default port.
    proxy: Object.fromEntries(['/v1', '/auth', '/oauth2', '/healthz'].map((path) => [path, 'http://127.0.0.1:6006'])),
  },
});
