// The backend launcher lives in its own non-test target so the shipped tool can start the
// demo backend without linking test code; tests keep reaching `LocalBackend`, `onOwnThread`
// and the loopback helpers through this module, as before.
@_exported import DouyinBackendLauncher
