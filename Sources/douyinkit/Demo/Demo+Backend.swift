import DouyinBackendLauncher
import Foundation

extension Demo {
    /// The local backend (DouyinBackendLauncher's bundled demo_backend.py) over Fixtures/api for one demo
    /// section, or `nil` after printing why it could not start (no Python with the websockets
    /// package): the section is then skipped rather than failing the whole demo. The caller
    /// stops it.
    static func startBackend(_ fixtures: URL) async -> LocalBackend? {
        do {
            return try await LocalBackend.start(fixtures: fixtures.appendingPathComponent("api"))
        } catch {
            print("  skipped: \(error)")
            return nil
        }
    }
}
