/** Style sheets imported for esbuild to bundle into console.css; nothing is imported as a value. */
declare module '*.css';
