/** Read once at start; a bad value stops the app with a readable message. */
function readEnv(source: Record<string, unknown>) {
  const base = source.VITE_API_BASE_URL ?? '/api';
  if (typeof base !== 'string' || base.trim() === '' || /\s/.test(base)) {
    throw new Error('Invalid environment: VITE_API_BASE_URL must be a URL or an absolute path');
  }
  return { VITE_API_BASE_URL: base.replace(/\/$/, '') };
}

export const env = readEnv(import.meta.env);
