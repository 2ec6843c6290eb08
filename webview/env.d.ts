// Ambient declarations for the webview bundle: CSS imported as text (esbuild's text loader) and the host's API.

declare module '*.css' {
  const text: string;
  export default text;
}

/** The object `acquireVsCodeApi()` returns inside a VS Code webview. */
interface VsCodeWebviewApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeWebviewApi;
