import DouyinSupport
import DouyinBackendLauncher
import DouyinTestSupport
import Foundation
import Testing

/// The test harness's nginx: every nginx-backed test trusts that the port it was given is
/// nginx's own.
@Suite("NginxOrigin start-up")
struct NginxOriginStartTests {
    /// Another server took the free port before nginx could bind it: nginx fails to start on
    /// it, and the harness must not take that server's answers for nginx's. It tries another
    /// port, and the files it serves come from nginx.
    @Test func anotherServerOnTheFreedPortIsNotTakenForNginx() async throws {
        let impostor = try ScriptedHTTPServer { _, _ in ScriptedHTTPServer.Response(status: 200, body: Data("not nginx".utf8)) }
        defer { impostor.stop() }
        let offered = LockedBox([impostor.port])
        let nginx = try await NginxOrigin.start(extraLocations: "", ports: {
            try offered.withLock { $0.isEmpty ? try NginxOrigin.freePort() : $0.removeFirst() }
        })
        defer { nginx.stop() }
        try nginx.serve(Data("from nginx".utf8), at: "/a.txt")

        #expect(nginx.port != impostor.port, "the harness took the server on the port for nginx")
        #expect(loopbackExchange(port: nginx.port, "/a.txt")?.body == Data("from nginx".utf8))
    }
}
