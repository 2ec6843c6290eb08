// The execution panel's browser code (built to dist/webview/main.js); the editor issue fills it in.
export {};
